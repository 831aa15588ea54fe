"""A lazily loaded registry's RefSource on SQLite: a read connection of its own beside the writer.

In WAL mode a second connection reads the last committed state without waiting for the writer;
refs this process assigned and has not committed are in the registry's memory already. The
registry asks from the event loop's thread; each ask is one indexed query.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.ddl import ENTRY_COLUMNS
from alfred_mcp.store.ref_sources import ByColumn, OnDemand
from alfred_mcp.store.session_sql import select_refs_in_sql, select_refs_sql
from alfred_mcp.store.sqlite.errors import to_store_error

_CHUNK = 500


def ref_reader(path: Path) -> OnDemand[sqlite3.Connection]:
    """The read connection every session of one store shares."""

    def connect() -> sqlite3.Connection:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        connection.execute("PRAGMA busy_timeout = 5000")
        return connection

    return OnDemand(connect, sqlite3.Connection.close)


class SQLiteRefSource(ByColumn):
    """One session's stored refs, asked for by ref, by row id, or all at once."""

    def __init__(self, reader: OnDemand[sqlite3.Connection], session_id: str) -> None:
        self._reader = reader
        self._session_id = session_id

    def everything(self) -> list[RefEntry]:
        return self._rows(select_refs_sql("?"), (self._session_id,))

    def _in(self, column: str, values: Sequence[str]) -> list[RefEntry]:
        found: list[RefEntry] = []
        for start in range(0, len(values), _CHUNK):
            chunk = list(values[start:start + _CHUNK])
            found += self._rows(select_refs_in_sql("?", column, len(chunk)), [self._session_id, *chunk])
        return found

    def _rows(self, sql: str, params: Sequence[Any]) -> list[RefEntry]:
        try:
            found = self._reader.use(lambda connection: connection.execute(sql, params).fetchall())
        except (sqlite3.Error, sqlite3.Warning) as error:
            raise to_store_error(error) from error
        return [RefEntry.from_dict(dict(zip(ENTRY_COLUMNS, row))) for row in found]
