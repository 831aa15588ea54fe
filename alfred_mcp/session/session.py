"""One conversation's deterministic state as held in memory between calls.

A session is a conversation, not a connection: its registry (refs), its turn counter and its
documents (declared in `documents.py`). Everything that changes is remembered as changed, so a
save writes only that. Only the unit of work (`unit_of_work.py`) saves a session.

Documents are indexed by family (the key up to its last ':'), so reading a turn's call log or
the drafts costs what that family holds, not what the session holds. Per-turn documents older
than the retention window are dropped when the turn moves on (`retention`), so a long session
costs what a short one does.

A read's changes may wait (write-behind): when a call wrote no row and changed only what can be
lost without losing the session's truth (its call-log entry, the last turn a ref was seen), the
unit of work leaves them unsaved (`deferrable`); the next save carries them, and the session
manager flushes them soon after. A new or revived ref is never deferred: a client must not hold
a ref the store does not know.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio

from alfred_mcp.session.documents import (
    CALLS,
    DEFERRABLE,
    NARRATIVE_INDEX,
    NARRATIVES,
    PER_TURN,
    Codec,
    Document,
    DocumentFamily,
    call_key,
    calls_prefix,
    turn_of,
)
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.registry import SessionIdRegistry
from alfred_mcp.store.base import SessionRecord, SessionStore

T = TypeVar("T")


@dataclass
class Session:
    """One conversation's state: record, registry, turn and documents."""

    record: SessionRecord
    registry: SessionIdRegistry
    turn: int
    stored_documents: dict[str, Any] = field(default_factory=dict, repr=False)
    """Every document as stored (JSON), by key; read and write them through `read`/`write`."""
    version: int = 0
    """The stored version this copy was loaded at or last saved as; a save expects it unchanged."""
    lock: anyio.Lock = field(default_factory=anyio.Lock, repr=False)
    saved_turn: int = field(default=0, repr=False)
    retention: int | None = None
    """Turns of per-turn documents kept (the call log, plans, agent turns, folded narratives); None keeps all."""
    deferred_since: float | None = field(default=None, repr=False)
    """When unsaved changes were left for write-behind (monotonic seconds); None when there are none."""
    _changed: dict[str, Any] = field(default_factory=dict, repr=False)
    _groups: dict[str, dict[str, None]] = field(default_factory=dict, repr=False)
    _deferred_keys: set[str] = field(default_factory=set, repr=False)
    _fresh: set[str] = field(default_factory=set, repr=False)
    """Keys changed since the last save or deferral (what the running call changed)."""
    _decoded: dict[str, tuple[Any, Any]] = field(default_factory=dict, repr=False)
    """key -> (stored JSON, value) for immutable documents: a draft is parsed once, not at every read."""
    _kept_from: int | None = field(default=None, repr=False)
    """Per-turn documents of turns before this one are gone (None: not looked at since loading)."""

    def __post_init__(self) -> None:
        self.saved_turn = self.turn
        self._index(self.stored_documents)

    # -- documents ----------------------------------------------------------------------------

    def read(self, document: Document[T]) -> T | None:
        """The document's value, or None when the session has none."""
        stored = self.stored_documents.get(document.key)
        return None if stored is None else self._decode(document.key, document.codec, stored)

    def _decode(self, key: str, codec: Codec[T], stored: Any) -> T:
        if not codec.immutable:
            return codec.load(stored)
        cached = self._decoded.get(key)
        if cached is not None and cached[0] is stored:
            return cached[1]  # type: ignore[no-any-return]
        value = codec.load(stored)
        self._decoded[key] = (stored, value)
        return value

    def write(self, document: Document[T], value: T | None) -> None:
        """Set the document (None deletes it); saved with the session."""
        stored = None if value is None else document.codec.dump(value)
        self._put(document.key, stored)
        if document.codec.immutable and value is not None:
            self._decoded[document.key] = (stored, value)

    def _put(self, key: str, stored: Any) -> None:
        name = _group(key)
        if stored is None:
            self.stored_documents.pop(key, None)
            group = self._groups.get(name, {})
            group.pop(key, None)
            if not group:
                self._groups.pop(name, None)
        else:
            self.stored_documents[key] = stored
            self._groups.setdefault(name, {})[key] = None
        self._changed[key] = stored
        self._fresh.add(key)

    def _index(self, documents: dict[str, Any]) -> None:
        self._groups = {}
        for key in documents:
            self._groups.setdefault(_group(key), {})[key] = None

    def _family_keys(self, prefix: str) -> list[str]:
        """Keys starting with `prefix`, found through the groups (a few dozen), not the documents."""
        return [
            key for name, keys in self._groups.items() if name.startswith(prefix) or prefix.startswith(name)
            for key in keys if key.startswith(prefix)
        ]

    def has(self, document: Document[Any]) -> bool:
        return document.key in self.stored_documents

    def read_family(self, family: DocumentFamily[T]) -> dict[str, T]:
        """Every document of `family`, by suffix (in the order they were loaded or added)."""
        return {family.suffix_of(key): self._decode(key, family.codec, self.stored_documents[key])
                for key in self._family_keys(family.prefix)}

    def family_suffixes(self, family: DocumentFamily[Any]) -> list[str]:
        """The suffixes present in `family` (nothing is parsed)."""
        return [family.suffix_of(key) for key in self._family_keys(family.prefix)]

    # -- the call log ---------------------------------------------------------------------------

    def record_call(self, record: CallRecord) -> None:
        """Add a tool call to its turn's log (saved with the session)."""
        turn_calls = self._groups.get(calls_prefix(record.turn).prefix, {})
        last = max(turn_calls, default=None)
        self.write(call_key(record.turn, 1 + (int(last.rsplit(":", 1)[1]) if last else 0)), record)

    def calls(self, turn: int) -> list[CallRecord]:
        """The tool calls recorded in `turn`, in order."""
        records = self.read_family(calls_prefix(turn))
        return [records[seq] for seq in sorted(records)]

    # -- identity and persistence ---------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.record.name

    @property
    def user_id(self) -> str:
        return self.record.user_id

    @property
    def has_changes(self) -> bool:
        """True when a save would write something."""
        return bool(self._changed) or self.turn != self.saved_turn or self.registry.has_dirty()

    @property
    def deferrable(self) -> bool:
        """True when every unsaved change may wait (write-behind): no new or revived ref, no moved turn,
        no document but the call log. Refs a client saw are then already in the store."""
        return (
            self.turn == self.saved_turn
            and not self.registry.has_durable_changes()
            and all(key.startswith(_DEFERRABLE_PREFIXES) for key in self._fresh)
        )

    def defer(self) -> None:
        """Leave the unsaved changes for write-behind (the next save, or the manager's flush)."""
        self._deferred_keys |= self._fresh
        self._fresh = set()
        if self.deferred_since is None:
            self.deferred_since = time.monotonic()

    def deferred_calls(self) -> dict[str, Any]:
        """Call-log entries left for write-behind by calls that completed (key -> stored JSON): what a dropped
        copy of the session would lose. Changes of a call still running are not among them."""
        keys = sorted((key for key in self._deferred_keys if key.startswith(CALLS.prefix)), key=_call_order)
        return {key: self._changed[key] for key in keys if self._changed.get(key) is not None}

    def replay_calls(self, stored: dict[str, Any]) -> None:
        """Append call-log entries a dropped copy left unsaved (from `deferred_calls`), in their order."""
        for raw in stored.values():
            self.record_call(CALLS.codec.load(raw))
        if stored:
            self.defer()

    async def save(self, store: SessionStore) -> None:
        """Write what changed since the last save (refs, counters, turn, documents), if anything did.

        Call it only from the unit of work, inside the call's transaction: the save bumps the
        stored version only if nobody else saved since this copy was loaded. Moving to a new turn
        first drops the per-turn documents that fell out of the retention window.

        Raises:
            SessionConflictError: another call saved the session first; nothing was written.
        """
        if self.turn != self.saved_turn and self.retention is not None:
            self._drop_turns_before(self.turn - self.retention)
        if not self.has_changes:
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
        self.deferred_since = None
        self._deferred_keys = set()
        self._fresh = set()

    def _drop_turns_before(self, first_kept: int) -> None:
        """Delete per-turn documents of turns before `first_kept` (narratives still kept whole stay).

        The first time after loading every per-turn key is looked at; later only the turns the
        window moved past, so moving on a turn costs the same at turn 1,000 as at turn 20.
        """
        if self._kept_from is not None and first_kept <= self._kept_from:
            return
        index = self.read(NARRATIVE_INDEX)
        whole = set(index.whole) if index is not None else set()
        if self._kept_from is None:
            doomed = [(family, key) for family in PER_TURN for key in self._family_keys(family.prefix)
                      if (turn := turn_of(family, key)) is not None and turn < first_kept]
        else:
            doomed = [(family, key) for turn in range(self._kept_from, first_kept) for family in PER_TURN
                      for key in self._turn_keys(family, turn)]
        for family, key in doomed:
            if not (family is NARRATIVES and turn_of(family, key) in whole):
                self._put(key, None)
        self._kept_from = first_kept

    def _turn_keys(self, family: DocumentFamily[Any], turn: int) -> list[str]:
        """The keys of `family` for one turn: a group of its own (the call log) or one key."""
        if family is CALLS:
            return list(self._groups.get(calls_prefix(turn).prefix, {}))
        key = family.at(turn).key
        return [key] if key in self.stored_documents else []

    def replace_state(self, registry: SessionIdRegistry, turn: int, documents: dict[str, Any], version: int) -> None:
        """Take the stored state as this copy's (a reload)."""
        self.registry = registry
        self.turn = self.saved_turn = turn
        self.stored_documents = documents
        self.version = version
        self._changed = {}
        self.deferred_since = None
        self._deferred_keys = set()
        self._fresh = set()
        self._kept_from = None
        self._decoded = {}
        self._index(documents)


_DEFERRABLE_PREFIXES = tuple(family.prefix for family in DEFERRABLE)


def _group(key: str) -> str:
    """A document's family group: its key up to and including the last ':' ('' when it has none)."""
    return key[: key.rfind(":") + 1]


def _call_order(key: str) -> tuple[int, int]:
    turn, seq = CALLS.suffix_of(key).split(":")
    return int(turn), int(seq)
