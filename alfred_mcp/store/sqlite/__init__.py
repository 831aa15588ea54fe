"""The embedded SQLite backend: stdlib sqlite3 on one connection behind anyio worker threads.

    store.py        SQLiteStore = SQLiteKitchenStore + SQLiteSessionStore
    connection.py   the connection: open, transactions and savepoints, work on the worker thread
    kitchen.py      kitchen rows and users
    sessions.py     sessions, refs, counters, documents, versions
    codec.py        values in and out (bools, text[] as JSON, defaults)
    errors.py       sqlite3 errors as StoreError / ConstraintViolationError
    schema.py       the SQLite DDL
"""

from alfred_mcp.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
