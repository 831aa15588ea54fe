"""SQLiteStore: the embedded Store, stdlib sqlite3 on one connection behind anyio worker threads.

Every call takes one lock, except calls made inside the caller's own `transaction()` block,
which already holds it (a context variable marks the block, so its child tasks are covered
too). A write outside a transaction is its own BEGIN IMMEDIATE ... COMMIT; inside one it runs
in a savepoint, so a failed multi-row insert leaves nothing behind either way.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import anyio

from alfred_mcp.errors import ConstraintViolationError, InvalidPayloadError, StoreError
from alfred_mcp.kitchen.query import Query, Where, check_columns
from alfred_mcp.kitchen.schema import TABLES, Column, Table
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.base import FIRST_TURN, Row, SessionRecord, SessionVersion, bump_version_sql, session_save_refused
from alfred_mcp.store.ddl import SCHEMA_VERSION, check_messages, schema_sql, tables_in_fk_order
from alfred_mcp.store.filters import compile_limit, compile_order, compile_where, default_order
from alfred_mcp.store.filters import quote_identifier as q

T = TypeVar("T")

MIN_SQLITE_VERSION = (3, 35, 0)
"""RETURNING arrived in SQLite 3.35."""
STORE_OWNED = frozenset({"id", "user_id", "created_at", "updated_at"})
_IN_CHUNK = 500
_PRAGMAS = (
    "PRAGMA foreign_keys = ON",
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA busy_timeout = 5000",
)
_ENTRY_COLUMNS = (
    "ref", "entity_type", "row_id", "label", "action", "turn_created", "turn_last_ref", "deleted_turn", "saved_as",
)
_UPSERT_REF = (
    'INSERT INTO "alfred_session_refs" ("session_id", '
    + ", ".join(q(c) for c in _ENTRY_COLUMNS)
    + ', "seq") VALUES (' + ", ".join(["?"] * (len(_ENTRY_COLUMNS) + 2)) + ') '
    + 'ON CONFLICT ("session_id", "ref") DO UPDATE SET '
    + ", ".join(f"{q(c)} = excluded.{q(c)}" for c in _ENTRY_COLUMNS[1:])
)
_UPSERT_COUNTER = (
    'INSERT INTO "alfred_session_counters" ("session_id", "key", "last_number") VALUES (?, ?, ?) '
    'ON CONFLICT ("session_id", "key") DO UPDATE SET "last_number" = excluded."last_number"'
)
_SESSION_SELECT = 'SELECT "id", "user_id", "number", "turn" FROM "alfred_sessions"'


class SQLiteStore:
    """The Store protocol on a SQLite file (see `store/base.py` for the contract)."""

    dialect = "sqlite"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._connection: sqlite3.Connection | None = None
        self._lock = anyio.Lock()
        self._thread_lock = threading.Lock()
        self._depth: ContextVar[int] = ContextVar(f"sqlite_store_depth_{id(self)}", default=0)

    # -- lifecycle --------------------------------------------------------------------------

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
        async with self._lock, self._block(0, _Block("BEGIN IMMEDIATE", "COMMIT", ("ROLLBACK",))):
            yield

    @asynccontextmanager
    async def _block(self, depth: int, block: _Block) -> AsyncIterator[None]:
        token = self._depth.set(depth + 1)
        try:
            await self._in_thread(block.start)
            yield
            await self._in_thread(block.finish)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self._in_thread(block.undo)
            raise
        finally:
            self._depth.reset(token)

    # -- kitchen rows -----------------------------------------------------------------------

    async def select(self, table: Table, query: Query, *, user_id: str) -> list[Row]:
        names = _selected_columns(table, query.columns)
        where_sql, params = _where_sql(table, query.where, user_id)
        order_sql = compile_order(table, query.order_by or default_order(table))
        limit_sql, limit_params = compile_limit(query.limit)
        sql = _join(f"SELECT {_column_list(names)} FROM {q(table.name)}", where_sql, order_sql, limit_sql)
        rows = await self._read(lambda c: c.execute(sql, [*params, *limit_params]).fetchall())
        return _rows_out(table, names, rows)

    async def count(self, table: Table, where: Where, *, user_id: str) -> int:
        where_sql, params = _where_sql(table, where, user_id)
        sql = _join(f"SELECT count(*) FROM {q(table.name)}", where_sql)
        row = await self._read(lambda c: c.execute(sql, params).fetchone())
        return int(row[0])

    async def insert(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        if not rows:
            return []
        now = _now()
        values = [_insert_values(table, row, user_id=user_id, now=now) for row in rows]
        names = table.visible_columns
        sql = f"INSERT INTO {q(table.name)} ({_column_list(c.name for c in table.columns)}) VALUES ({_marks(len(table.columns))})"

        def work(connection: sqlite3.Connection) -> None:
            _check_references(connection, table, rows, user_id)
            connection.executemany(sql, values)

        await self._write(lambda c: _with_table_errors(c, table, user_id, work))
        # Every column was given explicitly (ids, stamps and defaults filled above), so the
        # stored rows are exactly these values: no RETURNING round trip per row.
        visible = [i for i, column in enumerate(table.columns) if column.name in names]
        return _rows_out(table, names, [tuple(row[i] for i in visible) for row in values])

    async def update(self, table: Table, where: Where, values: Row, *, user_id: str) -> list[Row]:
        assignments = _update_assignments(table, values)
        if "updated_at" in table.visible_columns:
            assignments.append(("updated_at", _now()))
        where_sql, params = _where_sql(table, where, user_id)
        names = table.visible_columns
        set_sql = ", ".join(f"{q(name)} = ?" for name, _ in assignments)
        sql = _join(f"UPDATE {q(table.name)} SET {set_sql}", where_sql, f"RETURNING {_column_list(names)}")

        def work(connection: sqlite3.Connection) -> list[tuple[Any, ...]]:
            _check_references(connection, table, [values], user_id)
            return connection.execute(sql, [value for _, value in assignments] + params).fetchall()

        updated = await self._write(lambda c: _with_table_errors(c, table, user_id, work))
        return _rows_out(table, names, updated)

    async def delete(self, table: Table, where: Where, *, user_id: str) -> list[Row]:
        where_sql, params = _where_sql(table, where, user_id)
        names = table.visible_columns
        sql = _join(f"DELETE FROM {q(table.name)}", where_sql, f"RETURNING {_column_list(names)}")

        def work(connection: sqlite3.Connection) -> list[tuple[Any, ...]]:
            return connection.execute(sql, params).fetchall()

        deleted = await self._write(lambda c: _with_table_errors(c, table, user_id, work))
        return _rows_out(table, names, deleted)

    async def reset_kitchen(self, user_id: str) -> None:
        owned = [table for table in reversed(tables_in_fk_order()) if table.user_owned]

        def work(connection: sqlite3.Connection) -> None:
            for table in owned:
                connection.execute(f'DELETE FROM {q(table.name)} WHERE "user_id" = ?', (user_id,))

        await self._write(work)

    # -- users and sessions -----------------------------------------------------------------

    async def ensure_user(self, handle: str) -> str:
        def work(connection: sqlite3.Connection) -> str:
            connection.execute(
                'INSERT INTO "users" ("id", "handle", "created_at") VALUES (?, ?, ?) ON CONFLICT ("handle") DO NOTHING',
                (str(uuid.uuid4()), handle, _now()),
            )
            return str(connection.execute('SELECT "id" FROM "users" WHERE "handle" = ?', (handle,)).fetchone()[0])

        return await self._write(work)

    async def current_session(self, user_id: str) -> SessionRecord | None:
        sql = f'{_SESSION_SELECT} WHERE "user_id" = ? AND "is_current" = 1'
        return _session(await self._read(lambda c: c.execute(sql, (user_id,)).fetchone()))

    async def get_session(self, user_id: str, number: int) -> SessionRecord | None:
        sql = f'{_SESSION_SELECT} WHERE "user_id" = ? AND "number" = ?'
        return _session(await self._read(lambda c: c.execute(sql, (user_id, number)).fetchone()))

    async def create_session(self, user_id: str) -> SessionRecord:
        def work(connection: sqlite3.Connection) -> SessionRecord:
            sql = 'SELECT coalesce(max("number"), 0) FROM "alfred_sessions" WHERE "user_id" = ?'
            number = int(connection.execute(sql, (user_id,)).fetchone()[0]) + 1
            connection.execute('UPDATE "alfred_sessions" SET "is_current" = 0 WHERE "user_id" = ? AND "is_current" = 1', (user_id,))
            record = SessionRecord(str(uuid.uuid4()), user_id, number, FIRST_TURN)
            connection.execute(
                'INSERT INTO "alfred_sessions" ("id", "user_id", "number", "turn", "is_current", "created_at") '
                "VALUES (?, ?, ?, ?, 1, ?)",
                (record.session_id, user_id, number, record.turn, _now()),
            )
            return record

        return await self._write(work)

    async def load_session_state(self, session_id: str) -> tuple[list[RefEntry], dict[str, int]]:
        refs_sql = f'SELECT {_column_list(_ENTRY_COLUMNS)} FROM "alfred_session_refs" WHERE "session_id" = ? ORDER BY "seq"'
        counters_sql = 'SELECT "key", "last_number" FROM "alfred_session_counters" WHERE "session_id" = ?'

        def work(connection: sqlite3.Connection) -> tuple[list[Any], list[Any]]:
            return connection.execute(refs_sql, (session_id,)).fetchall(), connection.execute(counters_sql, (session_id,)).fetchall()

        refs, counters = await self._read(work)
        entries = [RefEntry.from_dict(dict(zip(_ENTRY_COLUMNS, row))) for row in refs]
        return entries, {str(key): int(number) for key, number in counters}

    async def session_version(self, session_id: str) -> SessionVersion | None:
        sql = 'SELECT "version", "is_current", "turn" FROM "alfred_sessions" WHERE "id" = ?'
        row = await self._read_now(lambda c: c.execute(sql, (session_id,)).fetchone())
        return None if row is None else SessionVersion(int(row[0]), bool(row[1]), int(row[2]))

    async def save_session_state(
        self,
        session_id: str,
        *,
        turn: int,
        entries: Sequence[RefEntry],
        counters: Mapping[str, int],
        expected_version: int | None = None,
        documents: Mapping[str, Any] | None = None,
    ) -> None:
        ref_rows = [[session_id, *(getattr(entry, name) for name in _ENTRY_COLUMNS)] for entry in entries]
        counter_rows = [(session_id, key, number) for key, number in counters.items()]
        bump, params = bump_version_sql("?", expected_version)
        upserts, deletes = _document_rows(session_id, documents or {})

        def work(connection: sqlite3.Connection) -> None:
            if connection.execute(bump, (turn, session_id, *params)).rowcount == 0:
                number = connection.execute('SELECT "number" FROM "alfred_sessions" WHERE "id" = ?', (session_id,)).fetchone()
                raise session_save_refused(None if number is None else int(number[0]))
            _write_documents(connection, upserts, deletes)
            if not ref_rows:
                return  # counters only move when refs are added, and those are among the changed entries
            sql = 'SELECT coalesce(max("seq"), 0) FROM "alfred_session_refs" WHERE "session_id" = ?'
            last = int(connection.execute(sql, (session_id,)).fetchone()[0])
            connection.executemany(_UPSERT_REF, [[*row, last + i] for i, row in enumerate(ref_rows, start=1)])
            connection.executemany(_UPSERT_COUNTER, counter_rows)

        await self._write(work)

    async def load_documents(self, session_id: str) -> dict[str, Any]:
        sql = 'SELECT "key", "value" FROM "alfred_session_docs" WHERE "session_id" = ? ORDER BY "key"'
        rows = await self._read(lambda c: c.execute(sql, (session_id,)).fetchall())
        return {str(key): json.loads(value) for key, value in rows}

    async def save_documents(self, session_id: str, changed: Mapping[str, Any]) -> None:
        upserts, deletes = _document_rows(session_id, changed)
        if changed:
            await self._write(lambda connection: _write_documents(connection, upserts, deletes))

    # -- running work on the connection -----------------------------------------------------

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
        if connection is not None and (self._depth.get() or not self._lock.locked()):
            if self._thread_lock.acquire(blocking=False):
                try:
                    return work(connection)
                except (sqlite3.Error, sqlite3.Warning) as error:
                    raise to_store_error(error) from error
                finally:
                    self._thread_lock.release()
        return await self._read(work)

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
        return await anyio.to_thread.run_sync(self._guarded, connection, work)

    def _guarded(self, connection: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
        with self._thread_lock:
            try:
                return work(connection)
            except (sqlite3.Error, sqlite3.Warning) as error:
                raise to_store_error(error) from error


def _document_rows(session_id: str, changed: Mapping[str, Any]) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    upserts = [(session_id, key, json.dumps(value, ensure_ascii=False)) for key, value in changed.items() if value is not None]
    deletes = [(session_id, key) for key, value in changed.items() if value is None]
    return upserts, deletes


def _write_documents(connection: sqlite3.Connection, upserts: list[tuple[str, str, str]], deletes: list[tuple[str, str]]) -> None:
    connection.executemany(
        'INSERT INTO "alfred_session_docs" ("session_id", "key", "value") VALUES (?, ?, ?) '
        'ON CONFLICT ("session_id", "key") DO UPDATE SET "value" = excluded."value"',
        upserts,
    )
    connection.executemany('DELETE FROM "alfred_session_docs" WHERE "session_id" = ? AND "key" = ?', deletes)


# -- connection and transactions (run in a worker thread) -----------------------------------


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
    connection.execute(
        'INSERT INTO "alfred_meta" ("key", "value") VALUES (?, ?) ON CONFLICT ("key") DO NOTHING',
        ("schema_version", str(SCHEMA_VERSION)),
    )
    (found,) = connection.execute('SELECT "value" FROM "alfred_meta" WHERE "key" = ?', ("schema_version",)).fetchone()
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


# -- errors ---------------------------------------------------------------------------------


def to_store_error(error: sqlite3.Error | sqlite3.Warning, table: Table | None = None) -> StoreError:
    """The StoreError for a driver error: no SQL, no values, the column or rule named."""
    if isinstance(error, sqlite3.IntegrityError):
        return _constraint_error(str(error), table)
    reason = getattr(error, "sqlite_errorname", type(error).__name__)
    if "database is locked" in str(error):
        return StoreError("The database is busy (another process holds a lock); try again.", reason=reason)
    return StoreError(f"The database failed ({reason}).", reason=reason)


def _constraint_error(text: str, table: Table | None) -> ConstraintViolationError:
    kind, _, detail = text.partition(" constraint failed")
    detail = detail.removeprefix(": ")
    table_name = table.name if table else None
    if kind == "NOT NULL":
        column = detail.rsplit(".", 1)[-1]
        return ConstraintViolationError(f"{column} is required.", field=column, table=table_name)
    if kind == "CHECK" and table is not None and detail in check_messages(table.name):
        column, message = check_messages(table.name)[detail]
        enum = table.column(column).enum if detail.endswith("_enum") else None
        return ConstraintViolationError(f"{message}.", field=column, table=table_name, valid=list(enum) if enum else None)
    if kind == "UNIQUE":
        return _unique_error([part.rsplit(".", 1)[-1] for part in detail.split(", ")], table)
    if kind == "FOREIGN KEY":
        return ConstraintViolationError("A referenced row does not exist.", table=table_name)
    return ConstraintViolationError("A value breaks a rule of the table.", table=table_name)


def _unique_error(columns: list[str], table: Table | None) -> ConstraintViolationError:
    if table is not None and table.one_per_user and columns == ["user_id"]:
        return ConstraintViolationError(
            f"There is already a {table.noun} row for this user; update it instead.", table=table.name
        )
    shown = " and ".join(columns)
    return ConstraintViolationError(
        f"{shown} must be unique: another row already has the same value.",
        field=columns[0], table=table.name if table else None,
    )


def _with_table_errors(
    connection: sqlite3.Connection, table: Table, user_id: str, work: Callable[[sqlite3.Connection], T]
) -> T:
    """Run `work`, telling a constraint failure in terms of `table` (and an unknown user as such)."""
    try:
        return work(connection)
    except sqlite3.IntegrityError as error:
        if table.user_owned and "FOREIGN KEY" in str(error) and not _user_exists(connection, user_id):
            raise ConstraintViolationError("The user does not exist.", field="user_id", table=table.name) from error
        raise to_store_error(error, table) from error


def _user_exists(connection: sqlite3.Connection, user_id: str) -> bool:
    return connection.execute('SELECT 1 FROM "users" WHERE "id" = ?', (user_id,)).fetchone() is not None


def _check_references(connection: sqlite3.Connection, table: Table, rows: Sequence[Row], user_id: str) -> None:
    """Every FK value must name an existing row of the same user (the catalog is shared).

    Raises:
        ConstraintViolationError: naming the column, never the value.
    """
    for column in table.fk_columns:
        if column.fk is None:
            continue
        wanted = {row[column.name] for row in rows if row.get(column.name) is not None}
        target = TABLES[column.fk.table]
        if wanted and _existing_ids(connection, target, sorted(wanted, key=str), user_id) != wanted:
            raise ConstraintViolationError(
                f"{column.name} does not point at an existing {target.noun}.", field=column.name, table=table.name
            )


def _existing_ids(connection: sqlite3.Connection, table: Table, ids: list[Any], user_id: str) -> set[Any]:
    found: set[Any] = set()
    scope, scope_params = (' AND "user_id" = ?', [user_id]) if table.user_owned else ("", [])
    for start in range(0, len(ids), _IN_CHUNK):
        chunk = ids[start:start + _IN_CHUNK]
        sql = f'SELECT "id" FROM {q(table.name)} WHERE "id" IN ({_marks(len(chunk))}){scope}'
        found.update(row[0] for row in connection.execute(sql, [*chunk, *scope_params]))
    return found


# -- rows in and out ------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _marks(count: int) -> str:
    return ", ".join(["?"] * count)


def _join(*parts: str) -> str:
    return " ".join(part for part in parts if part)


def _column_list(names: Any) -> str:
    return ", ".join(q(name) for name in names)


def _selected_columns(table: Table, columns: tuple[str, ...] | None) -> tuple[str, ...]:
    if columns is None:
        return table.visible_columns
    check_columns(table, columns)
    return tuple(dict.fromkeys(("id", *columns)))


def _where_sql(table: Table, where: Where, user_id: str) -> tuple[str, list[Any]]:
    fragment, params = compile_where(table, where)
    conditions, scope = (['"user_id" = ?'], [user_id]) if table.user_owned else ([], [])
    if fragment:
        conditions.append(f"({fragment})")
    return ("WHERE " + " AND ".join(conditions) if conditions else ""), [*scope, *params]


def _check_payload_keys(table: Table, row: Mapping[str, Any]) -> None:
    for key in row:
        table.column(key)
        if key in STORE_OWNED:
            raise InvalidPayloadError(f"'{key}' is set by the server, not by a caller.", field=key, table=table.name)


def _insert_values(table: Table, row: Row, *, user_id: str, now: str) -> list[Any]:
    _check_payload_keys(table, row)
    return [_to_sqlite(column, _initial_value(column, row, user_id, now)) for column in table.columns]


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


def _update_assignments(table: Table, values: Row) -> list[tuple[str, Any]]:
    _check_payload_keys(table, values)
    if not values:
        raise InvalidPayloadError("Nothing to update: give at least one column value.", field="data", table=table.name)
    return [(name, _to_sqlite(table.column(name), value)) for name, value in values.items()]


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


def _rows_out(table: Table, names: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[Row]:
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


def _decoder(column: Column) -> Callable[[Any], Any] | None:
    if column.type == "bool":
        return bool
    if column.type == "text[]":
        return _decode_array
    return None


def _decode_array(text: str) -> list[str]:
    # Most tag columns are empty; skipping the JSON parser for them halves the cost of a read.
    return [] if text == "[]" else json.loads(text)


def _session(row: Sequence[Any] | None) -> SessionRecord | None:
    if row is None:
        return None
    return SessionRecord(session_id=str(row[0]), user_id=str(row[1]), number=int(row[2]), turn=int(row[3]))
