"""One sqlite3 connection behind anyio worker threads: opening it, transactions, and running work on it.

Every call takes one lock, except calls made inside the caller's own `transaction()` block,
which already holds it (a context variable marks the block, so its child tasks are covered
too). A write outside a transaction is its own BEGIN IMMEDIATE ... COMMIT; inside one it runs
in a savepoint, so a failed multi-row insert leaves nothing behind either way.

A transaction's bookkeeping statements ride along with its work: BEGIN and SAVEPOINT wait until
the block's first store call and run in the same worker-thread hop, a savepoint's RELEASE waits
for the next one, and COMMIT takes whatever still waits. A block that made no store call, and has
none waiting for its COMMIT (a session save), costs nothing. (Each hop to the worker thread costs
more than the statement it carries.)
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import anyio

from alfred_mcp.errors import StoreError
from alfred_mcp.store.ddl import LEGACY_USERS_SQL, SCHEMA_VERSION, USER_ORIGINS_KEY, tables_in_fk_order
from alfred_mcp.store.filters import quote_identifier as q
from alfred_mcp.store.sqlite.errors import to_store_error
from alfred_mcp.store.sqlite.schema import missing_columns_sql, schema_sql

T = TypeVar("T")

READ_BUDGET = 0.002
"""Seconds a read may hold the event loop's thread before it moves to the worker thread."""
_PROGRESS_STEPS = 2_000
"""SQLite virtual-machine steps between two checks of the budget."""
MIN_SQLITE_VERSION = (3, 35, 0)
"""RETURNING arrived in SQLite 3.35."""
_PRAGMAS = (
    "PRAGMA foreign_keys = ON",
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA busy_timeout = 5000",
    "PRAGMA temp_store = MEMORY",
)


