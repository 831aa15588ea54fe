"""The store as a request sees it: every row id it returns is noted as one the request knows.

`IdNotingStore` wraps the app's store once (under the journal). The ids of the rows each call
returns (`id`, `user_id` and foreign key columns), the acting user's id and the ids of sessions are
noted in the request's `state/known_ids.KnownIds`, which the leak guard checks outgoing payloads
against; text columns are never noted, so what a person typed is never taken for an id.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from alfred_mcp.kitchen.query import Query, Where
from alfred_mcp.kitchen.schema import Table
from alfred_mcp.state.known_ids import note_ids
from alfred_mcp.store.base import Children, Row, SessionRecord, Store


class IdNotingStore:
    """A Store whose returned rows' ids are noted for the request's leak guard; all else passes through."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def select(self, table: Table, query: Query, *, user_id: str) -> list[Row]:
        return _noted(table, await self.inner.select(table, query, user_id=user_id), user_id)

    async def insert(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        return _noted(table, await self.inner.insert(table, rows, user_id=user_id), user_id)

    async def insert_with_children(
        self, table: Table, rows: Sequence[Row], children: Sequence[Children], *, user_id: str
    ) -> tuple[list[Row], list[list[Row]]]:
        parents, stored = await self.inner.insert_with_children(table, rows, children, user_id=user_id)
        for group, written in zip(children, stored):
            _noted(group.table, written, user_id)
        return _noted(table, parents, user_id), stored

    async def restore(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        return _noted(table, await self.inner.restore(table, rows, user_id=user_id), user_id)

    async def update(self, table: Table, where: Where, values: Row, *, user_id: str) -> list[Row]:
        return _noted(table, await self.inner.update(table, where, values, user_id=user_id), user_id)

    async def delete(self, table: Table, where: Where, *, user_id: str) -> list[Row]:
        return _noted(table, await self.inner.delete(table, where, user_id=user_id), user_id)

    async def current_session(self, user_id: str) -> SessionRecord | None:
        return _session(await self.inner.current_session(user_id))

    async def create_session(self, user_id: str) -> SessionRecord:
        record = _session(await self.inner.create_session(user_id))
        assert record is not None
        return record

    async def get_session(self, user_id: str, number: int) -> SessionRecord | None:
        return _session(await self.inner.get_session(user_id, number))


def _noted(table: Table, rows: list[Row], user_id: str) -> list[Row]:
    columns = ("id", "user_id", *(column.name for column in table.fk_columns))
    note_ids(_values(rows, columns))
    note_ids((user_id,))
    return rows


def _values(rows: Iterable[Row], columns: tuple[str, ...]) -> Iterable[object]:
    for row in rows:
        for name in columns:
            yield row.get(name)


def _session(record: SessionRecord | None) -> SessionRecord | None:
    if record is not None:
        note_ids((record.session_id, record.user_id))
    return record
