"""SupabaseStore: the Store protocol over Supabase's REST API (PostgREST), with row-level security.

Semantics are SQLiteStore's (see `store/base.py`); the database is the PostgreSQL migration set
(`pg_schema.py`, applied with the project's direct URL). What differs is how it is reached:

- Only the `supabase` package's async client is used, and only `.table()` and `.rpc()`, over an
  httpx client this store owns and closes.
- Every user-owned call carries THAT user's JWT (minted with the project's JWT secret, or given
  by a `tokens` callable), so row-level security applies on top of the explicit `user_id`
  filter. A call without a user is refused; there is no fall-back to a service key. The service
  key, when configured, is used for catalog (`ingredients`) writes only; catalog reads without a
  user use the anon key (the catalog is public). A catalog write is never part of a user's unit of
  work (one call acts for one role): it commits at once, even inside `transaction()`, and stays if
  the block fails (seeding adds missing catalog rows first; they are shared and re-used).
- Filters travel as one quoted PostgREST logic tree (`supabase_query.py`).
- Writes: PostgREST runs each request in its own transaction, so every write goes through the
  `alfred_apply` SQL function (`pg_rpc.py`). Outside `transaction()` a write is one call. Inside,
  writes are buffered as a unit of work and committed by ONE call at the end; each buffered write
  is also dry-run (the unit so far plus it, rolled back) so it returns its real rows and raises its
  real error at once. Ids are made here, so a dry run and the commit agree.
- A read inside `transaction()` sees the unit's own writes: when a pending write touches the
  table read (or a table it references, whose deletes cascade into it), the read goes through
  `alfred_pending_<table>(ops)`, which applies the pending writes, takes the rows and rolls back;
  PostgREST filters, orders and limits that result as it would the table. Other reads (other
  tables, other tasks) see committed data only, so no task ever sees another's uncommitted rows.
- A session's calls act for the user it was found or created for (this store remembers it).
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache
from typing import Any

import anyio
import httpx

from alfred_mcp.errors import ConstraintViolationError, StoreError
from alfred_mcp.kitchen.query import Query, Where
from alfred_mcp.kitchen.schema import TABLES, Table
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.base import Row, SessionRecord, SessionVersion, session_save_refused
from alfred_mcp.store.ddl import ENTRY_COLUMNS, SCHEMA_VERSION, tables_in_fk_order
from alfred_mcp.store.filters import compile_limit, default_order
from alfred_mcp.store.payloads import selected_columns
from alfred_mcp.store.postgres.codec import (
    NIL_UUID,
    canonical_uuid,
    insert_columns,
    insert_values,
    update_assignments,
)
from alfred_mcp.store.postgres.errors import BUSY_STATES, constraint_error
from alfred_mcp.store.postgres.rpc import CONFLICT_STATE, GONE_STATE, pending_function
from alfred_mcp.store.supabase_query import (
    ORDER_TIEBREAK,
    decode_row,
    document_text,
    logic_tree,
    order_terms,
    to_json,
)

USER_NAMESPACE = uuid.UUID("6f1c1b8e-5a8e-4c47-9d0e-3b7a2f0c9a11")
"""A user's id is uuid5(USER_NAMESPACE, handle): every replica agrees without a lookup."""
SERVICE = "service"
"""The actor of catalog writes (the service key)."""
_CONSTRAINT = re.compile(r'constraint "([^"]+)"')
_COLUMN = re.compile(r'column "([^"]+)"')
_SESSION_COLUMNS = "id,user_id,number,turn"


@dataclass
class _Unit:
    """The buffered writes of an open `transaction()` block and whom they act for."""

    actor: str | None = None
    ops: list[dict[str, Any]] = field(default_factory=list)
    lock: anyio.Lock = field(default_factory=anyio.Lock)


