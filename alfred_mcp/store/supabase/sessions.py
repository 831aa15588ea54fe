"""Sessions on Supabase: numbering, the current one, and their refs, counters, documents and version.

A session's calls act for the user it was found or created for (this store remembers it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from alfred_mcp.errors import StoreError
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.base import SessionRecord, SessionVersion
from alfred_mcp.store.ddl import ENTRY_COLUMNS
from alfred_mcp.store.postgres.codec import uuid_key
from alfred_mcp.store.ref_sources import OnDemand
from alfred_mcp.store.supabase.connection import MAX_ROWS, SupabaseConnection
from alfred_mcp.store.supabase.query import document_text
from alfred_mcp.store.supabase.refs import SupabaseRefSource, ref_reader

_SESSION_COLUMNS = "id,user_id,number,turn"


class SupabaseSessionStore(SupabaseConnection):
    """The SessionStore protocol on a Supabase project."""

    _refs: OnDemand[httpx.Client] | None = None

    async def current_session(self, user_id: str) -> SessionRecord | None:
        builder = self._sessions(user_id).eq("is_current", True)
        return self._remember(await self._execute(builder, self._require_user(user_id), None))

    async def get_session(self, user_id: str, number: int) -> SessionRecord | None:
        builder = self._sessions(user_id).eq("number", number)
        return self._remember(await self._execute(builder, self._require_user(user_id), None))

    async def create_session(self, user_id: str) -> SessionRecord:
        actor = self._require_user(user_id)
        created = await self._execute(self._rpc("alfred_create_session", {}), actor, None)
        record = SessionRecord(str(created["id"]), user_id, int(created["number"]), 1)
        self._session_users[record.session_id] = uuid_key(user_id)
        return record

    async def load_session_state(self, session_id: str, *, recent: int | None = None) -> tuple[list[RefEntry], dict[str, int]]:
        actor, key = self._session_actor(session_id)
        columns = ",".join(ENTRY_COLUMNS)
        counters = self._postgrest().table("alfred_session_counters").select("key,last_number").eq("session_id", key)
        counter_rows = await self._execute(counters, actor, None)
        total = sum(int(row["last_number"]) for row in counter_rows)
        if recent is not None and total > recent:
            newest = self._postgrest().table("alfred_session_refs").select(columns).eq("session_id", key)
            ref_rows = (await self._execute(newest.order("seq", desc=True).limit(recent), actor, None))[::-1]
        else:
            ref_rows = await self._all_rows("alfred_session_refs", f"{columns},seq", "seq", key, actor)
        entries = [RefEntry.from_dict({name: row[name] for name in ENTRY_COLUMNS}) for row in ref_rows]
        return entries, {str(row["key"]): int(row["last_number"]) for row in counter_rows}

    def ref_source(self, session_id: str) -> SupabaseRefSource:
        actor, key = self._session_actor(session_id)
        if self._refs is None:
            self._refs = ref_reader(self._timeout)
        return SupabaseRefSource(self._refs, self.url, self._key, key, lambda: self._token(actor))

    async def close(self) -> None:
        refs, self._refs = self._refs, None
        if refs is not None:
            refs.close()
        await super().close()

    async def session_version(self, session_id: str) -> SessionVersion | None:
        actor, key = self._session_actor(session_id)
        builder = self._postgrest().table("alfred_sessions").select("version,is_current,turn").eq("id", key)
        rows = await self._execute(builder, actor, None)
        return SessionVersion(int(rows[0]["version"]), bool(rows[0]["is_current"]), int(rows[0]["turn"])) if rows else None

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
        actor, key = self._session_actor(session_id)
        op = {
            "op": "session_state", "session_id": key, "turn": turn, "expected_version": expected_version,
            "refs": [entry.to_dict() for entry in entries], "counters": dict(counters),
        }
        ops = [op, self._documents_op(key, documents)] if documents else [op]
        await self._submit_all(ops, actor)  # one alfred_apply call: state and documents commit together

    async def load_documents(self, session_id: str) -> dict[str, Any]:
        actor, key = self._session_actor(session_id)
        # `value` is json (not jsonb) in the database, so PostgREST returns each document as written.
        rows = await self._all_rows("alfred_session_docs", "key,value", "key", key, actor)
        return {str(row["key"]): row["value"] for row in rows}

    async def _all_rows(self, table: str, columns: str, order: str, session_key: str, actor: str) -> list[dict[str, Any]]:
        """Every row of a session table, paged by `order` (unique per session) so `max_rows` cannot cut it short."""
        found: list[dict[str, Any]] = []
        while True:
            builder = self._postgrest().table(table).select(columns).eq("session_id", session_key)
            if found:
                builder = builder.gt(order, found[-1][order])
            page = await self._execute(builder.order(order).limit(MAX_ROWS), actor, None)
            found += page
            if len(page) < MAX_ROWS:
                return found

    async def save_documents(self, session_id: str, changed: Mapping[str, Any]) -> None:
        if not changed:
            return
        actor, key = self._session_actor(session_id)
        await self._submit(self._documents_op(key, changed), actor, None)

    @staticmethod
    def _documents_op(key: str, changed: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "op": "documents", "session_id": key,
            "upserts": [[name, document_text(value)] for name, value in changed.items() if value is not None],
            "deletes": [name for name, value in changed.items() if value is None],
        }

    def _session_actor(self, session_id: str) -> tuple[str, str]:
        key = uuid_key(session_id)
        actor = self._session_users.get(key)
        if actor is None:
            raise StoreError("Open the session through its user first (current or numbered session).", field="session")
        return actor, key

    def _remember(self, rows: list[dict[str, Any]]) -> SessionRecord | None:
        if not rows:
            return None
        row = rows[0]
        record = SessionRecord(str(row["id"]), str(row["user_id"]), int(row["number"]), int(row["turn"]))
        self._session_users[record.session_id] = record.user_id
        return record

    def _sessions(self, user_id: str) -> Any:
        return self._postgrest().table("alfred_sessions").select(_SESSION_COLUMNS).eq("user_id", self._require_user(user_id))
