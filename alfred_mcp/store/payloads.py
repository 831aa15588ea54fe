"""What a caller may name in a read or a write, checked the same way by every backend before any SQL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from alfred_mcp.errors import InvalidPayloadError
from alfred_mcp.kitchen.query import check_columns
from alfred_mcp.kitchen.schema import Table

STORE_OWNED = frozenset({"id", "user_id", "created_at", "updated_at"})
"""Columns the store sets itself; a caller's payload may not name them."""


def selected_columns(table: Table, columns: tuple[str, ...] | None) -> tuple[str, ...]:
    """The visible columns asked for, `id` always first; all visible ones when None.

    Raises:
        UnknownColumnError: a column is not in the table.
    """
    if columns is None:
        return table.visible_columns
    check_columns(table, columns)
    return tuple(dict.fromkeys(("id", *columns)))


_SETTABLE: dict[str, frozenset[str]] = {}


def settable_columns(table: Table) -> frozenset[str]:
    """The columns a caller may set (by table name: hashing a Table hashes every column)."""
    found = _SETTABLE.get(table.name)
    if found is None:
        found = _SETTABLE[table.name] = frozenset(name for name in table.visible_columns if name not in STORE_OWNED)
    return found


def check_payload_keys(table: Table, row: Mapping[str, Any]) -> None:
    """Raises UnknownColumnError, or InvalidPayloadError for a column the store sets itself."""
    if settable_columns(table).issuperset(row):
        return
    for key in row:
        table.column(key)
        if key in STORE_OWNED:
            raise InvalidPayloadError(f"'{key}' is set by the server, not by a caller.", field=key, table=table.name)


def check_restored_keys(table: Table, row: Mapping[str, Any]) -> None:
    """A row put back by an undo names only columns of the table (its id and stamps included, never its owner)."""
    for key in row:
        if key != "user_id":
            table.column(key)
    if not row.get("id"):
        raise InvalidPayloadError("A restored row needs its id.", field="id", table=table.name)
