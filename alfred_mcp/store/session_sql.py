"""The statements both SQL backends run on the session tables, spelled with the dialect's placeholder."""

from __future__ import annotations

from alfred_mcp.store.ddl import ENTRY_COLUMNS
from alfred_mcp.store.filters import quote_identifier as q

SESSION_SELECT = 'SELECT "id", "user_id", "number", "turn" FROM "alfred_sessions"'
"""A session's record, as `SessionRecord(id, user_id, number, turn)` takes it; add the WHERE."""
_ENTRY_LIST = ", ".join(q(c) for c in ENTRY_COLUMNS)


def select_refs_sql(mark: str) -> str:
    """A session's registry entries, ENTRY_COLUMNS in ref order. Parameter: the session id."""
    return f'SELECT {_ENTRY_LIST} FROM "alfred_session_refs" WHERE "session_id" = {mark} ORDER BY "seq"'


def select_recent_refs_sql(mark: str) -> str:
    """The session's last-assigned entries, ENTRY_COLUMNS newest first. Parameters: the session id, how many."""
    return f'SELECT {_ENTRY_LIST} FROM "alfred_session_refs" WHERE "session_id" = {mark} ORDER BY "seq" DESC LIMIT {mark}'


def select_refs_in_sql(mark: str, column: str, count: int) -> str:
    """The session's entries whose `column` ('ref' or 'row_id') is one of `count` values. Parameters: session id, values."""
    marks = ", ".join([mark] * count)
    return f'SELECT {_ENTRY_LIST} FROM "alfred_session_refs" WHERE "session_id" = {mark} AND {q(column)} IN ({marks})'


def upsert_ref_sql(mark: str) -> str:
    """Insert or update one registry entry. Parameters: session id, *ENTRY_COLUMNS, seq."""
    marks = ", ".join([mark] * (len(ENTRY_COLUMNS) + 2))
    updates = ", ".join(f"{q(c)} = excluded.{q(c)}" for c in ENTRY_COLUMNS[1:])
    return (
        f'INSERT INTO "alfred_session_refs" ("session_id", {_ENTRY_LIST}, "seq") VALUES ({marks}) '
        f'ON CONFLICT ("session_id", "ref") DO UPDATE SET {updates}'
    )


def upsert_document_sql(mark: str) -> str:
    """Insert or replace one session document. Parameters: session id, key, JSON value."""
    return (
        f'INSERT INTO "alfred_session_docs" ("session_id", "key", "value") VALUES ({mark}, {mark}, {mark}) '
        'ON CONFLICT ("session_id", "key") DO UPDATE SET "value" = excluded."value"'
    )


def delete_document_sql(mark: str) -> str:
    """Delete one session document. Parameters: session id, key."""
    return f'DELETE FROM "alfred_session_docs" WHERE "session_id" = {mark} AND "key" = {mark}'


def select_documents_sql(mark: str) -> str:
    """Every document of a session, (key, value) by key. Parameter: the session id."""
    return f'SELECT "key", "value" FROM "alfred_session_docs" WHERE "session_id" = {mark} ORDER BY "key"'