class SQLiteConnection:
    """The connection a SQLite store's kitchen and session halves share."""

    dialect = "sqlite"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._connection: sqlite3.Connection | None = None
        self._lock = anyio.Lock()
        self._thread_lock = threading.Lock()
        self._depth: ContextVar[int] = ContextVar(f"sqlite_store_depth_{id(self)}", default=0)
        self._pending: ContextVar[list[Callable[[sqlite3.Connection], None]] | None] = ContextVar(
            f"sqlite_store_pending_{id(self)}", default=None
        )
        """Statements of the open transaction waiting to run before its next store call."""

    async def open(self) -> None:
        async with self._lock:
            if self._connection is None:
                self._connection = await anyio.to_thread.run_sync(_connect, self.path)

    async def close(self) -> None:
        async with self._lock:
            connection, self._connection = self._connection, None
            if connection is not None:
                await anyio.to_thread.run_sync(connection.close)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        depth = self._depth.get()
        if depth:
            name = f"alfred_tx_{depth}"
            async with self._block(depth, _Block(f"SAVEPOINT {name}", f"RELEASE {name}", (f"ROLLBACK TO {name}", f"RELEASE {name}"))):
                yield
            return
        async with self._lock:
            token = self._pending.set([])
            try:
                async with self._block(0, _Block("BEGIN IMMEDIATE", "COMMIT", ("ROLLBACK",))):
                    yield
            finally:
                self._pending.reset(token)

    @asynccontextmanager
    async def _block(self, depth: int, block: _Block) -> AsyncIterator[None]:
        """Open `block` with the next store call, close it (commit now, release with the next call), or undo it."""
        pending = self._pending.get()
        assert pending is not None, "a block runs inside a transaction"
        token = self._depth.set(depth + 1)
        pending.append(block.start)
        try:
            yield
            if not block.is_open and pending[-1:] in ([], [block.start]):
                _drop_from(pending, block.start)  # no store call ran or waits inside: nothing to finish
            elif depth == 0:
                await self._in_thread(block.finish)
            else:
                pending.append(block.finish)
        except BaseException:
            if block.is_open:
                pending.clear()  # what waits was queued inside this block: the undo discards it all
                with anyio.CancelScope(shield=True):
                    await self._in_thread(block.undo)
            else:
                _drop_from(pending, block.start)
            raise
        finally:
            self._depth.reset(token)

    def in_transaction(self) -> bool:
        return self._depth.get() > 0

    async def check_ready(self) -> None:
        if self._connection is None:
            raise StoreError("The store is not open; call open() first.")
        await self._read_now(_check_schema_version)

    async def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if self._depth.get():
            return await self._in_thread(work)
        async with self._lock:
            return await self._in_thread(work)

    async def _read_now(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """A one-row indexed read run on the event loop's thread when the connection is idle.

        Every call checks its session's version first; a thread hop would cost more than the
        query. Idle means: no other task's transaction is open (this task's own is fine) and
        no worker thread is using the connection; otherwise it waits its turn like `_read`.
        """
        connection = self._connection
        if self._opening_waits():
            return await self._in_thread(work)
        if connection is not None and (self._depth.get() or not self._lock.locked()):
            if self._thread_lock.acquire(blocking=False):
                try:
                    return work(connection)
                except (sqlite3.Error, sqlite3.Warning) as error:
                    raise to_store_error(error) from error
                finally:
                    self._thread_lock.release()
        return await self._read(work)

    async def _read_bounded(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """A read tried on the event loop's thread when the connection is idle, within READ_BUDGET seconds.

        Most reads (a page of rows, a count by an index) take less than the hop to a worker thread
        costs. One that runs past the budget is interrupted (SQLite's progress handler) and run
        again on the worker thread, so the loop is never held longer than the budget.
        """
        connection = self._connection
        if self._opening_waits():
            return await self._in_thread(work)
        idle = connection is not None and (self._depth.get() or not self._lock.locked())
        if connection is not None and idle and self._thread_lock.acquire(blocking=False):
            deadline = time.perf_counter() + READ_BUDGET
            connection.set_progress_handler(lambda: time.perf_counter() > deadline, _PROGRESS_STEPS)
            try:
                return work(connection)
            except sqlite3.OperationalError as error:
                if time.perf_counter() <= deadline:
                    raise to_store_error(error) from error
            except (sqlite3.Error, sqlite3.Warning) as error:
                raise to_store_error(error) from error
            finally:
                connection.set_progress_handler(None, 0)
                self._thread_lock.release()
        return await self._read(work)

    def _opening_waits(self) -> bool:
        """Inside a transaction whose BEGIN (or a SAVEPOINT) has not run yet. A read there runs after it, in the
        worker thread: it then sees the rows as they are under the write lock, as the write that follows will
        (a read-modify-write, a count of what an update would match); read before it, another process could
        change them in between and one of the two writes would be lost."""
        return bool(self._depth.get() and self._pending.get())

    async def _write_at_commit(self, work: Callable[[sqlite3.Connection], None]) -> None:
        """A write whose failure fails the whole transaction: inside one it waits and runs in the COMMIT's
        hop (its error then undoes the transaction); outside one it is a write of its own."""
        pending = self._pending.get()
        if self._depth.get() and pending is not None:
            pending.append(work)
            return
        await self._write(work)

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work` all or nothing: in a savepoint inside the caller's transaction, else in its own."""
        if self._depth.get():
            return await self._in_thread(lambda c: _in_savepoint(c, work))
        async with self._lock:
            return await self._in_thread(lambda c: _in_transaction(c, work))

    async def _in_thread(self, work: Callable[[sqlite3.Connection], T]) -> T:
        connection = self._connection
        if connection is None:
            raise StoreError("The store is not open; call open() first.")
        pending = self._pending.get()
        if pending:
            waiting, pending[:] = list(pending), []
            work = _after(waiting, work)
        return await anyio.to_thread.run_sync(self._guarded, connection, work)

    def _guarded(self, connection: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
        with self._thread_lock:
            try:
                return work(connection)
            except (sqlite3.Error, sqlite3.Warning) as error:
                raise to_store_error(error) from error


# -- in the worker thread -------------------------------------------------------------------


@dataclass
class _Block:
    """A transaction or savepoint: the statements that open, commit and undo it.

    `is_open` is set in the worker thread, which finishes even when the awaiting task is
    cancelled, so `undo` knows whether there is anything to undo.
    """

    begin: str
    commit: str
    rollback: tuple[str, ...]
    is_open: bool = False

    def start(self, connection: sqlite3.Connection) -> None:
        connection.execute(self.begin)
        self.is_open = True

    def finish(self, connection: sqlite3.Connection) -> None:
        connection.execute(self.commit)
        self.is_open = False

    def undo(self, connection: sqlite3.Connection) -> None:
        if self.is_open:
            self.is_open = False
            _run_if_in_transaction(connection, self.rollback)


def _after(waiting: list[Callable[[sqlite3.Connection], None]], work: Callable[[sqlite3.Connection], T]) -> Callable[[sqlite3.Connection], T]:
    """`work` preceded by the statements that waited for it, in one worker-thread hop."""

    def run(connection: sqlite3.Connection) -> T:
        for statement in waiting:
            statement(connection)
        return work(connection)

    return run


def _drop_from(pending: list[Callable[[sqlite3.Connection], None]], start: Callable[[sqlite3.Connection], None]) -> None:
    """Forget a block that never ran: its opening statement and whatever was queued after it."""
    if start in pending:
        del pending[pending.index(start):]


def _connect(path: Path) -> sqlite3.Connection:
    if sqlite3.sqlite_version_info < MIN_SQLITE_VERSION:
        raise StoreError(f"SQLite {sqlite3.sqlite_version} is too old: alfred-mcp needs 3.35 or newer.")
    connection: sqlite3.Connection | None = None
    try:
        connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        for pragma in _PRAGMAS:
            connection.execute(pragma)
        _in_transaction(connection, _create_schema)
        return connection
    except BaseException as error:
        if connection is not None:
            connection.close()
        if isinstance(error, sqlite3.Error):
            raise StoreError(f"Cannot open the database at {path}: {to_store_error(error).message}") from error
        raise


def _create_schema(connection: sqlite3.Connection) -> None:
    for statement in schema_sql():
        connection.execute(statement)
    for table in tables_in_fk_order():
        present = {row[1] for row in connection.execute(f"PRAGMA table_info({q(table.name)})")}
        for statement in missing_columns_sql(table, present):
            connection.execute(statement)
    connection.execute(
        'INSERT INTO "alfred_meta" ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO NOTHING',
        ("schema_version", str(SCHEMA_VERSION)),
    )
    if connection.execute('SELECT 1 FROM "alfred_meta" WHERE "key" = ?', (USER_ORIGINS_KEY,)).fetchone() is None:
        connection.execute(LEGACY_USERS_SQL)
        connection.execute('INSERT INTO "alfred_meta" ("key", "value") VALUES (?, ?)', (USER_ORIGINS_KEY, "1"))
    _check_schema_version(connection)


def _check_schema_version(connection: sqlite3.Connection) -> None:
    row = connection.execute('SELECT "value" FROM "alfred_meta" WHERE "key" = ?', ("schema_version",)).fetchone()
    found = row[0] if row else None
    if found != str(SCHEMA_VERSION):
        raise StoreError(
            f"The database has schema version {found}; this alfred-mcp uses version {SCHEMA_VERSION}.",
            value=found, valid=[str(SCHEMA_VERSION)],
        )


def _in_transaction(connection: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    connection.execute("BEGIN IMMEDIATE")
    try:
        result = work(connection)
        connection.execute("COMMIT")
    except BaseException:
        _run_if_in_transaction(connection, ("ROLLBACK",))
        raise
    return result


def _in_savepoint(connection: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    connection.execute("SAVEPOINT alfred_write")
    try:
        result = work(connection)
    except BaseException:
        _run_if_in_transaction(connection, ("ROLLBACK TO alfred_write", "RELEASE alfred_write"))
        raise
    connection.execute("RELEASE alfred_write")
    return result


def _run_if_in_transaction(connection: sqlite3.Connection, statements: tuple[str, ...]) -> None:
    """Undo statements; skipped when SQLite already ended the transaction itself."""
    if connection.in_transaction:
        for statement in statements:
            connection.execute(statement)
