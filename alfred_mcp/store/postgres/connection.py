"""A PostgreSQL store's connections: the psycopg pool, transactions, and whom each call acts for.

- Connections are in autocommit mode; the store issues BEGIN/COMMIT itself. A write outside
  a transaction is its own BEGIN ... COMMIT; inside `transaction()` it runs in a savepoint, so
  a failed multi-row insert leaves nothing behind either way. `transaction()` holds one pooled
  connection in a context variable (its child tasks share it, one statement group at a time);
  a nested block is a savepoint.
- Row-level security applies to the store too: a user-scoped call runs as role
  `authenticated` with `request.jwt.claim.sub` set to the user, on top of the explicit
  `user_id` filter. Catalog, user and session calls run as the login role. Each pooled
  connection remembers whom it acts for, so the switch costs a round trip only on change.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import psycopg
from psycopg import AsyncConnection
from psycopg.conninfo import conninfo_to_dict
from psycopg.pq import TransactionStatus
from psycopg_pool import AsyncConnectionPool, PoolClosed, PoolTimeout

from alfred_mcp.errors import StoreError
from alfred_mcp.kitchen.schema import Table
from alfred_mcp.store.postgres.codec import register_loaders
from alfred_mcp.store.postgres.errors import to_store_error
from alfred_mcp.store.postgres.migrate import apply_migrations, check_migrations
from alfred_mcp.store.postgres.schema import USER_ROLE

T = TypeVar("T")
Work = Callable[["PooledConnection"], Awaitable[T]]
"""A unit of database work on one connection."""

_SETUP_SQL = "SELECT set_config('TimeZone', 'UTC', false), set_config('DateStyle', 'ISO, YMD', false)"
_ACT_SQL = "SELECT set_config('role', %s, false), set_config('request.jwt.claim.sub', %s, false)"


INSUFFICIENT_PRIVILEGE = "42501"
ROLES_HINT = (". The first start creates the roles anon, authenticated and service_role and grants authenticated to its "
              "login: start it once as a superuser, or have one run CREATE ROLE anon NOLOGIN NOINHERIT; CREATE ROLE "
              "authenticated NOLOGIN NOINHERIT; CREATE ROLE service_role NOLOGIN NOINHERIT BYPASSRLS; GRANT authenticated "
              "TO <this login> (docs/deploy.md, The database).")
"""What to do when migrating is refused for want of privileges (a login that may not create or grant roles)."""

class _Unknown:
    """Whom a connection acts for after a rollback undid the last switch: nobody knows."""


UNKNOWN = _Unknown()


@dataclass(frozen=True)
class OwnerOrLogin:
    """Session tables may be read and written as the login role or as the session's owner (row-level
    security lets the owner see its own sessions): a connection already acting for either needs no switch."""

    user_id: str


Actor = str | OwnerOrLogin | None
"""Whom a call acts for: a user (row-level security), OwnerOrLogin, or the login role (None)."""


class PooledConnection(AsyncConnection[Any]):
    """A pooled connection that remembers whose rows it currently acts for (None = login role)."""

    acting_for: str | None | _Unknown = UNKNOWN


@dataclass
class _Transaction:
    """The connection of an open `transaction()` block, shared by the block's child tasks."""

    connection: PooledConnection
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    savepoints: int = 0

    def next_savepoint(self) -> str:
        self.savepoints += 1
        return f"alfred_tx_{self.savepoints}"


