"""The PostgreSQL backend (psycopg 3), and the PostgreSQL schema the Supabase backend shares.

    store.py        PostgresStore = PostgresKitchenStore + PostgresSessionStore
    connection.py   the pool, transactions and savepoints, acting as a user for row-level security
    kitchen.py      kitchen rows and users
    sessions.py     sessions, refs, counters, documents, versions
    codec.py        values in and out, so rows come back as SQLiteStore returns them
    errors.py       psycopg errors as StoreError / ConstraintViolationError
    schema.py       the PostgreSQL DDL: tables, indexes, row-level security (migrations 0000, 0001)
    rpc.py          the SQL functions the Supabase backend writes through (migration 0002)
    migrations.py   the migration set (`python -m alfred_mcp.store.postgres <folder>` writes its files)
    migrate.py      applying the set to a database, once
"""

from alfred_mcp.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
