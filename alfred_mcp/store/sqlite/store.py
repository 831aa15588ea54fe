"""SQLiteStore: the Store protocol on a SQLite file, kitchen rows and sessions on one connection."""

from __future__ import annotations

from alfred_mcp.store.sqlite.kitchen import SQLiteKitchenStore
from alfred_mcp.store.sqlite.sessions import SQLiteSessionStore


class SQLiteStore(SQLiteKitchenStore, SQLiteSessionStore):
    """The embedded Store: stdlib sqlite3 on one connection behind anyio worker threads."""
