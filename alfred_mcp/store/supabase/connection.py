"""A Supabase store's connection: the supabase client, the JWT each request carries, the unit of work.

Every request acts for one actor: a user (that user's JWT, so row-level security applies), the
service key (catalog writes) or anon (catalog reads without a user). Writes go through the
`alfred_apply` SQL function; inside `transaction()` they are buffered as one unit of work,
each dry-run on top of the unit so far, and committed by ONE call at the end.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, cast

import anyio
import httpx

from alfred_mcp.errors import StoreError
from alfred_mcp.kitchen.schema import Table
from alfred_mcp.store.ddl import SCHEMA_VERSION
from alfred_mcp.store.postgres.codec import uuid_key
from alfred_mcp.store.supabase.errors import to_store_error

if TYPE_CHECKING:
    from postgrest import AsyncPostgrestClient, AsyncRPCFilterRequestBuilder
    from postgrest.types import CountMethod
    from supabase import AsyncClient

MAX_ROWS = 1000
"""Rows asked for per request: Supabase's default `max_rows` (a project's API settings cap every response at
it, silently). Reads of more rows are paged in keyset order; a project must not set `max_rows` below this."""
SERVICE = "service"
"""The actor of catalog writes (the service key)."""
EXACT_COUNT = cast("CountMethod", "exact")
"""postgrest's `CountMethod.exact`, spelled as the plain string (a StrEnum) so postgrest is only imported once open."""


@dataclass
class _Unit:
    """The buffered writes of an open `transaction()` block and whom they act for."""

    actor: str | None = None
    ops: list[dict[str, Any]] = field(default_factory=list)
    lock: anyio.Lock = field(default_factory=anyio.Lock)


@cache
def tls_context() -> ssl.SSLContext:
    """The TLS settings every HTTP client of this process verifies servers with, made once: making them loads the
    certificate bundle (about 40 ms), which each new client would otherwise do again."""
    return httpx.create_ssl_context()


class SupabaseConnection:
    """The client a Supabase store's kitchen and session halves share."""

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
        self._client: AsyncClient | None = None
        self._lifecycle = anyio.Lock()
        self._session_users: dict[str, str] = {}
        self._unit: ContextVar[_Unit | None] = ContextVar(f"supabase_store_unit_{id(self)}", default=None)

    async def open(self) -> None:
        async with self._lifecycle:
            if self._client is not None:
                return
            from supabase import AClientOptions, acreate_client

            http = httpx.AsyncClient(timeout=self._timeout, verify=tls_context())
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

    async def check_ready(self) -> None:
        if self._client is None:
            raise StoreError("The store is not open; call open() first.")
        await self._check_schema()

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

    def in_transaction(self) -> bool:
        return self._unit.get() is not None

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

    # -- whom a call acts for ---------------------------------------------------------------

    def _require_user(self, user_id: str) -> str:
        """The scope of a user call; a call without a user is refused, never upgraded."""
        if not isinstance(user_id, str) or not user_id:
            raise StoreError("This call needs a user; calls without one are refused.", field="user_id")
        return uuid_key(user_id)

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

    # -- requests ---------------------------------------------------------------------------

    def _postgrest(self) -> AsyncPostgrestClient:
        if self._client is None:
            raise StoreError("The store is not open; call open() first.")
        return self._client.postgrest

    def _rpc(self, function: str, params: dict[str, Any], *, count: bool = False) -> AsyncRPCFilterRequestBuilder:
        """A call of one of our SQL functions (with `count`, PostgREST counts the rows it returns).

        postgrest annotates `params` as dict[str, str], but PostgREST sends any JSON.
        """
        return self._postgrest().rpc(function, cast("dict[str, str]", params), count=EXACT_COUNT if count else None)

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

    async def _submit_all(self, ops: list[dict[str, Any]], actor: str) -> None:
        """Several writes that belong together: one call outside a unit, buffered in order inside one."""
        if self._unit.get() is None:
            await self._apply(ops, actor, dry_run=False, table=None)
            return
        for op in ops:
            await self._submit(op, actor, None)

    async def _apply(self, ops: list[dict[str, Any]], actor: str | None, *, dry_run: bool, table: Table | None) -> Any:
        builder = self._rpc("alfred_apply", {"ops": ops, "dry_run": dry_run})
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
