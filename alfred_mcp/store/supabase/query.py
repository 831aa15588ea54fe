"""The filter AST as PostgREST query parameters, and PostgREST's JSON values as the store's values.

Pure. A whole `Where` becomes ONE logic tree, `or=(and(...))`, in which every value is a
double-quoted string with `"` and `\\` backslash-escaped: commas, parentheses, dots, quotes and
operator names in a value stay data (PostgREST's unquoted syntax breaks on them). Semantics are
`store/filters.py`'s: `neq`/`not_in` keep NULL rows, `ilike` folds ASCII case only with `%` and `_`
as the only wildcards (compiled to an anchored `imatch` regex, since PostgREST's `ilike` also
treats `*` as a wildcard), `contains` is array containment, `is_null` on an array means empty.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import date, datetime, timezone
from typing import Any

from alfred_mcp.kitchen.query import Filter, Where
from alfred_mcp.kitchen.schema import Column, Table
from alfred_mcp.store.base import Row
from alfred_mcp.store.postgres.codec import postgres_where

ORDER_TIEBREAK = "insert_seq"
_PLAIN = {"eq": "eq", "gt": "gt", "gte": "gte", "lt": "lt", "lte": "lte"}
_REGEX_SPECIAL = re.compile(r"([\\.^$|?*+()\[\]{}])")


def quote(value: Any) -> str:
    """A value as a double-quoted PostgREST logic-tree literal."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (int, float)):
        text = repr(value)
    else:
        text = str(value)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def logic_tree(table: Table, where: Where, extra: str | None = None) -> str | None:
    """`where` (and the `extra` term, a keyset's) as the value of an `or=` parameter (`(and(...))`), or None when empty.

    Raises:
        UnknownColumnError, InvalidFilterError: as `postgres.codec.postgres_where`.
    """
    checked = postgres_where(table, where)
    terms = [_term(table.column(clause.field), clause) for clause in checked.all_of]
    if checked.any_of:
        terms.append("or(" + ",".join(_term(table.column(clause.field), clause) for clause in checked.any_of) + ")")
    if extra is not None:
        terms.append(extra)
    return "(and(" + ",".join(terms) + "))" if terms else None


def _term(column: Column, clause: Filter) -> str:
    name, op, value = column.name, clause.op, clause.value
    if op == "is_null":
        return _is_null(column, bool(value))
    if op in _PLAIN:
        return f"{name}.{_PLAIN[op]}.{quote(value)}"
    if op == "neq":
        return f"or({name}.is.null,{name}.neq.{quote(value)})"
    if op == "in":
        return f"{name}.in.({_list(value)})"
    if op == "not_in":
        return f"or({name}.is.null,{name}.not.in.({_list(value)}))"
    if op == "ilike":
        return f"{name}.imatch.{quote(like_to_regex(value))}"
    items = value if isinstance(value, list) else [value]
    return f"{name}.cs.{quote(array_literal(items))}"


def _is_null(column: Column, is_null: bool) -> str:
    name = column.name
    if column.type == "text[]":
        return f"or({name}.is.null,{name}.eq.{{}})" if is_null else f"and({name}.not.is.null,{name}.neq.{{}})"
    return f"{name}.is.null" if is_null else f"{name}.not.is.null"


def _list(values: Sequence[Any]) -> str:
    return ",".join(quote(value) for value in values)


def like_to_regex(pattern: str) -> str:
    """A LIKE pattern (`%`, `_` wildcards, nothing escaped) as an anchored POSIX regex."""
    parts = [".*" if char == "%" else "." if char == "_" else _REGEX_SPECIAL.sub(r"\\\1", char) for char in pattern]
    return "^" + "".join(parts) + "$"


def array_literal(items: Sequence[str]) -> str:
    """A PostgreSQL text[] literal with every element quoted."""
    return "{" + ",".join('"' + item.replace("\\", "\\\\").replace('"', '\\"') + '"' for item in items) + "}"


# -- values in and out --------------------------------------------------------------------------


def to_json(value: Any) -> Any:
    """An encoded column value (`postgres.codec.encode`) as JSON for PostgREST."""
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def decode_row(table: Table, names: Sequence[str], data: dict[str, Any]) -> Row:
    """A PostgREST row as SQLiteStore returns it: numeric as float, timestamps ISO UTC with Z."""
    return {name: decode_value(table.column(name), data.get(name)) for name in names}


def decode_value(column: Column, value: Any) -> Any:
    if value is None:
        return None
    if column.type == "numeric":
        return float(value)
    if column.type == "timestamp":
        return utc_text(value)
    return value


def utc_text(value: str) -> str:
    """'2026-01-12T18:30:00+01:00' -> '2026-01-12T17:30:00.000000Z'."""
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def document_text(value: Any) -> str:
    """A session document as JSON text: sent as text so its key order survives jsonb."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
