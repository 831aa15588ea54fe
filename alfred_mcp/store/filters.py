"""Compile the filter AST (`kitchen/query.py`) to a SQL fragment and its bound parameters.

Pure: returns text and values, executes nothing. Identifiers come only from the kitchen
schema's `Column` objects (double-quoted); every value is a bound parameter. Semantics that
are a choice, the same in every dialect:

- `neq` is null-safe: a row whose column is NULL counts as "not equal" and is kept.
- `not_in` likewise keeps NULL rows; `in` and the comparisons never match NULL.
- `ilike` is a case-insensitive LIKE; the caller's `%` and `_` are wildcards and nothing
  else is special (no escape character, as in SQLite).
- `contains` (text[] columns) matches rows whose array holds every given value.
- `is_null` on a text[] column means "empty": arrays are stored NOT NULL, default empty.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from alfred_mcp.errors import InvalidFilterError
from alfred_mcp.kitchen.query import Filter, OrderBy, Where, check_order, check_where
from alfred_mcp.kitchen.schema import Column, Table

Compiled = tuple[str, list[Any]]

_COMPARISONS = {"eq": "=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


@dataclass(frozen=True)
class Dialect:
    """How one SQL engine spells the parts of a filter that differ between engines."""

    name: str
    placeholder: str
    null_safe_neq: str
    """Infix operator for 'differs from, NULL included'."""
    ilike: str
    """Template with {column} and {param}."""
    contains: str
    """Template for 'array {column} holds {param}', one per value."""
    is_empty_array: str
    """Template for 'array {column} is NULL or empty'."""
    bool_as_int: bool
    tiebreak: str | None
    """A last ORDER BY term that makes ties come out in insertion order (PostgreSQL: a hidden identity column)."""


SQLITE = Dialect(
    name="sqlite",
    placeholder="?",
    null_safe_neq="IS NOT",
    ilike="lower({column}) LIKE lower({param})",
    contains="EXISTS (SELECT 1 FROM json_each({column}) WHERE value = {param})",
    is_empty_array="({column} IS NULL OR json_array_length({column}) = 0)",
    bool_as_int=True,
    tiebreak="rowid",
)

POSTGRES = Dialect(
    name="postgres",
    placeholder="%s",
    null_safe_neq="IS DISTINCT FROM",
    ilike="{column} ILIKE {param} ESCAPE ''",
    contains="{param} = ANY({column})",
    is_empty_array="({column} IS NULL OR cardinality({column}) = 0)",
    bool_as_int=False,
    tiebreak='"insert_seq"',
)

DIALECTS: dict[str, Dialect] = {d.name: d for d in (SQLITE, POSTGRES)}


def get_dialect(name: str) -> Dialect:
    """The dialect called `name`; an unknown name is a programming error (ValueError)."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise ValueError(f"unknown SQL dialect {name!r}; known: {', '.join(DIALECTS)}") from None


def quote_identifier(name: str) -> str:
    """`name` as a double-quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def compile_where(table: Table, where: Where, dialect: str = "sqlite") -> Compiled:
    """`(a AND b) AND (c OR d)` as SQL and parameters; ("", []) for an empty Where.

    Raises:
        UnknownColumnError, InvalidFilterError: the Where does not fit the table's schema.
    """
    check_where(table, where)
    spelling = get_dialect(dialect)
    params: list[Any] = []
    parts = [_compile_filter(table, clause, spelling, params) for clause in where.all_of]
    if where.any_of:
        alternatives = [_compile_filter(table, clause, spelling, params) for clause in where.any_of]
        parts.append("(" + " OR ".join(alternatives) + ")")
    return " AND ".join(parts), params


def default_order(table: Table) -> tuple[OrderBy, ...]:
    return tuple(OrderBy(name) for name in table.default_order)


def compile_order(table: Table, order_by: tuple[OrderBy, ...], dialect: str = "sqlite") -> str:
    """`ORDER BY ...` for schema columns only (NULLs last ascending, first descending); "" if empty.

    Raises:
        UnknownColumnError, InvalidFilterError: a column is unknown or cannot be ordered.
    """
    if not order_by:
        return ""
    check_order(table, order_by)
    spelling = get_dialect(dialect)
    terms = [_order_term(table.column(order.field), order.descending) for order in order_by]
    if spelling.tiebreak:
        terms.append(spelling.tiebreak)
    return "ORDER BY " + ", ".join(terms)


def compile_limit(limit: int | None, dialect: str = "sqlite") -> Compiled:
    """`LIMIT <param>` or ("", []) when there is no limit.

    Raises:
        InvalidFilterError: `limit` is not a whole number >= 0.
    """
    if limit is None:
        return "", []
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InvalidFilterError(f"'limit' must be a whole number >= 0, got {limit!r}.", field="limit", value=limit)
    return f"LIMIT {get_dialect(dialect).placeholder}", [limit]


def _order_term(column: Column, descending: bool) -> str:
    direction = "DESC NULLS FIRST" if descending else "ASC NULLS LAST"
    return f"{quote_identifier(column.name)} {direction}"


def _compile_filter(table: Table, clause: Filter, dialect: Dialect, params: list[Any]) -> str:
    column = table.column(clause.field)
    name = quote_identifier(column.name)
    mark = dialect.placeholder
    op, value = clause.op, clause.value
    if op == "is_null":
        return _compile_is_null(column, name, bool(value), dialect)
    if op in ("in", "not_in"):
        params.extend(_param(v, dialect) for v in value)
        marks = ", ".join([mark] * len(value))
        return f"{name} IN ({marks})" if op == "in" else f"({name} IS NULL OR {name} NOT IN ({marks}))"
    if op == "contains":
        return _compile_contains(name, value if isinstance(value, list) else [value], dialect, params)
    params.append(_param(value, dialect))
    if op == "ilike":
        return dialect.ilike.format(column=name, param=mark)
    if op == "neq":
        return f"{name} {dialect.null_safe_neq} {mark}"
    return f"{name} {_COMPARISONS[op]} {mark}"


def _compile_is_null(column: Column, name: str, is_null: bool, dialect: Dialect) -> str:
    if column.type == "text[]":
        empty = dialect.is_empty_array.format(column=name)
        return empty if is_null else f"NOT {empty}"
    return f"{name} IS NULL" if is_null else f"{name} IS NOT NULL"


def _compile_contains(name: str, items: list[str], dialect: Dialect, params: list[Any]) -> str:
    params.extend(items)
    tests = [dialect.contains.format(column=name, param=dialect.placeholder) for _ in items]
    return tests[0] if len(tests) == 1 else "(" + " AND ".join(tests) + ")"


def _param(value: Any, dialect: Dialect) -> Any:
    if isinstance(value, bool) and dialect.bool_as_int:
        return int(value)
    return value
