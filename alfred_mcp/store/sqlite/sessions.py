"""Sessions on SQLite: numbering, the current one, and their refs, counters, documents and version."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.base import FIRST_TURN, SessionRecord, SessionVersion, bump_version_sql, session_save_refused
from alfred_mcp.store.ddl import ENTRY_COLUMNS
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
from alfred_mcp.store.sqlite.codec import TO_JSON, now_text
from alfred_mcp.store.sqlite.connection import SQLiteConnection
from alfred_mcp.store.sqlite.refs import SQLiteRefSource, ref_reader

_UPSERT_REF = upsert_ref_sql("?")
_UPSERT_COUNTER = (
    'INSERT INTO "alfred_session_counters" ("session_id", "key", "last_number") VALUES (?, ?, ?) '
    'ON CONFLICT ("session_id", "key") DO UPDATE SET "last_number" = excluded."last_number"'
)


class SQLiteSessionStore(SQLiteConnection):
    """The SessionStore protocol on a SQLite file."""

    _refs: OnDemand[sqlite3.Connection] | None = None

    async def current_session(self, user_id: str) -> SessionRecord | None:
        sql = f'{SESSION_SELECT} WHERE "user_id" = ? AND "is_current" = 1'
        return _session(await self._read(lambda c: c.execute(sql, (user_id,)).fetchone()))

    async def get_session(self, user_id: str, number: int) -> SessionRecord | None:
        sql = f'{SESSION_SELECT} WHERE "user_id" = ? AND "number" = ?'
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
                (record.session_id, user_id, number, record.turn, now_text()),
            )
            return record

        return await self._write(work)

    async def load_session_state(self, session_id: str, *, recent: int | None = None) -> tuple[list[RefEntry], dict[str, int]]:
        counters_sql = 'SELECT "key", "last_number" FROM "alfred_session_counters" WHERE "session_id" = ?'

        def work(connection: sqlite3.Connection) -> tuple[list[Any], list[Any]]:
            counters = connection.execute(counters_sql, (session_id,)).fetchall()
            if recent is not None and sum(int(number) for _, number in counters) > recent:
                newest = connection.execute(select_recent_refs_sql("?"), (session_id, recent)).fetchall()
                return newest[::-1], counters
            return connection.execute(select_refs_sql("?"), (session_id,)).fetchall(), counters

        refs, counters = await self._read(work)
        entries = [RefEntry.from_dict(dict(zip(ENTRY_COLUMNS, row))) for row in refs]
        return entries, {str(key): int(number) for key, number in counters}

    def ref_source(self, session_id: str) -> SQLiteRefSource:
        if self._refs is None:
            self._refs = ref_reader(self.path)
        return SQLiteRefSource(self._refs, session_id)

    async def close(self) -> None:
        refs, self._refs = self._refs, None
        if refs is not None:
            refs.close()
        await super().close()

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
        ref_rows = [[session_id, *(getattr(entry, name) for name in ENTRY_COLUMNS)] for entry in entries]
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

        # Inside the call's transaction the save rides with its COMMIT (a conflict then rolls it all back).
        await self._write_at_commit(work)

    async def load_documents(self, session_id: str) -> dict[str, Any]:
        rows = await self._read(lambda c: c.execute(select_documents_sql("?"), (session_id,)).fetchall())
        return {str(key): json.loads(value) for key, value in rows}

    async def save_documents(self, session_id: str, changed: Mapping[str, Any]) -> None:
        upserts, deletes = _document_rows(session_id, changed)
        if changed:
            await self._write(lambda connection: _write_documents(connection, upserts, deletes))


def _document_rows(session_id: str, changed: Mapping[str, Any]) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    upserts = [(session_id, key, TO_JSON(value)) for key, value in changed.items() if value is not None]
    deletes = [(session_id, key) for key, value in changed.items() if value is None]
    return upserts, deletes


def _write_documents(connection: sqlite3.Connection, upserts: list[tuple[str, str, str]], deletes: list[tuple[str, str]]) -> None:
    connection.executemany(upsert_document_sql("?"), upserts)
    connection.executemany(delete_document_sql("?"), deletes)


def _session(row: Sequence[Any] | None) -> SessionRecord | None:
    if row is None:
        return None
    return SessionRecord(session_id=str(row[0]), user_id=str(row[1]), number=int(row[2]), turn=int(row[3]))
