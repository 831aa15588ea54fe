"""The refs-only CRUD tools: db_read, db_create, db_update, db_delete, describe_table."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.day_words import filter_days, row_days
from alfred_mcp.kitchen.describe import describe_tables
from alfred_mcp.kitchen.query import Query, Where, order_from_json, where_from_json
from alfred_mcp.kitchen.schema import INVENTORY, MEAL_PLANS, SHOPPING_LIST, Table, get_table
from alfred_mcp.operations import crud
from alfred_mcp.operations.allergies import parse_override
from alfred_mcp.operations.constraint_warnings import update_warnings, write_warnings
from alfred_mcp.operations.double_booking import booking_warnings, slots_of_rows
from alfred_mcp.operations.dropped_recipe_lines import dropped_recipe_notes, planned_recipes
from alfred_mcp.operations.listed_twice import Joined, add_to_open_lines, already_there
from alfred_mcp.operations.occasion_servings import occasion_warnings
from alfred_mcp.operations.pantry_followers import follow_pantry
from alfred_mcp.operations.shopping_checklist import ticked_not_stocked
from alfred_mcp.operations.stale_notes import replaced_recipe_notes
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult, work_on
from alfred_mcp.server.tools.common import session_context as _context
from alfred_mcp.session import Session, UnitOfWork
from alfred_mcp.state.note_facts import noted
from alfred_mcp.state.translate import translate_where


def _rows_result(session: Session, result: crud.CrudResult) -> dict[str, Any]:
    return {"table": result.table, "rows": result.rows, "count": len(result.rows), **_context(session)}


def _warned(warnings: list[str]) -> dict[str, list[str]]:
    """{"warnings": [...]} when a write holds a disliked or excluded ingredient or plans a meal against the week
    (`_meal_warnings`), else nothing."""
    return {"warnings": warnings} if warnings else {}


async def _meal_warnings(work: UnitOfWork, table: str, result: crud.CrudResult, changed: Iterable[str] | None = None) -> list[str]:
    """A meal the write planned where that day already has one, or on the occasion's day for other servings than it is
    for, or given another recipe while keeping notes written for the one before (warnings, never refusals); `changed`:
    an update's columns, each warning only when what it judges changed."""
    if table != MEAL_PLANS.name:
        return []
    slots, columns = slots_of_rows(result.rows), None if changed is None else set(changed)
    booked = await booking_warnings(work, slots) if columns is None or columns & {"date", "meal_type"} else []
    noted = await replaced_recipe_notes(work) if columns and "recipe_id" in columns else []
    return booked + (await occasion_warnings(work, slots) if columns is None or columns & {"date", "servings", "recipe_id"} else []) + noted


def _days_said(table: Table, args: ToolArgs) -> ToolArgs:
    """`args` with day words ('today', 'friday', 'this week') in date columns' data and filters written as dates, on
    the server's clock (`kitchen/day_words.py`)."""
    today = date.today()
    said: dict[str, Any] = {key: filter_days(table, args.get(key), today) for key in ("filters", "or_filters") if args.get(key)}
    data = args.get("data")
    if isinstance(data, dict):
        said["data"] = row_days(table, data, today)
    elif isinstance(data, list):
        said["data"] = [row_days(table, row, today) if isinstance(row, dict) else row for row in data]
    return {**args, **said}


async def db_read(app: AlfredApp, args: ToolArgs) -> ToolResult:
    table = get_table(args["table"])
    args = _days_said(table, args)
    query = Query(
        where=where_from_json(args.get("filters"), args.get("or_filters")),
        columns=tuple(args["columns"]) if args.get("columns") else None,
        order_by=order_from_json(args.get("order_by")),
        limit=args.get("limit"),
    )
    async with work_on(app, "db_read", args) as work:
        result = await crud.read(work, table, query, cursor=args.get("cursor"))
        page = {"truncated": result.truncated, **({"next_cursor": result.next_cursor} if result.next_cursor else {})}
        return {**_rows_result(work.session, result), **page}


async def db_create(app: AlfredApp, args: ToolArgs) -> ToolResult:
    table = crud.writable_table(args["table"])
    args = _days_said(table, args)
    data = args["data"] if isinstance(args["data"], list) else [args["data"]]
    override = parse_override(args.get("allergy_override"))
    async with work_on(app, "db_create", args) as work:
        joined = await add_to_open_lines(work, data, override) if table.name == SHOPPING_LIST.name else Joined(rest=data)
        result = await crud.create(work, table, joined.rest, allergy_override=override) if joined.rest else crud.CrudResult(table.name, [])
        warnings = await write_warnings(work, table, data) + await _meal_warnings(work, table.name, result)
        warnings += await already_there(work, table, [row["id"] for row in result.rows])
        notes = [*joined.facts, *result.notes]
        result = crud.CrudResult(table.name, joined.rows + result.rows) if joined.rows else result
        return {**_rows_result(work.session, result), **_warned(warnings), **noted(notes)}


async def db_update(app: AlfredApp, args: ToolArgs) -> ToolResult:
    table = crud.writable_table(args["table"])
    args = _days_said(table, args)
    where = where_from_json(args.get("filters"), args.get("or_filters"))
    override = parse_override(args.get("allergy_override"))
    async with work_on(app, "db_update", args) as work:
        before = await _meals_recipes(work, table.name, where) if isinstance(args["data"], dict) and "recipe_id" in args["data"] else {}
        result = await crud.update(work, table, where, args["data"], all_rows=bool(args.get("all")),
                                   confirm_allergy_removal=bool(args.get("confirm_allergy_removal")), allergy_override=override)
        warnings = await update_warnings(work, table, args["data"], result.rows) if isinstance(args["data"], dict) else []
        warnings += await _meal_warnings(work, table.name, result, changed=args["data"] if isinstance(args["data"], dict) else ())
        notes = ticked_not_stocked(args["data"], len(result.rows)) \
            if table.name == SHOPPING_LIST.name and result.rows and isinstance(args["data"], dict) else []
        notes += await dropped_recipe_notes(work, before)
        notes += await follow_pantry(work) if table.name == INVENTORY.name else []
        return {**_rows_result(work.session, result), **_warned(warnings), **noted(notes)}


async def db_delete(app: AlfredApp, args: ToolArgs) -> ToolResult:
    table = crud.writable_table(args["table"])
    args = _days_said(table, args)
    where = where_from_json(args.get("filters"), args.get("or_filters"))
    async with work_on(app, "db_delete", args) as work:
        before = await _meals_recipes(work, table.name, where)
        result = await crud.delete(work, table, where, all_rows=bool(args.get("all")))
        notes = await dropped_recipe_notes(work, before)
        notes += await follow_pantry(work) if table.name == INVENTORY.name else []
        return {**_rows_result(work.session, result), "cascaded": list(result.cascaded), "unlinked": list(result.unlinked),
                **noted(notes)}


async def _meals_recipes(work: UnitOfWork, table: str, where: Where) -> dict[str, str]:
    """The recipes of the meals a write is about to change or delete (`dropped_recipe_lines`), none for other tables."""
    if table != MEAL_PLANS.name or where.is_empty:
        return {}
    return await planned_recipes(work, translate_where(MEAL_PLANS, where, work.session.registry))


async def describe_table(app: AlfredApp, args: ToolArgs) -> ToolResult:
    return {"tables": describe_tables(args.get("table"))}


HANDLERS: dict[str, Handler] = {
    "db_read": db_read,
    "db_create": db_create,
    "db_update": db_update,
    "db_delete": db_delete,
    "describe_table": describe_table,
}
