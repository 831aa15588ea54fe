"""The filter AST every read, update and delete goes through, checked against the schema.

A query never carries SQL text: a `Filter` names a column of the kitchen schema, one of the
operators below and a value; backends compile it to bound parameters (`store/filters.py`).
This module is pure; it lives beside the schema so `state/` can use it without `store/`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal, get_args

from alfred_mcp.errors import InvalidFilterError, UnknownColumnError
from alfred_mcp.kitchen.day_words import WORDS_HINT
from alfred_mcp.kitchen.jsonschema import DATE_PATTERN, MAX_TIMESTAMP, describe_value, field_value, parses
from alfred_mcp.kitchen.schema import MAX_TEXT, Column, Table

Op = Literal["eq", "neq", "gt", "gte", "lt", "lte", "in", "not_in", "ilike", "is_null", "contains"]
OPS: tuple[str, ...] = get_args(Op)
MAX_IN_VALUES = 500
MAX_FILTERS = 20

_ORDERABLE = {"text", "int", "numeric", "date", "timestamp", "uuid", "bool"}


@dataclass(frozen=True)
class Filter:
    """`field op value`, e.g. Filter("name", "ilike", "%cod%")."""

    field: str
    op: Op
    value: Any = None


@dataclass(frozen=True)
class Where:
    """All of `all_of` AND (any of `any_of`, when it is not empty)."""

    all_of: tuple[Filter, ...] = ()
    any_of: tuple[Filter, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not self.all_of and not self.any_of

    def filters(self) -> tuple[Filter, ...]:
        return self.all_of + self.any_of


@dataclass(frozen=True)
class OrderBy:
    field: str
    descending: bool = False


@dataclass(frozen=True)
class Query:
    """A read: which rows, which columns (None = all visible), in what order, how many."""

    where: Where = Where()
    columns: tuple[str, ...] | None = None
    order_by: tuple[OrderBy, ...] = ()
    limit: int | None = None
    after: str | None = None
    """Keyset pagination: the id of the row this page continues after, in this order (None: from the start)."""


def check_where(table: Table, where: Where) -> None:
    """Check every filter's column, operator and value type against the schema.

    Raises:
        UnknownColumnError: a filter names a column the table does not have.
        InvalidFilterError: an operator does not fit the column, or the value does not fit the operator.
    """
    if len(where.filters()) > MAX_FILTERS:
        raise InvalidFilterError(f"At most {MAX_FILTERS} filters are allowed.", field="filters")
    for clause in where.filters():
        check_filter(table, clause)


def check_filter(table: Table, clause: Filter) -> None:
    column = table.column(clause.field)
    if clause.op not in OPS:
        raise InvalidFilterError(
            f"Unknown operator '{clause.op}' on '{clause.field}'. Valid operators: {', '.join(OPS)}.",
            field=clause.field, value=clause.op, valid=list(OPS),
        )
    _check_op_fits_column(column, clause)
    _check_value_fits_op(column, clause)


def _check_op_fits_column(column: Column, clause: Filter) -> None:
    is_array = column.type == "text[]"
    allowed = {"contains", "is_null"} if is_array else set(OPS) - {"contains"}
    if column.type in ("bool", "uuid"):
        allowed -= {"gt", "gte", "lt", "lte", "ilike"}
    if column.type not in ("text",):
        allowed.discard("ilike")
    if clause.op not in allowed:
        raise InvalidFilterError(
            f"Operator '{clause.op}' does not apply to '{column.name}' ({column.type}). "
            f"Use one of: {', '.join(op for op in OPS if op in allowed)}.",
            field=column.name, value=clause.op, valid=[op for op in OPS if op in allowed],
        )


def _check_value_fits_op(column: Column, clause: Filter) -> None:
    value = clause.value
    if clause.op == "is_null":
        if not isinstance(value, bool):
            raise InvalidFilterError(
                f"'is_null' on '{column.name}' takes true (is null) or false (is not null).", field=column.name
            )
        return
    if clause.op in ("in", "not_in"):
        if not isinstance(value, list) or not value:
            raise InvalidFilterError(f"'{clause.op}' on '{column.name}' takes a non-empty list.", field=column.name)
        if len(value) > MAX_IN_VALUES:
            raise InvalidFilterError(f"'{clause.op}' takes at most {MAX_IN_VALUES} values.", field=column.name)
        for item in value:
            _check_scalar(column, clause.op, item)
        return
    if clause.op == "contains":
        items = value if isinstance(value, list) else [value]
        if not items or not all(isinstance(item, str) for item in items):
            raise InvalidFilterError(
                f"'contains' on '{column.name}' takes a string or a list of strings.", field=column.name
            )
        if len(items) > MAX_IN_VALUES:
            raise InvalidFilterError(f"'contains' takes at most {MAX_IN_VALUES} values.", field=column.name)
        for item in items:
            _check_scalar(column, clause.op, item)
        return
    if clause.op == "ilike" and not isinstance(value, str):
        raise InvalidFilterError(f"'ilike' on '{column.name}' takes a string pattern such as '%cod%'.", field=column.name)
    _check_scalar(column, clause.op, value)


def _check_scalar(column: Column, op: str, value: Any) -> None:
    """The value must be what a write of `column` would accept: its type, a real date, one of its enum values."""
    check = _SCALAR_CHECKS.get(column.type, _check_text)
    problem = check(column, value) if op != "ilike" else _check_pattern(column, value)
    if problem is None and column.enum is not None and op != "ilike" and value not in column.enum:
        problem = f"one of {', '.join(str(v) for v in column.enum)}"
    if problem is not None:
        hint = f" (to match empty values use is_null on '{column.name}')" if value is None else ""
        raise InvalidFilterError(
            f"'{op}' on '{column.name}' needs {problem}, got {describe_value(value)}{hint}.",
            field=column.name, value=field_value(value),
        )


def _check_text(column: Column, value: Any) -> str | None:
    if not isinstance(value, str):
        return "a string"
    return None if len(value) <= MAX_TEXT else f"a string of at most {MAX_TEXT} characters"


def _check_pattern(column: Column, value: Any) -> str | None:
    return _check_text(column, value)


def _check_int(column: Column, value: Any) -> str | None:
    whole = (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())
    return None if whole else "a whole number"


def _check_number(column: Column, value: Any) -> str | None:
    return None if isinstance(value, (int, float)) and not isinstance(value, bool) else "a number"


def _check_bool(column: Column, value: Any) -> str | None:
    return None if isinstance(value, bool) else "true or false"


def _check_date(column: Column, value: Any) -> str | None:
    """A real date (the tools resolve a day word to one before they read: `kitchen/day_words.py`)."""
    if isinstance(value, str) and _DATE.search(value) and parses(date.fromisoformat, value):
        return None
    return f"a date: {WORDS_HINT}"


def _check_timestamp(column: Column, value: Any) -> str | None:
    if isinstance(value, str) and len(value) <= MAX_TIMESTAMP and parses(datetime.fromisoformat, value.removesuffix("Z")):
        return None
    return "an ISO-8601 timestamp such as 2026-01-20T18:30:00Z"


def _check_ref_text(column: Column, value: Any) -> str | None:
    return None if isinstance(value, str) else "a ref such as recipe_1"


_DATE = re.compile(DATE_PATTERN)
_SCALAR_CHECKS: dict[str, Callable[[Column, Any], str | None]] = {
    "text": _check_text, "int": _check_int, "numeric": _check_number, "bool": _check_bool,
    "date": _check_date, "timestamp": _check_timestamp, "uuid": _check_ref_text, "text[]": _check_text,
}


def check_order(table: Table, order_by: tuple[OrderBy, ...]) -> None:
    """Raises UnknownColumnError or InvalidFilterError for an order on an unorderable column."""
    for order in order_by:
        column = table.column(order.field)
        if column.type not in _ORDERABLE:
            raise InvalidFilterError(f"Cannot order by '{column.name}' ({column.type}).", field=column.name)


def check_columns(table: Table, columns: tuple[str, ...] | None) -> None:
    """Raises UnknownColumnError naming every column the table lacks, at once."""
    unknown = [name for name in columns or () if not table.has_column(name)]
    if len(unknown) == 1:
        table.column(unknown[0])
    if unknown:
        raise UnknownColumnError(
            f"Table '{table.name}' has no columns {', '.join(repr(n) for n in unknown)}. Valid columns: {', '.join(table.visible_columns)}.",
            table=table.name, field=unknown[0], valid=list(table.visible_columns), columns=unknown,
        )


def where_from_json(filters: list[dict[str, Any]] | None, or_filters: list[dict[str, Any]] | None = None) -> Where:
    """Build a Where from the tools' JSON form: [{"field": ..., "op": ..., "value": ...}]."""
    return Where(
        all_of=tuple(Filter(f["field"], f["op"], f.get("value")) for f in filters or ()),
        any_of=tuple(Filter(f["field"], f["op"], f.get("value")) for f in or_filters or ()),
    )


def order_from_json(order_by: list[dict[str, Any]] | None) -> tuple[OrderBy, ...]:
    return tuple(OrderBy(o["field"], o.get("direction") == "desc") for o in order_by or ())
