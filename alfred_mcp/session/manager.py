"""Which session a call acts on: the user's current one or a named one, cached and locked.

The 2026-07-28 protocol has no connection session, so a user has a *current* session (created on
first use) and may name another (`session_2`). Sessions live in the store and survive restarts;
the manager keeps a process cache so a call does not reload the registry, and serializes calls
on one session. Saving is the unit of work's job (`unit_of_work.py`).
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

import anyio

from alfred_mcp.errors import UnknownSessionError
from alfred_mcp.session.session import Session
from alfred_mcp.state.registry import SessionIdRegistry
from alfred_mcp.store.base import SessionRecord, Store

_SESSION_NAME = re.compile(r"^session_([1-9][0-9]{0,8})$")
_HELD: ContextVar[frozenset[str]] = ContextVar("alfred_sessions_held", default=frozenset())
"""Sessions whose lock this task already holds: a turn run by `chat` calls tools on its own session."""
_MAX_CURRENT_MOVES = 3
RESIDENT_REFS = 2_000
"""Refs a session loads when it is opened: all of them up to this many, else the most recently assigned
this many, the others loaded when a call names them (so start-up does not grow with the session)."""


class SessionManager:
    """Finds, creates and caches sessions for the users of one store."""

    def __init__(self, store: Store, *, retention: int | None = None) -> None:
        """`retention`: turns of per-turn documents a session keeps (None: all)."""
        self._store = store
        self._retention = retention
        self._cache: dict[str, Session] = {}
        self._current: dict[str, Session] = {}
        self._open_lock = anyio.Lock()
        self._orphans: dict[str, dict[str, Any]] = {}
        """Call-log entries of dropped copies (write-behind not yet saved), replayed into the next copy loaded."""

    async def resolve(self, user_id: str, name: str | None = None) -> Session:
        """The session called `name`, or the user's current one (created on first use).

        Raises:
            UnknownSessionError: `name` is not one of the user's sessions.
        """
        if name is None and user_id in self._current:
            return self._current[user_id]
        async with self._open_lock:
            record = await self._find_record(user_id, name)
            session = self._cache.get(record.session_id) or await self._load(record)
            if name is None:
                self._current[user_id] = session
            return session

    async def start(self, user_id: str) -> tuple[Session, str | None]:
        """Open a new session, make it current; returns it and the previous current name."""
        async with self._open_lock:
            previous = await self._store.current_session(user_id)
            record = await self._store.create_session(user_id)
            session = await self._load(record)
            self._current[user_id] = session
            return session, previous.name if previous else None

    def forget(self, session: Session) -> None:
        """Drop the cached copy so the next call reloads it from the store (after a failure).

        What the copy held for write-behind (completed calls' log entries) is kept and replayed into
        the next copy, so a failed call never takes earlier calls' log entries with it.
        """
        self._keep_orphans(session)
        self._cache.pop(session.record.session_id, None)
        if self._current.get(session.user_id) is session:
            del self._current[session.user_id]

    def holds(self, session: Session) -> bool:
        """True while `session` is the cached copy (a dropped copy must not be saved any more)."""
        return self._cache.get(session.record.session_id) is session

    def deferred(self, older_than: float) -> list[Session]:
        """Cached sessions holding write-behind changes left at least `older_than` seconds ago."""
        now = time.monotonic()
        return [s for s in self._cache.values() if s.deferred_since is not None and now - s.deferred_since >= older_than]

    def _keep_orphans(self, session: Session) -> None:
        calls = session.deferred_calls()
        if calls:
            self._orphans.setdefault(session.record.session_id, {}).update(calls)

    @asynccontextmanager
    async def acting_on(self, user_id: str, name: str | None = None) -> AsyncIterator[Session]:
        """Serialize calls on one session, on its latest saved state; on any failure the cache is dropped.

        Another process may have saved the session (or started a new current one) since this
        one cached it: one cheap version query per call finds out, and a stale copy is reloaded.
        """
        session = await self.resolve(user_id, name)
        held = _HELD.get()
        if session.record.session_id in held:
            yield session
            return
        session = await self._lock_fresh(session, user_id, name)
        token = _HELD.set(held | {session.record.session_id})
        try:
            yield session
        except BaseException:
            self.forget(session)
            raise
        finally:
            _HELD.reset(token)
            session.lock.release()

    async def _lock_fresh(self, session: Session, user_id: str, name: str | None) -> Session:
        """`session` (or the user's new current one) locked and in step with the store."""
        for _ in range(_MAX_CURRENT_MOVES):
            await session.lock.acquire()
            try:
                stored = await self._store.session_version(session.record.session_id)
                if stored is not None and (name is not None or stored.current):
                    if stored.number != session.version:
                        await self._reload(session)
                    return session
            except BaseException:
                self.forget(session)
                session.lock.release()
                raise
            session.lock.release()
            self.forget(session)
            if name is not None:
                raise UnknownSessionError(f"Session '{name}' no longer exists.", field="session", value=name)
            session = await self.resolve(user_id, None)  # another process started a new current session
        raise UnknownSessionError("The current session keeps changing; retry the call.", field="session")

    async def _find_record(self, user_id: str, name: str | None) -> SessionRecord:
        if name is None:
            record = await self._store.current_session(user_id)
            return record if record is not None else await self._store.create_session(user_id)
        match = _SESSION_NAME.match(name)
        record = await self._store.get_session(user_id, int(match.group(1))) if match else None
        if record is None:
            raise UnknownSessionError(
                f"Unknown session '{name}'. Use session_start for a new one, or omit 'session' for the current one.",
                field="session", value=name,
            )
        return record

    async def _load(self, record: SessionRecord) -> Session:
        session = Session(record=record, registry=SessionIdRegistry([], {}), turn=record.turn, retention=self._retention)
        await self._reload(session)
        self._cache[record.session_id] = session
        return session

    async def _reload(self, session: Session) -> None:
        """Replace the session's state with the stored one (the version is read first, so a save
        landing meanwhile makes this copy look older than it is: the next save conflicts, never overwrites)."""
        stored = await self._store.session_version(session.record.session_id)
        if stored is None:
            raise UnknownSessionError(f"Session '{session.name}' no longer exists.", field="session", value=session.name)
        source = self._store.ref_source(session.record.session_id)
        recent = RESIDENT_REFS if source is not None else None
        entries, counters = await self._store.load_session_state(session.record.session_id, recent=recent)
        registry = SessionIdRegistry(entries, counters, source=source)
        registry.clear_dirty()
        documents = await self._store.load_documents(session.record.session_id)
        self._keep_orphans(session)
        session.replace_state(registry, stored.turn, documents, stored.number)
        session.replay_calls(self._orphans.pop(session.record.session_id, {}))
