"""A lazily loaded registry's RefSource on PostgreSQL: a synchronous connection of its own.

The registry asks from the event loop's thread, synchronously (its lookups are plain function
calls), so this source keeps one autocommit psycopg connection apart from the pool: it reads the
last committed refs as the login role, which owns the session tables. Each ask is one indexed query.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from alfred_mcp.errors import StoreError
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.ddl import ENTRY_COLUMNS
from alfred_mcp.store.postgres.codec import uuid_key
from alfred_mcp.store.ref_sources import ByColumn, OnDemand
from alfred_mcp.store.session_sql import select_refs_sql

_ENTRY_LIST = ", ".join(f'"{name}"' for name in ENTRY_COLUMNS)


def ref_reader(dsn: str, timeout: float) -> OnDemand[psycopg.Connection[Any]]:
    """The synchronous connection every session of one store shares."""
    return OnDemand(lambda: psycopg.connect(dsn, autocommit=True, connect_timeout=int(timeout)), psycopg.Connection.close)


class PostgresRefSource(ByColumn):
    """One session's stored refs, asked for by ref, by row id, or all at once."""

    def __init__(self, reader: OnDemand[psycopg.Connection[Any]], session_id: str) -> None:
        self._reader = reader
        self._key = uuid_key(session_id)

    def everything(self) -> list[RefEntry]:
        return self._rows(select_refs_sql("%s"), (self._key,))

    def _in(self, column: str, values: Sequence[str]) -> list[RefEntry]:
        sql = f'SELECT {_ENTRY_LIST} FROM "alfred_session_refs" WHERE "session_id" = %s AND "{column}" = ANY(%s)'
        return self._rows(sql, (self._key, list(values)))

    def _rows(self, sql: str, params: Sequence[Any]) -> list[RefEntry]:
        try:
            found = self._reader.use(lambda connection: connection.execute(sql, params).fetchall())
        except psycopg.Error as error:
            self._reader.close()  # a broken connection is replaced on the next ask
            raise StoreError(f"Could not read the session's refs: {str(error).splitlines()[0]}") from error
        return [RefEntry.from_dict(dict(zip(ENTRY_COLUMNS, row))) for row in found]
