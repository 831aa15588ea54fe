"""Values into and out of SQLite: bools as 0/1, text[] as JSON text, ids and stamps filled on insert."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from alfred_mcp.errors import InvalidPayloadError
from alfred_mcp.kitchen.schema import Column, Table
from alfred_mcp.store.base import Row
from alfred_mcp.store.payloads import check_payload_keys, check_restored_keys


def now_text() -> str:
    """The current UTC time as the store writes timestamps."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def insert_values(table: Table, row: Row, *, user_id: str, now: str, restoring: bool = False) -> list[Any]:
    """One row's values for every column of `table`: id, owner, stamps and schema defaults filled.

    `restoring` keeps the row's own id and stamps (an undo putting a deleted row back).

    Raises:
        UnknownColumnError, InvalidPayloadError: as `check_payload_keys`, or a text[] value that is not a list.
    """
    if restoring:
        check_restored_keys(table, row)
        return [_to_sqlite(column, row.get(column.name, user_id if column.name == "user_id" else None)) for column in table.columns]
    check_payload_keys(table, row)
    return [_to_sqlite(column, _initial_value(column, row, user_id, now)) for column in table.columns]


def update_assignments(table: Table, values: Row) -> list[tuple[str, Any]]:
    """(column, stored value) pairs for an UPDATE; refuses an empty or store-owned payload."""
    check_payload_keys(table, values)
    if not values:
        raise InvalidPayloadError("Nothing to update: give at least one column value.", field="data", table=table.name)
    return [(name, _to_sqlite(table.column(name), value)) for name, value in values.items()]


def rows_out(table: Table, names: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[Row]:
    """Stored tuples as the store's rows: bools and lists decoded."""
    decoders = [(i, _decoder(table.column(name))) for i, name in enumerate(names)]
    active = [(i, decode) for i, decode in decoders if decode is not None]
    out = []
    for values in rows:
        row = dict(zip(names, values))
        for i, decode in active:
            if values[i] is not None:
                row[names[i]] = decode(values[i])
        out.append(row)
    return out


def _initial_value(column: Column, row: Row, user_id: str, now: str) -> Any:
    if column.name == "id":
        return str(uuid.uuid4())
    if column.name == "user_id":
        return user_id
    if column.name in ("created_at", "updated_at"):
        return now
    if column.name in row:
        return row[column.name]
    if column.type == "timestamp" and column.default == "now":
        return now
    return column.default


def _to_sqlite(column: Column, value: Any) -> Any:
    if value is None:
        return None
    if column.type == "bool" and isinstance(value, bool):
        return int(value)
    if column.type == "text[]":
        if not isinstance(value, (list, tuple)):
            raise InvalidPayloadError(f"'{column.name}' takes a list of strings.", field=column.name)
        return json.dumps(list(value), ensure_ascii=False)
    return value


def _decoder(column: Column) -> Callable[[Any], Any] | None:
    if column.type == "bool":
        return bool
    if column.type == "text[]":
        return _decode_array
    return None


def _decode_array(text: str) -> list[str]:
    # Most tag columns are empty; skipping the JSON parser for them halves the cost of a read.
    return [] if text == "[]" else json.loads(text)
