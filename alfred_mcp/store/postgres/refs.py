"""A lazily loaded registry's RefSource on PostgreSQL: a synchronous connection of its own.

The registry asks from the event loop's thread, synchronously (its lookups are plain function
calls), so this source keeps one autocommit psycopg connection apart from the pool: it reads the
last committed refs as the login role, which owns the session tables. Each ask is one indexed query.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import psycopg

from alfred_mcp.errors import StoreError
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.ddl import ENTRY_COLUMNS
from alfred_mcp.store.postgres.codec import uuid_key
from alfred_mcp.store.session_sql import select_refs_sql

_ENTRY_LIST = ", ".join(f'"{name}"' for name in ENTRY_COLUMNS)


class RefReader:
    """The synchronous connection every session of one store shares, opened on first use."""

    def __init__(self, dsn: str, timeout: float) -> None:
        self._dsn = dsn
        self._timeout = timeout
        self._connection: psycopg.Connection[Any] | None = None
        self._lock = threading.Lock()

    def rows(self, sql: str, params: Sequence[Any]) -> list[RefEntry]:
        with self._lock:
            try:
                if self._connection is None or self._connection.closed:
                    self._connection = psycopg.connect(self._dsn, autocommit=True, connect_timeout=int(self._timeout))
                found = self._connection.execute(sql, params).fetchall()
            except psycopg.Error as error:
                raise StoreError(f"Could not read the session's refs: {str(error).splitlines()[0]}") from error
        return [RefEntry.from_dict(dict(zip(ENTRY_COLUMNS, row))) for row in found]

    def close(self) -> None:
        with self._lock:
            connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()


class PostgresRefSource:
    """One session's stored refs, asked for by ref, by row id, or all at once."""

    def __init__(self, reader: RefReader, session_id: str) -> None:
        self._reader = reader
        self._key = uuid_key(session_id)

    def by_refs(self, refs: Sequence[str]) -> list[RefEntry]:
        return self._any("ref", refs)

    def by_rows(self, row_ids: Sequence[str]) -> list[RefEntry]:
        return self._any("row_id", row_ids)

    def everything(self) -> list[RefEntry]:
        return self._reader.rows(select_refs_sql("%s"), (self._key,))

    def _any(self, column: str, values: Sequence[str]) -> list[RefEntry]:
        sql = f'SELECT {_ENTRY_LIST} FROM "alfred_session_refs" WHERE "session_id" = %s AND "{column}" = ANY(%s)'
        return self._reader.rows(sql, (self._key, list(values)))
