"""PostgresStore: the Store protocol on PostgreSQL (psycopg 3, async connection pool).

Semantics are SQLiteStore's (see `store/base.py`); what differs is how they are reached:

- Connections are in autocommit mode; the store issues BEGIN/COMMIT itself. A write outside
  a transaction is its own BEGIN ... COMMIT; inside `transaction()` it runs in a savepoint, so
  a failed multi-row insert leaves nothing behind either way. `transaction()` holds one pooled
  connection in a context variable (its child tasks share it, one statement group at a time);
  a nested block is a savepoint.
- Row-level security applies to the store too: a user-scoped call runs as role
  `authenticated` with `request.jwt.claim.sub` set to the user, on top of the explicit
  `user_id` filter. Catalog, user and session calls run as the login role. Each pooled
  connection remembers whom it acts for, so the switch costs a round trip only on change.
- Concurrency across processes: session numbers are taken under a row lock on the user,
  session saves under the session's row lock; counters never move backwards.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, TypeVar

import anyio
import psycopg
from psycopg import AsyncConnection
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import TransactionStatus
from psycopg.types.json import Json
from psycopg_pool import AsyncConnectionPool, PoolClosed, PoolTimeout

from alfred_mcp.errors import ConstraintViolationError, StoreError
from alfred_mcp.kitchen.query import Query, Where
from alfred_mcp.kitchen.schema import TABLES, Table
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.base import (
    FIRST_TURN,
    Row,
    SessionRecord,
    SessionVersion,
    bump_version_sql,
    session_save_refused,
)
from alfred_mcp.store.ddl import tables_in_fk_order
from alfred_mcp.store.filters import compile_limit, compile_order, compile_where, default_order
from alfred_mcp.store.filters import quote_identifier as q
from alfred_mcp.store.pg_codec import (
    NIL_UUID,
    canonical_uuid,
    insert_columns,
    insert_values,
    postgres_where,
    register_loaders,
    selected_columns,
    update_assignments,
)
from alfred_mcp.store.pg_errors import to_store_error
from alfred_mcp.store.pg_migrate import apply_migrations
from alfred_mcp.store.pg_schema import USER_ROLE

T = TypeVar("T")
Work = Callable[["_Connection"], Awaitable[T]]

_SETUP_SQL = "SELECT set_config('TimeZone', 'UTC', false), set_config('DateStyle', 'ISO, YMD', false)"
_ACT_SQL = "SELECT set_config('role', %s, false), set_config('request.jwt.claim.sub', %s, false)"
_ENTRY_COLUMNS = (
    "ref", "entity_type", "row_id", "label", "action", "turn_created", "turn_last_ref", "deleted_turn", "saved_as",
)
_UPSERT_REF = (
    'INSERT INTO "alfred_session_refs" ("session_id", ' + ", ".join(q(c) for c in _ENTRY_COLUMNS) + ', "seq") '
    "VALUES (" + ", ".join(["%s"] * (len(_ENTRY_COLUMNS) + 2)) + ') ON CONFLICT ("session_id", "ref") DO UPDATE SET '
    + ", ".join(f"{q(c)} = excluded.{q(c)}" for c in _ENTRY_COLUMNS[1:])
)
_UPSERT_COUNTER = (
    'INSERT INTO "alfred_session_counters" AS c ("session_id", "key", "last_number") VALUES (%s, %s, %s) '
    'ON CONFLICT ("session_id", "key") DO UPDATE SET "last_number" = greatest(c."last_number", excluded."last_number")'
)
_UPSERT_DOC = (
    'INSERT INTO "alfred_session_docs" ("session_id", "key", "value") VALUES (%s, %s, %s) '
    'ON CONFLICT ("session_id", "key") DO UPDATE SET "value" = excluded."value"'
)
_SESSION_SELECT = 'SELECT "id", "user_id", "number", "turn" FROM "alfred_sessions"'


class _Unknown:
    """Whom a connection acts for after a rollback undid the last switch: nobody knows."""


UNKNOWN = _Unknown()


class _Connection(AsyncConnection[Any]):
    """A pooled connection that remembers whose rows it currently acts for (None = login role)."""

    acting_for: str | None | _Unknown = UNKNOWN


@dataclass
class _Transaction:
    """The connection of an open `transaction()` block, shared by the block's child tasks."""

    connection: _Connection
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    savepoints: int = 0

    def next_savepoint(self) -> str:
        self.savepoints += 1
        return f"alfred_tx_{self.savepoints}"


