"""Sessions on PostgreSQL: numbering, the current one, and their refs, counters, documents and version.

Concurrency across processes: session numbers are taken under a row lock on the user,
session saves under the session's row lock; counters never move backwards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import psycopg
from psycopg.types.json import Json

from alfred_mcp.errors import ConstraintViolationError
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.base import FIRST_TURN, SessionRecord, SessionVersion, bump_version_sql, session_save_refused
from alfred_mcp.store.ddl import ENTRY_COLUMNS
from alfred_mcp.store.postgres.codec import utc_now, uuid_key
from alfred_mcp.store.postgres.connection import OwnerOrLogin, PooledConnection, PostgresConnection, Work
from alfred_mcp.store.postgres.refs import PostgresRefSource, ref_reader
from alfred_mcp.store.ref_sources import OnDemand
from alfred_mcp.store.session_sql import (
    SESSION_SELECT,
    delete_document_sql,
    select_documents_sql,
    select_recent_refs_sql,
    select_refs_sql,
    upsert_document_sql,
    upsert_ref_sql,
)

_UPSERT_REF = upsert_ref_sql("%s")
_UPSERT_COUNTER = (
    'INSERT INTO "alfred_session_counters" AS c ("session_id", "key", "last_number") VALUES (%s, %s, %s) '
    'ON CONFLICT ("session_id", "key") DO UPDATE SET "last_number" = greatest(c."last_number", excluded."last_number")'
)


class PostgresSessionStore(PostgresConnection):
    """The SessionStore protocol on a PostgreSQL database."""

    _refs: OnDemand[psycopg.Connection[Any]] | None = None
    _owners_map: dict[str, str] | None = None

    @property
    def _owners(self) -> dict[str, str]:
        """session id -> owner's user id, for the sessions this store has found or created."""
        if self._owners_map is None:
            self._owners_map = {}
        return self._owners_map

    async def current_session(self, user_id: str) -> SessionRecord | None:
        sql = f'{SESSION_SELECT} WHERE "user_id" = %s AND "is_current"'
        return self._remember(await self._read(_fetch_session(sql, (uuid_key(user_id),)), self._owner_of(user_id), None))

    async def get_session(self, user_id: str, number: int) -> SessionRecord | None:
        sql = f'{SESSION_SELECT} WHERE "user_id" = %s AND "number" = %s'
        return self._remember(await self._read(_fetch_session(sql, (uuid_key(user_id), number)), self._owner_of(user_id), None))

    async def create_session(self, user_id: str) -> SessionRecord:
        scope = uuid_key(user_id)

        async def work(connection: PooledConnection) -> SessionRecord:
            locked = await connection.execute('SELECT 1 FROM "users" WHERE "id" = %s FOR NO KEY UPDATE', (scope,))
            if await locked.fetchone() is None:
                raise ConstraintViolationError("The user does not exist.", field="user_id")
            sql = 'SELECT coalesce(max("number"), 0) + 1 FROM "alfred_sessions" WHERE "user_id" = %s'
            (number,) = await (await connection.execute(sql, (scope,))).fetchone() or (1,)
            await connection.execute('UPDATE "alfred_sessions" SET "is_current" = false WHERE "user_id" = %s AND "is_current"', (scope,))
            inserted = await connection.execute(
                'INSERT INTO "alfred_sessions" ("user_id", "number", "turn", "is_current", "created_at") '
                'VALUES (%s, %s, %s, true, %s) RETURNING "id"',
                (scope, number, FIRST_TURN, utc_now()),
            )
            (session_id,) = await inserted.fetchone() or ("",)
            return SessionRecord(str(session_id), user_id, int(number), FIRST_TURN)

        record = await self._write(work, None, None)
        self._remember(record)
        return record

    async def load_session_state(self, session_id: str, *, recent: int | None = None) -> tuple[list[RefEntry], dict[str, int]]:
        key = (uuid_key(session_id),)
        counters_sql = 'SELECT "key", "last_number" FROM "alfred_session_counters" WHERE "session_id" = %s'

        async def work(connection: PooledConnection) -> tuple[list[Any], list[Any]]:
            # Refs before counters: a save landing in between can only raise the counters.
            if recent is not None:
                newest = await (await connection.execute(select_recent_refs_sql("%s"), (*key, recent + 1))).fetchall()
                if len(newest) > recent:
                    return newest[:recent][::-1], await (await connection.execute(counters_sql, key)).fetchall()
            refs = await (await connection.execute(select_refs_sql("%s"), key)).fetchall()
            return refs, await (await connection.execute(counters_sql, key)).fetchall()

        refs, counters = await self._read(work, self._actor(session_id), None)
        entries = [RefEntry.from_dict(dict(zip(ENTRY_COLUMNS, row))) for row in refs]
        return entries, {str(name): int(number) for name, number in counters}

    def _owner_of(self, user_id: str) -> OwnerOrLogin:
        return OwnerOrLogin(uuid_key(user_id))

    def _actor(self, session_id: str) -> OwnerOrLogin | None:
        """The session's owner or the login role, whichever the connection acts for (the login role if unknown)."""
        owner = self._owners.get(uuid_key(session_id))
        return None if owner is None else OwnerOrLogin(owner)

    def _remember(self, record: SessionRecord | None) -> SessionRecord | None:
        if record is not None:
            self._owners[uuid_key(record.session_id)] = uuid_key(record.user_id)
        return record

    def ref_source(self, session_id: str) -> PostgresRefSource:
        if self._refs is None:
            self._refs = ref_reader(self.dsn, self._timeout)
        return PostgresRefSource(self._refs, session_id)

    async def close(self) -> None:
        refs, self._refs = self._refs, None
        if refs is not None:
            refs.close()
        await super().close()

    async def session_version(self, session_id: str) -> SessionVersion | None:
        key = (uuid_key(session_id),)
        sql = 'SELECT "version", "is_current", "turn" FROM "alfred_sessions" WHERE "id" = %s'

        async def work(connection: PooledConnection) -> tuple[Any, ...] | None:
            return await (await connection.execute(sql, key)).fetchone()

        row = await self._read(work, self._actor(session_id), None)
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
        key = uuid_key(session_id)
        ref_rows = [[key, *(getattr(entry, name) for name in ENTRY_COLUMNS)] for entry in entries]
        counter_rows = [(key, name, number) for name, number in counters.items()]
        bump, params = bump_version_sql("%s", expected_version)
        write_documents = _documents_work(key, documents or {})

        async def work(connection: PooledConnection) -> None:
            # The UPDATE locks the session row: saves of one session from any process queue here,
            # and a queued one re-reads the version once the first commits (so it conflicts).
            updated = await connection.execute(bump, (turn, key, *params))
            if updated.rowcount == 0:
                found = await connection.execute('SELECT "number" FROM "alfred_sessions" WHERE "id" = %s', (key,))
                number = await found.fetchone()
                raise session_save_refused(None if number is None else int(number[0]))
            await write_documents(connection)
            if not ref_rows:
                return  # counters only move when refs are added, and those are among the changed entries
            sql = 'SELECT coalesce(max("seq"), 0) FROM "alfred_session_refs" WHERE "session_id" = %s'
            (last,) = await (await connection.execute(sql, (key,))).fetchone() or (0,)
            cursor = connection.cursor()
            await cursor.executemany(_UPSERT_REF, [[*row, last + i] for i, row in enumerate(ref_rows, start=1)])
            if counter_rows:
                await cursor.executemany(_UPSERT_COUNTER, counter_rows)

        # State, documents and refs in one transaction; inside the caller's, no savepoint of its own:
        # a failed save fails the whole call, which rolls back everything it wrote.
        await self._write(work, self._actor(session_id), None, savepoint=False)

    async def load_documents(self, session_id: str) -> dict[str, Any]:
        key = (uuid_key(session_id),)
        sql = select_documents_sql("%s")

        async def work(connection: PooledConnection) -> list[tuple[Any, ...]]:
            return await (await connection.execute(sql, key)).fetchall()

        return {str(name): value for name, value in await self._read(work, self._actor(session_id), None)}

    async def save_documents(self, session_id: str, changed: Mapping[str, Any]) -> None:
        if changed:
            await self._write(_documents_work(uuid_key(session_id), changed), self._actor(session_id), None)


def _documents_work(key: Any, changed: Mapping[str, Any]) -> Work[None]:
    """Upsert the changed documents and delete those set to None, on the caller's connection."""
    upserts = [(key, name, Json(value)) for name, value in changed.items() if value is not None]
    deletes = [(key, name) for name, value in changed.items() if value is None]

    async def work(connection: PooledConnection) -> None:
        cursor = connection.cursor()
        if upserts:
            await cursor.executemany(upsert_document_sql("%s"), upserts)
        if deletes:
            await cursor.executemany(delete_document_sql("%s"), deletes)

    return work


def _fetch_session(sql: str, params: tuple[Any, ...]) -> Work[SessionRecord | None]:
    async def work(connection: PooledConnection) -> SessionRecord | None:
        row = await (await connection.execute(sql, params)).fetchone()
        return None if row is None else SessionRecord(str(row[0]), str(row[1]), int(row[2]), int(row[3]))

    return work
