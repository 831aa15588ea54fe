"""PostgresStore: the Store protocol on PostgreSQL, kitchen rows and sessions on one connection pool."""

from __future__ import annotations

from alfred_mcp.store.postgres.kitchen import PostgresKitchenStore
from alfred_mcp.store.postgres.sessions import PostgresSessionStore


class PostgresStore(PostgresKitchenStore, PostgresSessionStore):
    """The Store on a PostgreSQL database (psycopg 3, async connection pool); semantics are SQLiteStore's."""