class SupabaseStore:
    """The Store protocol on a Supabase project (see the module docstring)."""

    dialect = "postgres"

    def __init__(
        self,
        url: str,
        key: str,
        *,
        jwt_secret: str | None = None,
        tokens: Callable[[str], str] | None = None,
        service_key: str | None = None,
        timeout: float = 10.0,
        token_ttl: int = 3600,
    ) -> None:
        if jwt_secret is None and tokens is None:
            raise StoreError("The Supabase backend needs the project's JWT secret or a token source for its users.", field="jwt_secret")
        self.url = url
        self._key = key
        self._jwt_secret = jwt_secret
        self._tokens = tokens
        self._service_key = service_key
        self._timeout = timeout
        self._token_ttl = token_ttl
        self._http: httpx.AsyncClient | None = None
        self._client: Any = None
        self._lifecycle = anyio.Lock()
        self._session_users: dict[str, str] = {}
        self._unit: ContextVar[_Unit | None] = ContextVar(f"supabase_store_unit_{id(self)}", default=None)

    # -- lifecycle --------------------------------------------------------------------------

    async def open(self) -> None:
        async with self._lifecycle:
            if self._client is not None:
                return
            from supabase import AClientOptions, acreate_client

            http = httpx.AsyncClient(timeout=self._timeout)
            try:
                options = AClientOptions(httpx_client=http, postgrest_client_retry=False)
                client = await acreate_client(self.url, self._key, options=options)
                self._client = client
                await self._check_schema()
            except BaseException:
                self._client = None
                await http.aclose()
                raise
            self._http = http

    async def close(self) -> None:
        async with self._lifecycle:
            http, self._http, self._client = self._http, None, None
            if http is not None:
                await http.aclose()

    async def _check_schema(self) -> None:
        builder = self._postgrest().table("alfred_meta").select("value").eq("key", "schema_version")
        rows = await self._execute(builder, None, None)
        found = rows[0]["value"] if rows else None
        if found != str(SCHEMA_VERSION):
            raise StoreError(
                f"The Supabase database has schema version {found}; this alfred-mcp uses version {SCHEMA_VERSION}. "
                "Apply migrations/ with the project's direct database URL first.",
                value=found, valid=[str(SCHEMA_VERSION)],
            )

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        outer = self._unit.get()
        if outer is not None:
            mark = len(outer.ops)
            try:
                yield
            except BaseException:
                del outer.ops[mark:]
                raise
            return
        unit = _Unit()
        token = self._unit.set(unit)
        try:
            yield
        finally:
            self._unit.reset(token)
        if unit.ops:
            with anyio.CancelScope(shield=True):
                await self._apply(unit.ops, unit.actor, dry_run=False, table=None)

    # -- kitchen rows -----------------------------------------------------------------------

    async def select(self, table: Table, query: Query, *, user_id: str) -> list[Row]:
        names = selected_columns(table, query.columns)
        builder = self._filtered(table, self._source(table, user_id).select(",".join(names)), query.where, user_id)
        for name, descending in order_terms(table, query.order_by or default_order(table)):
            builder = builder.order(name, desc=descending, nullsfirst=descending)
        builder = builder.order(ORDER_TIEBREAK)
        compile_limit(query.limit)
        if query.limit is not None:
            builder = builder.limit(query.limit)
        rows = await self._execute(builder, self._reader(table, user_id), table)
        return [decode_row(table, names, row) for row in rows]

    async def count(self, table: Table, where: Where, *, user_id: str) -> int:
        pending = self._pending_ops(table, self._reader(table, user_id))
        if pending is None:
            builder = self._postgrest().table(table.name).select("id", count="exact", head=True)
        else:  # a POST: the pending writes need a read-write transaction (then rolled back)
            builder = self._postgrest().rpc(pending_function(table.name), {"ops": pending}, count="exact").select("*").limit(0)
        builder = self._filtered(table, builder, where, user_id)
        response = await self._send(builder, self._reader(table, user_id), table)
        return int(response.count or 0)

    async def insert(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        if not rows:
            return []
        actor = self._writer(table, user_id)
        now = _now()
        names = [column.name for column in insert_columns(table)]
        payload = []
        for row in rows:
            values = insert_values(table, row, user_id=_scope(user_id), now=now)
            payload.append({"id": str(uuid.uuid4()), **{name: to_json(value) for name, value in zip(names, values)}})
        stored = await self._submit({"op": "insert", "table": table.name, "rows": payload}, actor, table)
        return [decode_row(table, table.visible_columns, row) for row in stored]

    async def update(self, table: Table, where: Where, values: Row, *, user_id: str) -> list[Row]:
        actor = self._writer(table, user_id)
        assignments = update_assignments(table, values)
        if "updated_at" in table.visible_columns:
            assignments.append(("updated_at", _now()))
        ids = await self._matching_ids(table, where, user_id)
        if not ids:
            return []
        op = {"op": "update", "table": table.name, "ids": ids, "values": {name: to_json(value) for name, value in assignments}}
        return [decode_row(table, table.visible_columns, row) for row in await self._submit(op, actor, table)]

    async def delete(self, table: Table, where: Where, *, user_id: str) -> list[Row]:
        actor = self._writer(table, user_id)
        ids = await self._matching_ids(table, where, user_id)
        if not ids:
            return []
        op = {"op": "delete", "table": table.name, "ids": ids}
        return [decode_row(table, table.visible_columns, row) for row in await self._submit(op, actor, table)]

    async def reset_kitchen(self, user_id: str) -> None:
        async with self.transaction():
            for table in reversed(tables_in_fk_order()):
                if table.user_owned:
                    await self.delete(table, Where(), user_id=user_id)

    # -- users and sessions -----------------------------------------------------------------

    async def ensure_user(self, handle: str) -> str:
        user_id = str(uuid.uuid5(USER_NAMESPACE, handle))
        builder = self._postgrest().table("users").upsert(
            {"id": user_id, "handle": handle}, on_conflict="id", ignore_duplicates=True
        )
        await self._execute(builder, self._require_user(user_id), None)
        return user_id

    async def current_session(self, user_id: str) -> SessionRecord | None:
        builder = self._sessions(user_id).eq("is_current", True)
        return self._remember(await self._execute(builder, self._require_user(user_id), None))

    async def get_session(self, user_id: str, number: int) -> SessionRecord | None:
        builder = self._sessions(user_id).eq("number", number)
        return self._remember(await self._execute(builder, self._require_user(user_id), None))

    async def create_session(self, user_id: str) -> SessionRecord:
        actor = self._require_user(user_id)
        created = await self._execute(self._postgrest().rpc("alfred_create_session", {}), actor, None)
        record = SessionRecord(str(created["id"]), user_id, int(created["number"]), 1)
        self._session_users[record.session_id] = _scope(user_id)
        return record

    async def load_session_state(self, session_id: str) -> tuple[list[RefEntry], dict[str, int]]:
        actor, key = self._session_actor(session_id)
        refs = self._postgrest().table("alfred_session_refs").select(",".join(ENTRY_COLUMNS)).eq("session_id", key).order("seq")
        counters = self._postgrest().table("alfred_session_counters").select("key,last_number").eq("session_id", key)
        # Refs before counters: a save landing in between can only raise the counters.
        ref_rows = await self._execute(refs, actor, None)
        counter_rows = await self._execute(counters, actor, None)
        entries = [RefEntry.from_dict({name: row[name] for name in ENTRY_COLUMNS}) for row in ref_rows]
        return entries, {str(row["key"]): int(row["last_number"]) for row in counter_rows}

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
        await self._submit(op, actor, None)
        if documents:
            await self.save_documents(session_id, documents)

    async def load_documents(self, session_id: str) -> dict[str, Any]:
        actor, key = self._session_actor(session_id)
        # `value` is json (not jsonb) in the database, so PostgREST returns each document as written.
        builder = self._postgrest().table("alfred_session_docs").select("key,value").eq("session_id", key).order("key")
        return {str(row["key"]): row["value"] for row in await self._execute(builder, actor, None)}

    async def save_documents(self, session_id: str, changed: Mapping[str, Any]) -> None:
        if not changed:
            return
        actor, key = self._session_actor(session_id)
        op = {
            "op": "documents", "session_id": key,
            "upserts": [[name, document_text(value)] for name, value in changed.items() if value is not None],
            "deletes": [name for name, value in changed.items() if value is None],
        }
        await self._submit(op, actor, None)

    # -- whom a call acts for ---------------------------------------------------------------

    def _require_user(self, user_id: str) -> str:
        """The scope of a user call; a call without a user is refused, never upgraded.

        `documents` (key -> JSON, None deletes) are saved in the same write.
        """
        if not isinstance(user_id, str) or not user_id:
            raise StoreError("This call needs a user; calls without one are refused.", field="user_id")
        return _scope(user_id)

    def _reader(self, table: Table, user_id: str) -> str | None:
        """Reads of user-owned rows act for the user; catalog reads for the user or, without one, anon."""
        if table.user_owned or user_id:
            return self._require_user(user_id)
        return None

    def _writer(self, table: Table, user_id: str) -> str:
        if table.user_owned:
            return self._require_user(user_id)
        if self._service_key is None:
            raise StoreError("Writing the shared catalog needs the Supabase service key; none is configured.", table=table.name)
        return SERVICE

    def _session_actor(self, session_id: str) -> tuple[str, str]:
        key = canonical_uuid(session_id) or NIL_UUID
        actor = self._session_users.get(key)
        if actor is None:
            raise StoreError("Open the session through its user first (current or numbered session).", field="session")
        return actor, key

    def _token(self, actor: str | None) -> str:
        if actor is None:
            return self._key
        if actor == SERVICE:
            return self._service_key or ""
        if self._tokens is not None:
            return self._tokens(actor)
        import jwt

        now = int(time.time())
        claims = {"sub": actor, "role": "authenticated", "aud": "authenticated", "iat": now, "exp": now + self._token_ttl}
        return str(jwt.encode(claims, self._jwt_secret or "", algorithm="HS256"))

    def _remember(self, rows: list[dict[str, Any]]) -> SessionRecord | None:
        if not rows:
            return None
        row = rows[0]
        record = SessionRecord(str(row["id"]), str(row["user_id"]), int(row["number"]), int(row["turn"]))
        self._session_users[record.session_id] = record.user_id
        return record

    # -- requests ---------------------------------------------------------------------------

    def _postgrest(self) -> Any:
        if self._client is None:
            raise StoreError("The store is not open; call open() first.")
        return self._client.postgrest

    def _sessions(self, user_id: str) -> Any:
        return self._postgrest().table("alfred_sessions").select(_SESSION_COLUMNS).eq("user_id", self._require_user(user_id))

    def _source(self, table: Table, user_id: str) -> Any:
        """What a read selects from: the table, or the table as the open unit of work leaves it."""
        pending = self._pending_ops(table, self._reader(table, user_id))
        if pending is None:
            return self._postgrest().table(table.name)
        return _RpcSource(self._postgrest().rpc(pending_function(table.name), {"ops": pending}))

    def _pending_ops(self, table: Table, actor: str | None) -> list[dict[str, Any]] | None:
        """The open unit's writes when they can change what a read of `table` by `actor` sees."""
        unit = self._unit.get()
        if unit is None or unit.actor is None or unit.actor != actor:
            return None
        touched = {op["table"] for op in unit.ops if "table" in op}
        return list(unit.ops) if touched & _upstream(table.name) else None

    def _filtered(self, table: Table, builder: Any, where: Where, user_id: str) -> Any:
        if table.user_owned:
            builder = builder.eq("user_id", self._require_user(user_id))
        tree = logic_tree(table, where)
        return builder.or_(tree[1:-1]) if tree else builder

    async def _matching_ids(self, table: Table, where: Where, user_id: str) -> list[str]:
        builder = self._filtered(table, self._source(table, user_id).select("id"), where, user_id)
        return [row["id"] for row in await self._execute(builder, self._reader(table, user_id), table)]

    async def _submit(self, op: dict[str, Any], actor: str, table: Table | None) -> Any:
        """One write: applied at once (outside a unit, or a catalog write), or dry-run on top of the unit and buffered."""
        unit = self._unit.get()
        if unit is None or actor == SERVICE:
            return (await self._apply([op], actor, dry_run=False, table=table))[0]
        async with unit.lock:
            if unit.actor not in (None, actor):
                raise StoreError("One transaction acts for one user; this write is for another.", field="user_id")
            results = await self._apply([*unit.ops, op], actor, dry_run=True, table=table)
            unit.actor = actor
            unit.ops.append(op)
            return results[-1]

    async def _apply(self, ops: list[dict[str, Any]], actor: str | None, *, dry_run: bool, table: Table | None) -> Any:
        builder = self._postgrest().rpc("alfred_apply", {"ops": ops, "dry_run": dry_run})
        return await self._execute(builder, actor, table)

    async def _execute(self, builder: Any, actor: str | None, table: Table | None) -> Any:
        return (await self._send(builder, actor, table)).data

    async def _send(self, builder: Any, actor: str | None, table: Table | None) -> Any:
        """Run one request as `actor` (its JWT in this request's header only), errors mapped."""
        from postgrest.exceptions import APIError

        builder.request.headers["Authorization"] = f"Bearer {self._token(actor)}"
        try:
            return await builder.execute()
        except APIError as error:
            raise to_store_error(error, table) from None
        except httpx.HTTPError as error:
            raise StoreError(f"Cannot reach Supabase at {self.url}; try again.", reason=type(error).__name__) from None


def to_store_error(error: Any, table: Table | None) -> StoreError:
    """A PostgREST error as a StoreError: SQLSTATE first, the rule recovered from the message."""
    state = str(error.code or "")
    message = str(error.message or "")
    if state.startswith("23"):
        constraint = _CONSTRAINT.search(message)
        column = _COLUMN.search(message)
        return constraint_error(state, constraint.group(1) if constraint else None, column.group(1) if column else None, table)
    if state.startswith("22"):
        return ConstraintViolationError("A value does not fit its column's type.", table=table.name if table else None, reason=state)
    if state == GONE_STATE:
        return session_save_refused(None)
    if state == CONFLICT_STATE:
        return session_save_refused(int(message) if message.isdigit() else None)
    if state in BUSY_STATES:
        return StoreError("The database was busy with a conflicting change; try again.", reason=state)
    if state == "42501" or state.startswith("PGRST3"):
        return StoreError("The database refused access to these rows.", reason=state)
    return StoreError(f"The database failed ({state or 'no code'}).", reason=state or None)


class _RpcSource:
    """An rpc call read like a table. It selects every column: PostgREST 12 cannot filter or order a
    function's result on a column the select leaves out (PostgREST issue #3965); rows are projected here.
    """

    def __init__(self, builder: Any) -> None:
        self._builder = builder

    def select(self, columns: str) -> Any:
        return self._builder.select("*")


@cache
def _upstream(name: str) -> frozenset[str]:
    """`name` and every table it references, directly or not: writes there can change its rows."""
    found = {name}
    for column in TABLES[name].fk_columns:
        if column.fk is not None and column.fk.table not in found:
            found |= _upstream(column.fk.table)
    return frozenset(found)


def _scope(user_id: str) -> str:
    return canonical_uuid(user_id) or NIL_UUID


def _now() -> datetime:
    return datetime.now(timezone.utc)
