"""One async handler per MCP tool: arguments (already contract-checked) in, result dict out."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from alfred_mcp import crud
from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Query, order_from_json, where_from_json
from alfred_mcp.kitchen.schema import TABLES, Column, Table, get_table
from alfred_mcp.session import Session

Handler = Callable[[AlfredApp, dict[str, Any]], Awaitable[dict[str, Any]]]


def _context(session: Session) -> dict[str, Any]:
    return {"session": session.name, "turn": session.turn}


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
    async with app.sessions.acting_on(app.user_id, args.get("session")) as session:
        result = await crud.read(app.store, session, table, query)
        return {**_rows_result(session, result), "truncated": result.truncated}


async def db_create(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    table = crud.writable_table(args["table"])
    data = args["data"] if isinstance(args["data"], list) else [args["data"]]
    async with app.sessions.acting_on(app.user_id, args.get("session")) as session:
        return _rows_result(session, await crud.create(app.store, session, table, data))


async def db_update(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    table = crud.writable_table(args["table"])
    where = where_from_json(args.get("filters"), args.get("or_filters"))
    async with app.sessions.acting_on(app.user_id, args.get("session")) as session:
        result = await crud.update(app.store, session, table, where, args["data"], all_rows=bool(args.get("all")))
        return _rows_result(session, result)


async def db_delete(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    table = crud.writable_table(args["table"])
    where = where_from_json(args.get("filters"), args.get("or_filters"))
    async with app.sessions.acting_on(app.user_id, args.get("session")) as session:
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


async def show_working_set(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    wanted = args.get("entity_type")
    include_deleted = args.get("include_deleted", True)
    async with app.sessions.acting_on(app.user_id, args.get("session")) as session:
        refs = [
            {
                "ref": e.ref, "entity_type": e.entity_type, "table": TABLES_BY_TYPE[e.entity_type],
                "label": e.label, "action": e.action, "turn_created": e.turn_created,
                "turn_last_ref": e.turn_last_ref, "deleted_turn": e.deleted_turn, "saved_as": e.saved_as,
            }
            for e in session.registry.entries()
            if (wanted is None or e.entity_type == wanted) and (include_deleted or e.deleted_turn is None)
        ]
        return {"refs": refs, "count": len(refs), **_context(session)}


TABLES_BY_TYPE = {table.entity_type: table.name for table in TABLES.values()}


async def session_start(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    session, previous = await app.sessions.start(app.user_id)
    return {"previous": previous, **_context(session)}


async def turn_begin(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    async with app.sessions.acting_on(app.user_id, args.get("session")) as session:
        session.turn += 1
        await session.save(app.store)
        return _context(session)


HANDLERS: dict[str, Handler] = {
    "db_read": db_read,
    "db_create": db_create,
    "db_update": db_update,
    "db_delete": db_delete,
    "describe_table": describe_table,
    "show_working_set": show_working_set,
    "session_start": session_start,
    "turn_begin": turn_begin,
}