class PostgresStore:
    """The Store protocol on a PostgreSQL database (see `store/base.py` for the contract)."""

    dialect = "postgres"

    def __init__(self, dsn: str, *, min_size: int = 1, max_size: int = 10, timeout: float = 10.0) -> None:
        self.dsn = dsn
        self._sizes = (min_size, max_size)
        self._timeout = timeout
        self._pool: AsyncConnectionPool[_Connection] | None = None
        self._lifecycle = anyio.Lock()
        self._tx: ContextVar[_Transaction | None] = ContextVar(f"postgres_store_tx_{id(self)}", default=None)

    # -- lifecycle --------------------------------------------------------------------------

    async def open(self) -> None:
        async with self._lifecycle:
            if self._pool is not None:
                return
            await self._migrate()
            pool: AsyncConnectionPool[_Connection] = AsyncConnectionPool(
                self.dsn, connection_class=_Connection, kwargs={"autocommit": True}, configure=_configure,
                min_size=self._sizes[0], max_size=self._sizes[1], timeout=self._timeout, open=False, name="alfred-mcp",
            )
            try:
                await pool.open(wait=True, timeout=self._timeout)
            except PoolTimeout as error:
                await pool.close()
                raise StoreError(f"Cannot connect to PostgreSQL at {self.location}.") from error
            self._pool = pool

    async def close(self) -> None:
        async with self._lifecycle:
            pool, self._pool = self._pool, None
            if pool is not None:
                await pool.close()

    @property
    def location(self) -> str:
        """host:port/database of the DSN, without user or password (for messages)."""
        try:
            parts = conninfo_to_dict(self.dsn)
        except psycopg.ProgrammingError:
            return "the configured URL"
        return f"{parts.get('host') or 'localhost'}:{parts.get('port') or 5432}/{parts.get('dbname') or ''}"

    async def _migrate(self) -> None:
        try:
            connection = await AsyncConnection.connect(self.dsn, autocommit=True, connect_timeout=int(self._timeout))
        except psycopg.Error as error:
            raise StoreError(
                f"Cannot connect to PostgreSQL at {self.location}: {_first_line(error)}", reason=error.sqlstate or type(error).__name__
            ) from error
        try:
            await apply_migrations(connection)
        except psycopg.Error as error:
            # Operators read this at startup: the server's one-line reason (e.g. "permission denied
            # to create role") says what to fix; it names objects, never row values.
            reason = error.diag.message_primary or to_store_error(error).message
            raise StoreError(f"Cannot migrate the database at {self.location}: {reason}", reason=error.sqlstate) from error
        finally:
            await connection.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        outer = self._tx.get()
        if outer is not None:
            async with self._savepoint(outer):
                yield
            return
        async with self._connection() as connection:
            block = _Transaction(connection)
            await _execute_mapped(connection, "BEGIN")
            token = self._tx.set(block)
            try:
                yield
            except BaseException:
                with anyio.CancelScope(shield=True):
                    await _undo(connection, ("ROLLBACK",))
                raise
            else:
                await _finish(connection, "COMMIT", ("ROLLBACK",))
            finally:
                self._tx.reset(token)

    @asynccontextmanager
    async def _savepoint(self, block: _Transaction) -> AsyncIterator[None]:
        name = block.next_savepoint()
        async with block.lock:
            await _execute_mapped(block.connection, f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            with anyio.CancelScope(shield=True):
                async with block.lock:
                    await _undo(block.connection, (f"ROLLBACK TO SAVEPOINT {name}", f"RELEASE SAVEPOINT {name}"))
            raise
        async with block.lock:
            await _finish(block.connection, f"RELEASE SAVEPOINT {name}", (f"ROLLBACK TO SAVEPOINT {name}",))

    # -- kitchen rows -----------------------------------------------------------------------

    async def select(self, table: Table, query: Query, *, user_id: str) -> list[Row]:
        names = selected_columns(table, query.columns)
        where_sql, params = _where_sql(table, query.where, user_id)
        order_sql = compile_order(table, query.order_by or default_order(table), "postgres")
        limit_sql, limit_params = compile_limit(query.limit, "postgres")
        sql = _join(f"SELECT {_column_list(names)} FROM {q(table.name)}", where_sql, order_sql, limit_sql)

        async def work(connection: _Connection) -> list[tuple[Any, ...]]:
            return await (await connection.execute(sql, [*params, *limit_params])).fetchall()

        return _rows_out(names, await self._read(work, _acting_for(table, user_id), table))

    async def count(self, table: Table, where: Where, *, user_id: str) -> int:
        where_sql, params = _where_sql(table, where, user_id)
        sql = _join(f"SELECT count(*) FROM {q(table.name)}", where_sql)

        async def work(connection: _Connection) -> int:
            row = await (await connection.execute(sql, params)).fetchone()
            return int(row[0]) if row else 0

        return await self._read(work, _acting_for(table, user_id), table)

    async def insert(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        if not rows:
            return []
        scope = _scope(user_id)
        now = _now()
        values = [insert_values(table, row, user_id=scope, now=now) for row in rows]
        columns = insert_columns(table)
        names = table.visible_columns
        sql = (
            f"INSERT INTO {q(table.name)} ({_column_list(c.name for c in columns)}) "
            f"VALUES ({', '.join(['%s'] * len(columns))}) RETURNING {_column_list(names)}"
        )
        column_names = [column.name for column in columns]

        async def work(connection: _Connection) -> list[tuple[Any, ...]]:
            await _check_references(connection, table, [dict(zip(column_names, row)) for row in values], scope)
            if len(values) == 1:
                return await (await connection.execute(sql, values[0])).fetchall()
            cursor = connection.cursor()
            await cursor.executemany(sql, values, returning=True)
            stored = []
            while True:
                stored.extend(await cursor.fetchall())
                if not cursor.nextset():
                    return stored

        return _rows_out(names, await self._write(work, _acting_for(table, user_id), table))

    async def update(self, table: Table, where: Where, values: Row, *, user_id: str) -> list[Row]:
        scope = _scope(user_id)
        assignments = update_assignments(table, values)
        if "updated_at" in table.visible_columns:
            assignments.append(("updated_at", _now()))
        where_sql, params = _where_sql(table, where, user_id)
        names = table.visible_columns
        set_sql = ", ".join(f"{q(name)} = %s" for name, _ in assignments)
        sql = _join(f"UPDATE {q(table.name)} SET {set_sql}", where_sql, f"RETURNING {_column_list(names)}")

        async def work(connection: _Connection) -> list[tuple[Any, ...]]:
            await _check_references(connection, table, [dict(assignments)], scope)
            return await (await connection.execute(sql, [value for _, value in assignments] + params)).fetchall()

        return _rows_out(names, await self._write(work, _acting_for(table, user_id), table))

    async def delete(self, table: Table, where: Where, *, user_id: str) -> list[Row]:
        where_sql, params = _where_sql(table, where, user_id)
        names = table.visible_columns
        sql = _join(f"DELETE FROM {q(table.name)}", where_sql, f"RETURNING {_column_list(names)}")

        async def work(connection: _Connection) -> list[tuple[Any, ...]]:
            return await (await connection.execute(sql, params)).fetchall()

        return _rows_out(names, await self._write(work, _acting_for(table, user_id), table))

    async def reset_kitchen(self, user_id: str) -> None:
        owned = [table for table in reversed(tables_in_fk_order()) if table.user_owned]
        scope = _scope(user_id)

        async def work(connection: _Connection) -> None:
            for table in owned:
                await connection.execute(f'DELETE FROM {q(table.name)} WHERE "user_id" = %s', (scope,))

        await self._write(work, scope, None)

    # -- users and sessions -----------------------------------------------------------------

    async def ensure_user(self, handle: str) -> str:
        async def work(connection: _Connection) -> str:
            sql = 'INSERT INTO "users" ("handle") VALUES (%s) ON CONFLICT ("handle") DO NOTHING RETURNING "id"'
            row = await (await connection.execute(sql, (handle,))).fetchone()
            if row is None:
                row = await (await connection.execute('SELECT "id" FROM "users" WHERE "handle" = %s', (handle,))).fetchone()
            if row is None:
                raise StoreError("The user vanished while being created; try again.", field="user")
            return str(row[0])

        return await self._write(work, None, None)

    async def current_session(self, user_id: str) -> SessionRecord | None:
        sql = f'{_SESSION_SELECT} WHERE "user_id" = %s AND "is_current"'
        return await self._read(_fetch_session(sql, (_scope(user_id),)), None, None)

    async def get_session(self, user_id: str, number: int) -> SessionRecord | None:
        sql = f'{_SESSION_SELECT} WHERE "user_id" = %s AND "number" = %s'
        return await self._read(_fetch_session(sql, (_scope(user_id), number)), None, None)

    async def create_session(self, user_id: str) -> SessionRecord:
        scope = _scope(user_id)

        async def work(connection: _Connection) -> SessionRecord:
            locked = await connection.execute('SELECT 1 FROM "users" WHERE "id" = %s FOR NO KEY UPDATE', (scope,))
            if await locked.fetchone() is None:
                raise ConstraintViolationError("The user does not exist.", field="user_id")
            sql = 'SELECT coalesce(max("number"), 0) + 1 FROM "alfred_sessions" WHERE "user_id" = %s'
            (number,) = await (await connection.execute(sql, (scope,))).fetchone() or (1,)
            await connection.execute('UPDATE "alfred_sessions" SET "is_current" = false WHERE "user_id" = %s AND "is_current"', (scope,))
            inserted = await connection.execute(
                'INSERT INTO "alfred_sessions" ("user_id", "number", "turn", "is_current", "created_at") '
                'VALUES (%s, %s, %s, true, %s) RETURNING "id"',
                (scope, number, FIRST_TURN, _now()),
            )
            (session_id,) = await inserted.fetchone() or ("",)
            return SessionRecord(str(session_id), user_id, int(number), FIRST_TURN)

        return await self._write(work, None, None)

    async def load_session_state(self, session_id: str) -> tuple[list[RefEntry], dict[str, int]]:
        key = (canonical_uuid(session_id) or NIL_UUID,)
        refs_sql = f'SELECT {_column_list(_ENTRY_COLUMNS)} FROM "alfred_session_refs" WHERE "session_id" = %s ORDER BY "seq"'
        counters_sql = 'SELECT "key", "last_number" FROM "alfred_session_counters" WHERE "session_id" = %s'

        async def work(connection: _Connection) -> tuple[list[Any], list[Any]]:
            # Refs before counters: a save landing in between can only raise the counters.
            refs = await (await connection.execute(refs_sql, key)).fetchall()
            return refs, await (await connection.execute(counters_sql, key)).fetchall()

        refs, counters = await self._read(work, None, None)
        entries = [RefEntry.from_dict(dict(zip(_ENTRY_COLUMNS, row))) for row in refs]
        return entries, {str(name): int(number) for name, number in counters}

    async def session_version(self, session_id: str) -> SessionVersion | None:
        key = (canonical_uuid(session_id) or NIL_UUID,)
        sql = 'SELECT "version", "is_current", "turn" FROM "alfred_sessions" WHERE "id" = %s'

        async def work(connection: _Connection) -> tuple[Any, ...] | None:
            return await (await connection.execute(sql, key)).fetchone()

        row = await self._read(work, None, None)
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
        key = canonical_uuid(session_id) or NIL_UUID
        ref_rows = [[key, *(getattr(entry, name) for name in _ENTRY_COLUMNS)] for entry in entries]
        counter_rows = [(key, name, number) for name, number in counters.items()]
        bump, params = bump_version_sql("%s", expected_version)

        async def work(connection: _Connection) -> None:
            # The UPDATE locks the session row: saves of one session from any process queue here,
            # and a queued one re-reads the version once the first commits (so it conflicts).
            updated = await connection.execute(bump, (turn, key, *params))
            if updated.rowcount == 0:
                found = await connection.execute('SELECT "number" FROM "alfred_sessions" WHERE "id" = %s', (key,))
                number = await found.fetchone()
                raise session_save_refused(None if number is None else int(number[0]))
            if not ref_rows:
                return  # counters only move when refs are added, and those are among the changed entries
            sql = 'SELECT coalesce(max("seq"), 0) FROM "alfred_session_refs" WHERE "session_id" = %s'
            (last,) = await (await connection.execute(sql, (key,))).fetchone() or (0,)
            cursor = connection.cursor()
            await cursor.executemany(_UPSERT_REF, [[*row, last + i] for i, row in enumerate(ref_rows, start=1)])
            if counter_rows:
                await cursor.executemany(_UPSERT_COUNTER, counter_rows)

        await self._write(work, None, None)
        if documents:
            await self.save_documents(session_id, documents)

    async def load_documents(self, session_id: str) -> dict[str, Any]:
        key = (canonical_uuid(session_id) or NIL_UUID,)
        sql = 'SELECT "key", "value" FROM "alfred_session_docs" WHERE "session_id" = %s ORDER BY "key"'

        async def work(connection: _Connection) -> list[tuple[Any, ...]]:
            return await (await connection.execute(sql, key)).fetchall()

        return {str(name): value for name, value in await self._read(work, None, None)}

    async def save_documents(self, session_id: str, changed: Mapping[str, Any]) -> None:
        key = canonical_uuid(session_id) or NIL_UUID
        upserts = [(key, name, Json(value)) for name, value in changed.items() if value is not None]
        deletes = [(key, name) for name, value in changed.items() if value is None]

        async def work(connection: _Connection) -> None:
            cursor = connection.cursor()
            if upserts:
                await cursor.executemany(_UPSERT_DOC, upserts)
            if deletes:
                await cursor.executemany('DELETE FROM "alfred_session_docs" WHERE "session_id" = %s AND "key" = %s', deletes)

        if changed:
            await self._write(work, None, None)

    # -- running work on a connection -------------------------------------------------------

    async def _read(self, work: Work[T], acting_for: str | None, table: Table | None) -> T:
        """`work` on the transaction's connection, or on a pooled one in autocommit."""
        return await self._run(work, acting_for, table, write=False)

    async def _write(self, work: Work[T], acting_for: str | None, table: Table | None) -> T:
        """`work` all or nothing: in a savepoint inside the caller's transaction, else in its own.

        Even a single statement gets BEGIN ... COMMIT: a cancelled call closes its connection,
        and only a transaction the server has not been told to commit is sure to roll back
        (an autocommit UPDATE waiting on a lock would still apply once the lock is freed).
        """
        return await self._run(work, acting_for, table, write=True)

    async def _run(self, work: Work[T], acting_for: str | None, table: Table | None, *, write: bool) -> T:
        block = self._tx.get()
        if block is not None:
            async with block.lock:
                # In PostgreSQL a failed statement aborts the whole transaction: a savepoint keeps
                # the caller's transaction usable after a write it catches the error of.
                return await _attempt(block.connection, work, acting_for, table, _IN_TRANSACTION if write else None)
        async with self._connection() as connection:
            return await _attempt(connection, work, acting_for, table, _OWN_TRANSACTION if write else None)

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[_Connection]:
        pool = self._pool
        if pool is None:
            raise StoreError("The store is not open; call open() first.")
        try:
            connection = await pool.getconn()
        except PoolClosed as error:
            raise StoreError("The store is not open; call open() first.") from error
        except (PoolTimeout, psycopg.Error) as error:
            raise to_store_error(error) from error
        try:
            yield connection
        finally:
            with anyio.CancelScope(shield=True):
                await pool.putconn(connection)


# -- connections and transactions -----------------------------------------------------------


async def _configure(connection: _Connection) -> None:
    """Every new pooled connection: UTC, ISO dates, SQLite's value types, acting as the login role."""
    register_loaders(connection.adapters)
    await connection.execute(_SETUP_SQL)
    connection.acting_for = None


Steps = tuple[str, str, tuple[str, ...]]
"""How to begin, commit and undo a unit of work."""
_OWN_TRANSACTION: Steps = ("BEGIN", "COMMIT", ("ROLLBACK",))
_IN_TRANSACTION: Steps = (
    "SAVEPOINT alfred_write", "RELEASE SAVEPOINT alfred_write",
    ("ROLLBACK TO SAVEPOINT alfred_write", "RELEASE SAVEPOINT alfred_write"),
)


async def _attempt(
    connection: _Connection, work: Work[T], acting_for: str | None, table: Table | None, steps: Steps | None
) -> T:
    """Act for the right user, run `work` between `steps` (begin, commit, undo), map driver errors."""
    try:
        if steps:
            await connection.execute(steps[0])
        await _act_for(connection, acting_for)
        result = await work(connection)
        if steps:
            await connection.execute(steps[1])
        return result
    except BaseException as error:
        with anyio.CancelScope(shield=True):
            await _undo(connection, steps[2] if steps else ())
        if isinstance(error, (psycopg.Error, PoolTimeout)):
            raise to_store_error(error, table) from error
        raise


async def _act_for(connection: _Connection, user_id: str | None) -> None:
    """Switch the session to role `authenticated` for `user_id`, or back to the login role (None)."""
    if connection.acting_for == user_id:
        return
    connection.acting_for = UNKNOWN
    await connection.execute(_ACT_SQL, (USER_ROLE, user_id) if user_id else ("none", ""))
    connection.acting_for = user_id


async def _undo(connection: _Connection, statements: tuple[str, ...]) -> None:
    """Roll back what is open; a connection that cannot even do that is closed (the pool replaces it)."""
    connection.acting_for = UNKNOWN
    status = connection.info.transaction_status
    try:
        if status in (TransactionStatus.INTRANS, TransactionStatus.INERROR):
            for statement in statements:
                await connection.execute(statement)
        elif status != TransactionStatus.IDLE:
            await connection.close()  # mid-statement (cancelled): closing is the only safe rollback
    except psycopg.Error:
        await connection.close()


async def _finish(connection: _Connection, statement: str, undo: tuple[str, ...]) -> None:
    """COMMIT or RELEASE, with a failure (e.g. a deferred constraint) mapped and rolled back."""
    try:
        await connection.execute(statement)
    except psycopg.Error as error:
        with anyio.CancelScope(shield=True):
            await _undo(connection, undo)
        raise to_store_error(error) from error


async def _execute_mapped(connection: _Connection, statement: str) -> None:
    try:
        await connection.execute(statement)
    except psycopg.Error as error:
        raise to_store_error(error) from error


# -- SQL pieces -----------------------------------------------------------------------------


def _scope(user_id: str) -> str:
    """The user id as the server's uuid text; a malformed one becomes an id no user has."""
    return canonical_uuid(user_id) or NIL_UUID


def _acting_for(table: Table, user_id: str) -> str | None:
    """Whom a call on `table` runs as: the user for user-owned tables, the login role for the catalog."""
    return _scope(user_id) if table.user_owned else None


def _where_sql(table: Table, where: Where, user_id: str) -> tuple[str, list[Any]]:
    fragment, params = compile_where(table, postgres_where(table, where), "postgres")
    conditions, scope = (['"user_id" = %s'], [_scope(user_id)]) if table.user_owned else ([], [])
    if fragment:
        conditions.append(f"({fragment})")
    return ("WHERE " + " AND ".join(conditions) if conditions else ""), [*scope, *params]


async def _check_references(connection: _Connection, table: Table, rows: Sequence[Row], user_id: str) -> None:
    """Every FK value must name an existing row of the same user (the catalog is shared).

    Raises:
        ConstraintViolationError: naming the column, never the value.
    """
    for column in table.fk_columns:
        if column.fk is None:
            continue
        wanted = {row[column.name] for row in rows if row.get(column.name) is not None}
        if not wanted:
            continue
        target = TABLES[column.fk.table]
        scope, params = (' AND "user_id" = %s', [user_id]) if target.user_owned else ("", [])
        sql = f'SELECT "id" FROM {q(target.name)} WHERE "id" = ANY(%s::uuid[]){scope}'
        found = {row[0] for row in await (await connection.execute(sql, [sorted(wanted), *params])).fetchall()}
        if found != wanted:
            raise ConstraintViolationError(
                f"{column.name} does not point at an existing {target.noun}.", field=column.name, table=table.name
            )


def _fetch_session(sql: str, params: tuple[Any, ...]) -> Work[SessionRecord | None]:
    async def work(connection: _Connection) -> SessionRecord | None:
        row = await (await connection.execute(sql, params)).fetchone()
        return None if row is None else SessionRecord(str(row[0]), str(row[1]), int(row[2]), int(row[3]))

    return work


def _first_line(error: psycopg.Error) -> str:
    """libpq's reason for a failed connection (it never contains the password)."""
    lines = str(error).strip().splitlines() or ["unknown error"]
    return lines[0].removeprefix("connection failed: ").strip()


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _join(*parts: str) -> str:
    return " ".join(part for part in parts if part)


def _column_list(names: Any) -> str:
    return ", ".join(q(name) for name in names)


def _rows_out(names: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[Row]:
    return [dict(zip(names, values)) for values in rows]
