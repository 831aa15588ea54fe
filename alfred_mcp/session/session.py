"""One conversation's deterministic state as held in memory between calls.

A session is a conversation, not a connection: its registry (refs), its turn counter and its
documents (declared in `documents.py`). Everything that changes is remembered as changed, so a
save writes only that. Only the unit of work (`unit_of_work.py`) saves a session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio

from alfred_mcp.session.documents import Document, DocumentFamily, call_key, calls_prefix
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
    _changed: dict[str, Any] = field(default_factory=dict, repr=False)
    _call_seq: dict[int, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.saved_turn = self.turn

    # -- documents ----------------------------------------------------------------------------

    def read(self, document: Document[T]) -> T | None:
        """The document's value, or None when the session has none."""
        stored = self.stored_documents.get(document.key)
        return None if stored is None else document.codec.load(stored)

    def write(self, document: Document[T], value: T | None) -> None:
        """Set the document (None deletes it); saved with the session."""
        stored = None if value is None else document.codec.dump(value)
        if stored is None:
            self.stored_documents.pop(document.key, None)
        else:
            self.stored_documents[document.key] = stored
        self._changed[document.key] = stored

    def has(self, document: Document[Any]) -> bool:
        return document.key in self.stored_documents

    def read_family(self, family: DocumentFamily[T]) -> dict[str, T]:
        """Every document of `family`, by suffix (in the order they were loaded or added)."""
        return {family.suffix_of(key): family.codec.load(value) for key, value in self.stored_documents.items()
                if key.startswith(family.prefix)}

    def family_suffixes(self, family: DocumentFamily[Any]) -> list[str]:
        """The suffixes present in `family` (nothing is parsed)."""
        return [family.suffix_of(key) for key in self.stored_documents if key.startswith(family.prefix)]

    # -- the call log ---------------------------------------------------------------------------

    def record_call(self, record: CallRecord) -> None:
        """Add a tool call to its turn's log (saved with the session)."""
        seq = self._call_seq.get(record.turn)
        if seq is None:
            seq = len(self.family_suffixes(calls_prefix(record.turn)))
        self._call_seq[record.turn] = seq + 1
        self.write(call_key(record.turn, seq + 1), record)

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
        return bool(self._changed) or self.turn != self.saved_turn or bool(self.registry.dirty_entries())

    async def save(self, store: SessionStore) -> None:
        """Write what changed since the last save (refs, counters, turn, documents), if anything did.

        Call it only from the unit of work, inside the call's transaction: the save bumps the
        stored version only if nobody else saved since this copy was loaded.

        Raises:
            SessionConflictError: another call saved the session first; nothing was written.
        """
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

    def replace_state(self, registry: SessionIdRegistry, turn: int, documents: dict[str, Any], version: int) -> None:
        """Take the stored state as this copy's (a reload)."""
        self.registry = registry
        self.turn = self.saved_turn = turn
        self.stored_documents = documents
        self.version = version
        self._changed = {}
        self._call_seq = {}
