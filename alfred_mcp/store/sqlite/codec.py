"""Values into and out of SQLite: bools as 0/1, text[] as JSON text, ids and stamps filled on insert."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from operator import itemgetter
from typing import Any

from pydantic_core import from_json, to_json

from alfred_mcp.errors import InvalidPayloadError
from alfred_mcp.kitchen.schema import Column, Table
from alfred_mcp.store.base import Row
from alfred_mcp.store.ids import new_ids
from alfred_mcp.store.payloads import check_payload_keys, check_restored_keys, settable_columns


def TO_JSON(value: Any) -> str:  # noqa: N802 - a constant-like codec function
    """JSON text of a value as stored (UTF-8, compact): the Rust encoder pydantic ships, ~3x json.dumps."""
    return to_json(value).decode()


def now_text() -> str:
    """The current UTC time as the store writes timestamps."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def restore_values(table: Table, row: Row, *, user_id: str) -> list[Any]:
    """The values, for every column of `table`, of a row put back as it was (its own id and stamps: an undo).

    Raises:
        UnknownColumnError, InvalidPayloadError: a key that is no column, no id, or a text[] value that is not a list.
    """
    check_restored_keys(table, row)
    return [_to_sqlite(column, row.get(column.name, user_id if column.name == "user_id" else None)) for column in table.columns]


def encode_inserts(
    table: Table, rows: Sequence[Row], *, user_id: str, now: str, link: tuple[str, Sequence[str]] | None = None
) -> tuple[list[list[Any]], list[Row]]:
    """New rows of `table`: (their values for every column, for SQLite; the rows as the store returns them).

    Ids, the owner, the stamps and schema defaults are filled in. The returned rows hold the same values
    in Python form (bools, lists), never decoded again. `link` (column, one value per row): a reference
    the store fills in, a child's parent id.

    Raises:
        UnknownColumnError, InvalidPayloadError: a key that is no column or one the store sets (`check_payload_keys`),
            or a text[] value that is not a list.
    """
    if not settable_columns(table).issuperset(set().union(*rows)):
        for row in rows:
            check_payload_keys(table, row)
    plan = _insert_plan(table)
    values_of = itemgetter(*plan.columns)
    constants = dict.fromkeys(plan.stamps, now) | dict.fromkeys(plan.owners, user_id)
    link_column, link_values = link if link is not None else (None, ())
    template, now_defaults, converted, owned = plan.template, plan.now_defaults, plan.converted, bool(plan.owners)
    stored: list[list[Any]] = []
    out: list[Row] = []
    for i, (row, row_id) in enumerate(zip(rows, new_ids(len(rows)))):
        merged = template | row
        merged.update(constants)
        merged["id"] = row_id
        if link_column is not None:
            merged[link_column] = link_values[i]
        for name in now_defaults:
            if merged[name] is _NOW:
                merged[name] = now
        values = list(values_of(merged))
        for position, column in converted:
            value = values[position]
            if value is not None:
                values[position] = _to_sqlite(column, value)
                merged[column.name] = bool(value) if column.type == "bool" else list(value)
        if owned:
            del merged["user_id"]
        stored.append(values)
        out.append(merged)
    return stored, out


_NOW = object()
"""The default of a timestamp column that defaults to the insert's time."""


@dataclass(frozen=True)
class _InsertPlan:
    """Where each column's value comes from, worked out once per table."""

    template: dict[str, Any]
    """Every column with its default, in column order (each new row starts from a copy; do not mutate)."""
    owners: tuple[str, ...]
    stamps: tuple[str, ...]
    now_defaults: tuple[str, ...]
    """Timestamp columns, other than the stamps, that default to the insert's time."""
    converted: tuple[tuple[int, Column], ...]
    """(position, column) of the columns SQLite stores in another form: bools, text[]."""

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(self.template)


_PLANS: dict[str, _InsertPlan] = {}


def _insert_plan(table: Table) -> _InsertPlan:
    plan = _PLANS.get(table.name)
    if plan is None:
        columns = table.columns
        stamps = tuple(c.name for c in columns if c.name in ("created_at", "updated_at"))
        plan = _PLANS[table.name] = _InsertPlan(
            template={c.name: _NOW if c.type == "timestamp" and c.default == "now" else c.default for c in columns},
            owners=tuple(c.name for c in columns if c.name == "user_id"),
            stamps=stamps,
            now_defaults=tuple(c.name for c in columns if c.type == "timestamp" and c.default == "now" and c.name not in stamps),
            converted=tuple((i, c) for i, c in enumerate(columns) if c.type in ("bool", "text[]")),
        )
    return plan


def update_assignments(table: Table, values: Row) -> list[tuple[str, Any]]:
    """(column, stored value) pairs for an UPDATE; refuses an empty or store-owned payload."""
    check_payload_keys(table, values)
    if not values:
        raise InvalidPayloadError("Nothing to update: give at least one column value.", field="data", table=table.name)
    return [(name, _to_sqlite(table.column(name), value)) for name, value in values.items()]


def rows_out(table: Table, names: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[Row]:
    """Stored tuples as the store's rows: bools and lists decoded.

    Every text[] value of the page is parsed in one call (one JSON array of them), not one by one.
    """
    arrays, bools = _decoding_plan(table, tuple(names))
    texts = [values[i] or "null" for values in rows for i in arrays]
    decoded = iter(from_json("[" + ",".join(texts) + "]") if texts else ())
    out = []
    for values in rows:
        row = dict(zip(names, values))
        for i in arrays:
            row[names[i]] = next(decoded)
        for i in bools:
            if values[i] is not None:
                row[names[i]] = bool(values[i])
        out.append(row)
    return out


_DECODING: dict[tuple[str, tuple[str, ...]], tuple[tuple[int, ...], tuple[int, ...]]] = {}


def _decoding_plan(table: Table, names: tuple[str, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(positions of text[] columns, positions of bool columns) among `names`, worked out once."""
    key = (table.name, names)
    plan = _DECODING.get(key)
    if plan is None:
        types = [table.column(name).type for name in names]
        plan = _DECODING[key] = (
            tuple(i for i, kind in enumerate(types) if kind == "text[]"), tuple(i for i, kind in enumerate(types) if kind == "bool")
        )
    return plan


def _to_sqlite(column: Column, value: Any) -> Any:
    if value is None:
        return None
    if column.type == "bool" and isinstance(value, bool):
        return int(value)
    if column.type == "text[]":
        if not isinstance(value, (list, tuple)):
            raise InvalidPayloadError(f"'{column.name}' takes a list of strings.", field=column.name)
        return TO_JSON(list(value))
    return value