class PostgresConnection:
    """The connection pool a PostgreSQL store's kitchen and session halves share."""

    dialect = "postgres"

    def __init__(self, dsn: str, *, min_size: int = 1, max_size: int = 10, timeout: float = 10.0) -> None:
        self.dsn = dsn
        self._sizes = (min_size, max_size)
        self._timeout = timeout
        self._pool: AsyncConnectionPool[PooledConnection] | None = None
        self._lifecycle = anyio.Lock()
        self._tx: ContextVar[_Transaction | None] = ContextVar(f"postgres_store_tx_{id(self)}", default=None)

    async def open(self) -> None:
        async with self._lifecycle:
            if self._pool is not None:
                return
            await self._migrate()
            pool: AsyncConnectionPool[PooledConnection] = AsyncConnectionPool(
                self.dsn, connection_class=PooledConnection, kwargs={"autocommit": True}, configure=_configure,
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
        """host:port/database the DSN reaches, libpq's PGHOST, PGPORT and PGDATABASE filling in what it leaves out
        (as they do for the connection), without user or password (for messages)."""
        try:
            parts = conninfo_to_dict(self.dsn)
        except psycopg.ProgrammingError:
            return "the configured URL"
        host = parts.get("host") or os.environ.get("PGHOST") or "localhost"
        port = parts.get("port") or os.environ.get("PGPORT") or 5432
        return f"{host}:{port}/{parts.get('dbname') or os.environ.get('PGDATABASE') or ''}"

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
            hint = ROLES_HINT if error.sqlstate == INSUFFICIENT_PRIVILEGE else ""
            raise StoreError(f"Cannot migrate the database at {self.location}: {reason}{hint}", reason=error.sqlstate) from error
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

    def in_transaction(self) -> bool:
        return self._tx.get() is not None

    async def check_ready(self) -> None:
        await self._read(check_migrations, None, None)

    def pool_stats(self) -> dict[str, int]:
        """The connection pool now: its size, idle connections, requests waiting for one, and its maximum."""
        pool = self._pool
        if pool is None:
            return {}
        stats = pool.get_stats()
        return {"size": stats.get("pool_size", 0), "idle": stats.get("pool_available", 0),
                "waiting": stats.get("requests_waiting", 0), "max": pool.max_size}

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

    async def _read(self, work: Work[T], acting_for: Actor, table: Table | None) -> T:
        """`work` on the transaction's connection, or on a pooled one in autocommit."""
        return await self._run(work, acting_for, table, write=False)

    async def _write(self, work: Work[T], acting_for: Actor, table: Table | None, *, savepoint: bool = True) -> T:
        """`work` all or nothing: in a savepoint inside the caller's transaction, else in its own.

        Even a single statement gets BEGIN ... COMMIT: a cancelled call closes its connection,
        and only a transaction the server has not been told to commit is sure to roll back
        (an autocommit UPDATE waiting on a lock would still apply once the lock is freed).
        """
        return await self._run(work, acting_for, table, write=True, savepoint=savepoint)

    async def _run(self, work: Work[T], acting_for: Actor, table: Table | None, *, write: bool, savepoint: bool = True) -> T:
        block = self._tx.get()
        if block is not None:
            async with block.lock:
                # In PostgreSQL a failed statement aborts the whole transaction: a savepoint keeps
                # the caller's transaction usable after a write it catches the error of. A write
                # whose failure always fails the transaction (a session save) needs none.
                steps = _IN_TRANSACTION if write and savepoint else None
                return await _attempt(block.connection, work, acting_for, table, steps)
        async with self._connection() as connection:
            return await _attempt(connection, work, acting_for, table, _OWN_TRANSACTION if write else None)

    @asynccontextmanager
    async def _connection(self) -> AsyncIterator[PooledConnection]:
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


# -- on a connection -----------------------------------------------------------------------


async def _configure(connection: PooledConnection) -> None:
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
    connection: PooledConnection, work: Work[T], acting_for: Actor, table: Table | None, steps: Steps | None
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


async def _act_for(connection: PooledConnection, actor: Actor) -> None:
    """Switch the session to role `authenticated` for a user, or back to the login role (None)."""
    if isinstance(actor, OwnerOrLogin):
        if connection.acting_for is None or connection.acting_for == actor.user_id:
            return
        actor = actor.user_id
    user_id = actor
    if connection.acting_for == user_id:
        return
    connection.acting_for = UNKNOWN
    await connection.execute(_ACT_SQL, (USER_ROLE, user_id) if user_id else ("none", ""))
    connection.acting_for = user_id


async def _undo(connection: PooledConnection, statements: tuple[str, ...]) -> None:
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


async def _finish(connection: PooledConnection, statement: str, undo: tuple[str, ...]) -> None:
    """COMMIT or RELEASE, with a failure (e.g. a deferred constraint) mapped and rolled back."""
    try:
        await connection.execute(statement)
    except psycopg.Error as error:
        with anyio.CancelScope(shield=True):
            await _undo(connection, undo)
        raise to_store_error(error) from error


async def _execute_mapped(connection: PooledConnection, statement: str) -> None:
    try:
        await connection.execute(statement)
    except psycopg.Error as error:
        raise to_store_error(error) from error


def _first_line(error: psycopg.Error) -> str:
    """libpq's reason for a failed connection (it never contains the password)."""
    lines = str(error).strip().splitlines() or ["unknown error"]
    return lines[0].removeprefix("connection failed: ").strip()
