"""The checks a table tool (db_read, db_create, db_update, db_delete) makes of its arguments before it runs, made
before a planned call is accepted: the table, each filter's column, operator and value, the columns read, the
order and the data's column names, each refusal naming the argument's path and what is valid."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import partial
from typing import Any

from alfred_mcp.errors import InputError, UnknownColumnError
from alfred_mcp.kitchen.day_words import filter_days
from alfred_mcp.kitchen.query import Filter, check_columns, check_filter, check_order, order_from_json
from alfred_mcp.kitchen.schema import Table, get_table

TABLE_TOOLS = frozenset({"db_read", "db_create", "db_update", "db_delete"})


def check_table_arguments(tool: str, arguments: dict[str, Any]) -> None:
    """Raises InputError (its `field` the argument's path, e.g. 'filters[0].op') for what the tool would refuse
    before running; arguments that already passed the tool's inputSchema are assumed."""
    if tool not in TABLE_TOOLS or not isinstance(arguments.get("table"), str):
        return
    table = get_table(arguments["table"])
    for key in ("filters", "or_filters"):
        for index, clause in enumerate(arguments.get(key) or ()):
            _check_clause(table, clause, f"{key}[{index}]")
    _at("columns", lambda: check_columns(table, tuple(arguments.get("columns") or ())) if arguments.get("columns") else None)
    _at("order_by", lambda: check_order(table, order_from_json(arguments.get("order_by"))))
    data = arguments.get("data")
    rows = data if isinstance(data, list) else [data] if isinstance(data, dict) else []
    for index, row in enumerate(rows):
        where = f"data[{index}]" if isinstance(data, list) else "data"
        unknown = next((name for name in row if not table.has_column(name)), None) if isinstance(row, dict) else None
        if unknown is not None:
            _at(f"{where}.{unknown}", partial(table.column, unknown))


def _check_clause(table: Table, clause: dict[str, Any], where: str) -> None:
    try:  # a day word on a date column is checked as the date the tool resolves it to (`kitchen/day_words.py`)
        (clause,) = filter_days(table, [clause], date.today()) or [clause]
        check_filter(table, Filter(clause["field"], clause["op"], clause.get("value")))
    except UnknownColumnError as error:
        raise _renamed(error, f"{where}.field") from None
    except InputError as error:
        raise _renamed(error, f"{where}.op" if "valid" in error.fields else f"{where}.value") from None


def _at(where: str, check: Callable[[], object]) -> None:
    try:
        check()
    except InputError as error:
        raise _renamed(error, where) from None


def _renamed(error: InputError, where: str) -> InputError:
    """The same refusal, its field the argument's path, its message starting with it."""
    return type(error)(f"{where}: {error.message}", **{**error.fields, "field": where})
