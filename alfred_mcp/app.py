"""The composition root: one store, its sessions, its users and the agent's model, opened once per process.

`AlfredApp` wires the parts every driver shares (the MCP server in `server/`, the headless CLI):
the store chosen by the settings, the session manager over it, the users calls act for, the model.
On stdio every call acts for the one local user. Over HTTP there is no local user: each
request's bearer token names its user (`server/auth.py`), and the call runs `acting_as` that user.
Users are stored under handles that name their origin (`store/user_origins.py`): a static token's
alice, the local user and an OAuth issuer's alice are three users unless the operator maps them.

Who starts with the demo kitchen: the local user on first run (unless --no-seed), and every new
user when `--demo` is given. A new HTTP user otherwise starts with an empty kitchen.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import date
from typing import cast

import anyio

from alfred_mcp.agent.llm.base import LLM
from alfred_mcp.agent.llm.factory import llm_from_settings
from alfred_mcp.agent.llm.traced import TracedModel
from alfred_mcp.config import ModelOptions, Settings
from alfred_mcp.errors import ConfigError
from alfred_mcp.operations.seeding import seed_if_empty
from alfred_mcp.session import CallScope, SessionManager, UnitOfWork, unit_of_work
from alfred_mcp.session.id_noting import IdNotingStore
from alfred_mcp.session.journal import JournalingStore
from alfred_mcp.session.unit_of_work import flush_deferred, write_behind
from alfred_mcp.store.base import Store
from alfred_mcp.store.factory import open_store, supabase_store
from alfred_mcp.store.traced import TracedStore
from alfred_mcp.store.user_origins import former_handle, local_user, mapped

logger = logging.getLogger(__name__)

def _kept_turns(settings: Settings) -> int | None:
    """Turns of per-turn records a session keeps: the ledger window, never fewer than the roles see (None: all)."""
    if not settings.ledger_turns:
        return None
    return max(settings.ledger_turns, settings.turns.turn_retention + 1)


_acting: ContextVar[str | None] = ContextVar("alfred_acting_user", default=None)
"""The authenticated user of the current request (None: the local user, on stdio)."""


@dataclass
class AlfredApp:
    """Store + sessions + the users calls act for (one local user on stdio, token users over HTTP)."""

    store: Store
    settings: Settings = field(default_factory=Settings)
    llm: LLM | None = None
    """The model `chat` and the headless CLI run turns with (None: clients drive turns themselves)."""
    model_options: ModelOptions = field(default_factory=ModelOptions)
    """JSON mode, timeout, token and turn budgets of the agent's model calls."""
    model_error: ConfigError | None = None
    """Why the configured model is unusable: only what needs a model (chat, run, the chat tool) fails with it."""
    serves_many: bool = False
    """HTTP: every call must come with an authenticated user; there is no local user to fall back to."""
    sessions: SessionManager = field(init=False)
    journaled: JournalingStore = field(init=False)
    """The store as units of work see it: their kitchen writes are journaled for kitchen_undo."""
    _user_id: str | None = field(default=None, init=False)
    _opened: int = field(default=0, init=False)
    _users: dict[str, str] = field(default_factory=dict, init=False)
    _users_lock: anyio.Lock = field(default_factory=anyio.Lock, init=False)

    def __post_init__(self) -> None:
        noted = IdNotingStore(self.store)  # the leak guard knows the ids a request handled (state/known_ids.py)
        self.sessions = SessionManager(cast(Store, noted), retention=_kept_turns(self.settings))
        self.journaled = JournalingStore(cast(Store, noted))

    @classmethod
    def from_settings(cls, settings: Settings, *, traced: bool = False, needs_model: bool = False) -> AlfredApp:
        """The app for `settings`; `traced`: its store and model calls open OpenTelemetry spans (`server/tracing.py`);
        `needs_model`: the caller refuses to start without the model (`model_error`), so it is not also logged."""
        store = supabase_store(settings.supabase) if settings.supabase else open_store(settings.db)
        app = cls(store=cast(Store, TracedStore(store)) if traced else store, settings=settings)
        if settings.model:
            try:
                app.model_options = ModelOptions.from_env(overrides=settings.model_overrides)
                model = llm_from_settings(settings.model, options=app.model_options)
                app.llm = TracedModel(model) if traced else model
            except ConfigError as error:
                if not needs_model:
                    logger.warning("%s (only chat, run and the chat tool need the model; everything else works)", error.message)
                app.model_error = error
        return app

    async def open(self) -> None:
        """Open the store, make sure the user exists, seed the demo kitchen on first run.

        Re-entrant: every open() is matched by a close(); the store closes with the last one.
        """
        self._opened += 1
        if self._opened > 1:
            return
        await self.store.open()
        if not self.serves_many:
            self._user_id = await self.user_for(local_user(self.settings.user))

    async def user_for(self, identity: str) -> str:
        """The user id for `identity` (a handle naming its origin, `store/user_origins.py`), created (and given the
        demo kitchen, if they get one) on first use; the operator's user map may point it at another handle."""
        known = self._users.get(identity)
        if known is not None:
            return known
        async with self._users_lock:
            if identity not in self._users:
                handle = mapped(self.settings.user_map, identity)
                user_id = await self.store.ensure_user(handle, formerly=former_handle(handle))
                if self.gets_demo_kitchen and await seed_if_empty(self.store, user_id, today=date.today()):
                    logger.info("seeded the demo kitchen for user %r", handle)
                self._users[identity] = user_id
            return self._users[identity]

    @property
    def gets_demo_kitchen(self) -> bool:
        """A new user starts with the demo kitchen: with --demo, or as the local user unless --no-seed."""
        return self.settings.demo or (self.settings.seed_demo and not self.serves_many)

    @contextmanager
    def acting_as(self, user_id: str) -> Iterator[None]:
        """Calls inside the block act for `user_id` (an authenticated request's user)."""
        token = _acting.set(user_id)
        try:
            yield
        finally:
            _acting.reset(token)

    def work(
        self, call: str, *, session: str | None = None, table: str | None = None, log_refusals: bool = True
    ) -> AbstractAsyncContextManager[UnitOfWork]:
        """One call on the user's session `session` (None: the current one), as a unit of work.

        `call` names it in the turn's call log when it is refused (tool calls; not reads of resources or prompts).
        """
        scope = CallScope(call, table, log_refusals)
        return unit_of_work(self.sessions, self.journaled, self.user_id, session, scope, self.settings.turns)

    @asynccontextmanager
    async def writing_behind(self) -> AsyncIterator[None]:
        """While the block runs, reads' deferred session changes are saved within a second (a server's life)."""
        async with anyio.create_task_group() as group:
            group.start_soon(write_behind, self.sessions, self.store)
            try:
                yield
            finally:
                group.cancel_scope.cancel()

    async def close(self) -> None:
        """Save what reads left for write-behind; the store closes with the last close()."""
        self._opened -= 1
        if self._opened == 0:
            await flush_deferred(self.sessions, self.store)
            await self.store.close()

    def acting_user(self) -> str | None:
        """The user the current call acts for, or None where there is none (never raises)."""
        return _acting.get() or self._user_id

    @property
    def user_id(self) -> str:
        """The user the current call acts for: the request's authenticated user, else the local one."""
        acting = _acting.get()
        if acting is not None:
            return acting
        if self.serves_many:
            raise RuntimeError("a call reached the kitchen without an authenticated user; refused")
        if self._user_id is None:
            raise RuntimeError("AlfredApp.open() was not awaited")
        return self._user_id
