"""Keyset pagination: "the rows after this one" in a read's order, as SQL or a PostgREST logic tree.

Pure. A page continues after an anchor row: its values in the order's columns plus the dialect's
tiebreak (SQLite's rowid, PostgreSQL's insert_seq), which makes the order total. The predicate
follows `filters.compile_order`'s semantics: ascending puts NULLs last, descending puts them
first. When every column is NOT NULL and all run one way, it is a row-value comparison, which an
index on the order's columns answers as a range; otherwise it is the expanded OR of ANDs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.query import OrderBy
from alfred_mcp.kitchen.schema import Table
from alfred_mcp.store.filters import quote_identifier as q


@dataclass(frozen=True)
class KeyTerm:
    """One column of the order: its SQL name, direction, and whether it can hold NULL."""

    name: str
    descending: bool
    nullable: bool


def key_terms(table: Table, order_by: Sequence[OrderBy], tiebreak: str) -> list[KeyTerm]:
    """The order's columns, then the tiebreak (ascending, never NULL)."""
    terms = [KeyTerm(table.column(o.field).name, o.descending, table.column(o.field).nullable) for o in order_by]
    return [*terms, KeyTerm(tiebreak, False, False)]


def cursor_anchor_gone(table: Table) -> InputError:
    """The row a page continues after no longer exists (deleted since the previous page)."""
    return InputError(
        f"The {table.noun} this cursor continues after no longer exists; read again without 'cursor'.",
        field="cursor", table=table.name,
    )


def anchor_columns(terms: Sequence[KeyTerm]) -> str:
    """The select list that reads an anchor row's key values."""
    return ", ".join(_sql_name(term) for term in terms)


def keyset_sql(terms: Sequence[KeyTerm], values: Sequence[Any], mark: str) -> tuple[str, list[Any]]:
    """`rows after the anchor` as a SQL condition and its parameters (`values` are the anchor's, by term)."""
    if all(not t.nullable for t in terms) and len({t.descending for t in terms}) == 1:
        names = ", ".join(_sql_name(t) for t in terms)
        marks = ", ".join([mark] * len(terms))
        return f"({names}) {'<' if terms[0].descending else '>'} ({marks})", list(values)
    alternatives, params = [], []
    for i, term in enumerate(terms):
        parts, part_params = [], []
        for earlier, value in zip(terms[:i], values[:i]):
            sql, found = _equal(earlier, value, mark)
            parts.append(sql)
            part_params += found
        after = _after(term, values[i], mark)
        if after is None:
            continue
        parts.append(after[0])
        alternatives.append("(" + " AND ".join(parts) + ")")
        params += part_params + after[1]
    return ("(" + " OR ".join(alternatives) + ")" if alternatives else "FALSE"), params


def _sql_name(term: KeyTerm) -> str:
    return term.name if term.name == "rowid" else q(term.name)


def _equal(term: KeyTerm, value: Any, mark: str) -> tuple[str, list[Any]]:
    name = _sql_name(term)
    return (f"{name} IS NULL", []) if value is None else (f"{name} = {mark}", [value])


def _after(term: KeyTerm, value: Any, mark: str) -> tuple[str, list[Any]] | None:
    """Rows strictly after `value` in this column's direction (None: no row is)."""
    name = _sql_name(term)
    if term.descending:
        if value is None:
            return (f"{name} IS NOT NULL", []) if term.nullable else None
        return f"{name} < {mark}", [value]
    if value is None:
        return None
    return (f"({name} > {mark} OR {name} IS NULL)" if term.nullable else f"{name} > {mark}"), [value]


def keyset_tree(terms: Sequence[KeyTerm], values: Sequence[Any], quote: Any) -> str | None:
    """The same condition as a PostgREST logic-tree term (`or(and(...),...)`); None when no row follows."""
    alternatives = []
    for i, term in enumerate(terms):
        parts = [_tree_equal(earlier, value, quote) for earlier, value in zip(terms[:i], values[:i])]
        after = _tree_after(term, values[i], quote)
        if after is None:
            continue
        alternatives.append("and(" + ",".join([*parts, after]) + ")")
    return "or(" + ",".join(alternatives) + ")" if alternatives else None


def _tree_equal(term: KeyTerm, value: Any, quote: Any) -> str:
    return f"{term.name}.is.null" if value is None else f"{term.name}.eq.{quote(value)}"


def _tree_after(term: KeyTerm, value: Any, quote: Any) -> str | None:
    if term.descending:
        if value is None:
            return f"{term.name}.not.is.null" if term.nullable else None
        return f"{term.name}.lt.{quote(value)}"
    if value is None:
        return None
    if term.nullable:
        return f"or({term.name}.gt.{quote(value)},{term.name}.is.null)"
    return f"{term.name}.gt.{quote(value)}"
