"""The kitchen journal: every row a unit of work inserts, updates or deletes, as kitchen_undo needs it.

`JournalingStore` wraps the app's store once; while a unit of work runs, its writes are recorded in
that unit's `KitchenJournal` (found through a context variable, so concurrent calls never mix). An
update first reads the rows it changes; a delete first reads the children it will cascade to and the
rows whose reference it will clear. A savepoint that rolls back drops what it recorded. At commit the
unit of work stores the journal as the session's newest undo entry (`state/undo.py`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from alfred_mcp.kitchen.query import Query, Where
from alfred_mcp.kitchen.schema import Table
from alfred_mcp.state.undo import MAX_ROWS, UndoStep, Unlinked
from alfred_mcp.store.base import Children, Row, Store
from alfred_mcp.store.reach import delete_reach

_current: ContextVar[KitchenJournal | None] = ContextVar("alfred_kitchen_journal", default=None)


class KitchenJournal:
    """The kitchen writes of one unit of work, bounded by MAX_ROWS."""

    def __init__(self) -> None:
        self.steps: list[UndoStep] = []
        self.too_large = False
        self.paused = False

    @property
    def rows(self) -> int:
        return sum(step.size for step in self.steps)

    def record(self, step: UndoStep) -> None:
        if self.too_large:
            return
        self.steps.append(step)
        if self.rows > MAX_ROWS:
            self.overflow()

    def overflow(self) -> None:
        """The call wrote more than an entry may hold: remembered as too large to undo."""
        self.steps, self.too_large = [], True

    def mark(self) -> tuple[int, bool]:
        return len(self.steps), self.too_large

    def rollback_to(self, mark: tuple[int, bool]) -> None:
        """Forget what a rolled-back savepoint recorded."""
        del self.steps[mark[0]:]
        self.too_large = mark[1]

    @property
    def wrote(self) -> bool:
        return bool(self.steps) or self.too_large


@contextmanager
def journaling(journal: KitchenJournal) -> Iterator[None]:
    """Writes through a JournalingStore inside the block are recorded in `journal`."""
    token = _current.set(journal)
    try:
        yield
    finally:
        _current.reset(token)


@contextmanager
def not_journaled() -> Iterator[None]:
    """Writes inside the block are not recorded (kitchen_undo's own writes)."""
    journal = _current.get()
    if journal is None:
        yield
        return
    journal.paused = True
    try:
        yield
    finally:
        journal.paused = False


def _record_insert(table: Table, written: list[Row]) -> None:
    journal = _active(table)
    if journal is not None and written:
        # The rows are the store's own answer: no need to validate them again (a batch writes hundreds).
        journal.record(UndoStep.model_construct(kind="insert", table=table.name, before=[], after=written, cascaded={}, unlinked=[]))


def _active(table: Table) -> KitchenJournal | None:
    journal = _current.get()
    return journal if journal is not None and not journal.paused and table.user_owned else None


class JournalingStore:
    """A Store whose kitchen writes are recorded in the current unit of work's journal; all else passes through."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def insert(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        written = await self.inner.insert(table, rows, user_id=user_id)
        _record_insert(table, written)
        return written

    async def insert_with_children(
        self, table: Table, rows: Sequence[Row], children: Sequence[Children], *, user_id: str
    ) -> tuple[list[Row], list[list[Row]]]:
        parents, stored = await self.inner.insert_with_children(table, rows, children, user_id=user_id)
        _record_insert(table, parents)
        for group, written in zip(children, stored):
            _record_insert(group.table, written)
        return parents, stored

    async def update(self, table: Table, where: Where, values: Row, *, user_id: str) -> list[Row]:
        journal = _active(table)
        if journal is None:
            return await self.inner.update(table, where, values, user_id=user_id)
        before = await self.inner.select(table, Query(where=where, limit=MAX_ROWS + 1), user_id=user_id)
        after = await self.inner.update(table, where, values, user_id=user_id)
        if after:
            journal.record(UndoStep(kind="update", table=table.name, before=before, after=after))
        return after

    async def delete(self, table: Table, where: Where, *, user_id: str) -> list[Row]:
        journal = _active(table)
        if journal is None:
            return await self.inner.delete(table, where, user_id=user_id)
        doomed = await self.inner.select(table, Query(where=where, columns=("id",), limit=MAX_ROWS + 1), user_id=user_id)
        if len(doomed) > MAX_ROWS:
            journal.overflow()
            return await self.inner.delete(table, where, user_id=user_id)
        reach = await delete_reach(self.inner, table, [row["id"] for row in doomed], user_id=user_id, limit=MAX_ROWS + 1)
        step = UndoStep(kind="delete", table=table.name, cascaded=reach.cascaded,
                        unlinked=[Unlinked(table=u.table, column=u.column, row=u.row) for u in reach.unlinked])
        step.before = await self.inner.delete(table, where, user_id=user_id)
        if step.before:
            journal.record(step)
        return step.before
