"""The refs-only CRUD tools: db_read, db_create, db_update, db_delete, describe_table."""

from __future__ import annotations

from typing import Any

from alfred_mcp import crud
from alfred_mcp.app import AlfredApp
from alfred_mcp.handlers.common import acting
from alfred_mcp.handlers.common import session_context as _context
from alfred_mcp.kitchen.query import Query, order_from_json, where_from_json
from alfred_mcp.kitchen.schema import TABLES, Column, Table, get_table
from alfred_mcp.session import Session


def _rows_result(session: Session, result: crud.CrudResult) -> dict[str, Any]:
    return {"table": result.table, "rows": result.rows, "count": len(result.rows), **_context(session)}


async def db_read(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    table = get_table(args["table"])
    query = Query(
        where=where_from_json(args.get("filters"), args.get("or_filters")),
        columns=tuple(args["columns"]) if args.get("columns") else None,
        order_by=order_from_json(args.get("order_by")),
        limit=args.get("limit"),
    )
    async with acting(app, "db_read", args) as session:
        result = await crud.read(app.store, session, table, query)
        return {**_rows_result(session, result), "truncated": result.truncated}


async def db_create(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    table = crud.writable_table(args["table"])
    data = args["data"] if isinstance(args["data"], list) else [args["data"]]
    async with acting(app, "db_create", args) as session:
        return _rows_result(session, await crud.create(app.store, session, table, data))


async def db_update(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    table = crud.writable_table(args["table"])
    where = where_from_json(args.get("filters"), args.get("or_filters"))
    async with acting(app, "db_update", args) as session:
        result = await crud.update(app.store, session, table, where, args["data"], all_rows=bool(args.get("all")))
        return _rows_result(session, result)


async def db_delete(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    table = crud.writable_table(args["table"])
    where = where_from_json(args.get("filters"), args.get("or_filters"))
    async with acting(app, "db_delete", args) as session:
        result = await crud.delete(app.store, session, table, where, all_rows=bool(args.get("all")))
        cascaded = [{"table": name, "count": count} for name, count in result.cascaded]
        return {**_rows_result(session, result), "cascaded": cascaded}


async def describe_table(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    if args.get("table"):
        table = get_table(args["table"])
        return {"tables": [{**_table_summary(table), "columns": [_describe_column(c) for c in table.columns if c.name != "user_id"]}]}
    return {"tables": [_table_summary(table) for table in TABLES.values()]}


def _table_summary(table: Table) -> dict[str, Any]:
    return {
        "name": table.name, "ref_prefix": table.entity_type, "noun": table.noun,
        "subdomain": table.subdomain, "description": table.description, "writable": table.user_owned,
    }


def _describe_column(column: Column) -> dict[str, Any]:
    described: dict[str, Any] = {"name": column.name, "type": column.type, "description": column.description}
    if column.fk is not None:
        target = TABLES[column.fk.table]
        described.update(type="ref", references=target.name, ref_prefix=target.entity_type, on_delete=column.fk.on_delete)
    if column.name == "id":
        described["type"] = "ref"
    described["required"] = column.required_on_create
    described["writable"] = column.writable
    if column.enum is not None:
        described["allowed"] = list(column.enum)
    if column.suggested is not None:
        described["suggested"] = list(column.suggested)
    if column.default not in (None, "now", ()):
        described["default"] = column.default
    return described


HANDLERS = {
    "db_read": db_read,
    "db_create": db_create,
    "db_update": db_update,
    "db_delete": db_delete,
    "describe_table": describe_table,
}
