"""Conversation sessions: which session a call acts on, its registry, and saving it atomically.

A session is a conversation, not a connection: the 2026-07-28 protocol has no connection
session, so a user has a *current* session (created on first use) and may name another
(`session_2`). Sessions live in the store and survive restarts; this module keeps a process
cache so a call does not reload the registry, and writes back only what changed.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import anyio

from alfred_mcp.errors import UnknownSessionError
from alfred_mcp.state.ledger import CallRecord, calls_of, ledger_key, ledger_prefix, to_document
from alfred_mcp.state.registry import SessionIdRegistry
from alfred_mcp.store.base import SessionRecord, Store

_SESSION_NAME = re.compile(r"^session_([1-9][0-9]{0,8})$")
_HELD: ContextVar[frozenset[str]] = ContextVar("alfred_sessions_held", default=frozenset())
"""Sessions whose lock this task already holds: a turn run by `chat` calls tools on its own session."""
_MAX_CURRENT_MOVES = 3


@dataclass
class Session:
    """One conversation's deterministic state, as held in memory between calls."""

    record: SessionRecord
    registry: SessionIdRegistry
    turn: int
    documents: dict[str, Any] = field(default_factory=dict, repr=False)
    """JSON state beside the registry (drafts, batches, constraints, ...), by key."""
    version: int = 0
    """The stored version this copy was loaded at or last saved as; a save expects it unchanged."""
    lock: anyio.Lock = field(default_factory=anyio.Lock, repr=False)
    saved_turn: int = field(default=0, repr=False)
    _changed: dict[str, Any] = field(default_factory=dict, repr=False)
    _ledger_seq: dict[int, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.saved_turn = self.turn

    def document(self, key: str, default: Any = None) -> Any:
        return self.documents.get(key, default)

    def put_document(self, key: str, value: Any) -> None:
        """Set a JSON document (None deletes it); saved with the session."""
        if value is None:
            self.documents.pop(key, None)
        else:
            self.documents[key] = value
        self._changed[key] = value

    def record_call(self, record: CallRecord) -> None:
        """Add a tool call to its turn's ledger (saved with the session)."""
        seq = self._ledger_seq.get(record.turn)
        if seq is None:
            seq = len(self.documents_with_prefix(ledger_prefix(record.turn)))
        self._ledger_seq[record.turn] = seq + 1
        self.put_document(ledger_key(record.turn, seq + 1), to_document(record))

    def calls(self, turn: int) -> list[CallRecord]:
        """The tool calls recorded in `turn`, in order."""
        return calls_of(self.documents_with_prefix(ledger_prefix(turn)))

    def documents_with_prefix(self, prefix: str) -> dict[str, Any]:
        return {key: value for key, value in self.documents.items() if key.startswith(prefix)}

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def user_id(self) -> str:
        return self.record.user_id

    async def save(self, store: Store) -> None:
        """Write what changed since the last save (refs, counters, turn, documents), if anything did.

        The save bumps the stored version only if nobody else saved since this copy was loaded,
        so two replicas cannot interleave one session (call it inside the call's transaction).

        Raises:
            SessionConflictError: another call saved the session first; nothing was written.
        """
        if not self._changed and self.turn == self.saved_turn and not self.registry.dirty_entries():
            return
        await store.save_session_state(
            self.record.session_id,
            turn=self.turn,
            entries=self.registry.dirty_entries(),
            counters=self.registry.counters(),
            expected_version=self.version,
            documents=self._changed,
        )
        self._changed = {}
        self.registry.clear_dirty()
        self.saved_turn = self.turn
        self.version += 1


class SessionManager:
    """Finds, creates and caches sessions for the users of one store."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._cache: dict[str, Session] = {}
        self._current: dict[str, Session] = {}
        self._open_lock = anyio.Lock()

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
        """Drop the cached copy so the next call reloads it from the store (after a failure)."""
        self._cache.pop(session.record.session_id, None)
        if self._current.get(session.user_id) is session:
            del self._current[session.user_id]

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
        session = Session(record=record, registry=SessionIdRegistry([], {}), turn=record.turn)
        await self._reload(session)
        self._cache[record.session_id] = session
        return session

    async def _reload(self, session: Session) -> None:
        """Replace the session's state with the stored one (the version is read first, so a save
        landing meanwhile makes this copy look older than it is: the next save conflicts, never overwrites)."""
        stored = await self._store.session_version(session.record.session_id)
        if stored is None:
            raise UnknownSessionError(f"Session '{session.name}' no longer exists.", field="session", value=session.name)
        entries, counters = await self._store.load_session_state(session.record.session_id)
        registry = SessionIdRegistry(entries, counters)
        registry.clear_dirty()
        session.registry = registry
        session.turn = session.saved_turn = stored.turn
        session.documents = await self._store.load_documents(session.record.session_id)
        session.version = stored.number
        session._changed = {}
        session._ledger_seq = {}
