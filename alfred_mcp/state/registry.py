"""SessionIdRegistry: the session's refs, each mapped to a database row id (or a draft).

A ref is assigned the first time the system sees a row (a read, a write, a foreign key) and
is never reused in the session: counters only grow, and a deleted ref stays known, with its
label, so errors can say what happened to it. `gen_<type>_<n>` refs name generated drafts;
saving one links it to the saved row's ref. All lookups are dict lookups, both ways; turns are
passed in and nothing here does I/O.

A large session's registry is loaded lazily: it starts with its most recent entries (and every
counter, so new refs never collide) and asks its `RefSource` for the others when a lookup misses
(by ref, by row id, or all of them when every entry is needed). The source is given by the store;
the registry only calls it, so start-up costs what the recent entries cost, not the session.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal, Protocol

from alfred_mcp.errors import (
    DeletedRefError,
    InvalidRefError,
    PendingDraftError,
    StateError,
    UnknownRefError,
)
from alfred_mcp.kitchen.jsonschema import describe_value, field_value
from alfred_mcp.kitchen.schema import ENTITY_TYPES, table_for_entity_type
from alfred_mcp.state.refs import Ref, parse_ref

Action = Literal["read", "created", "updated", "deleted", "linked", "generated", "saved", "restored"]
"""What was last done to a ref's row, as contexts show it ('restored': brought back by kitchen_undo after a delete)."""

_KNOWN_TYPES = frozenset(ENTITY_TYPES)
_PREFIXES = {entity_type: f"{entity_type}_" for entity_type in ENTITY_TYPES}
_MAX_RANGES_SHOWN = 8


@dataclass(slots=True)
class RefEntry:
    """One ref and what the session knows about it; persisted field by field."""

    ref: str
    entity_type: str
    row_id: str | None
    """The row's id; None for a gen_* draft (a saved draft points at its row through `saved_as`)."""
    label: str | None
    action: Action
    turn_created: int
    turn_last_ref: int
    deleted_turn: int | None = None
    saved_as: str | None = None
    """For a saved gen_* draft: the ref of the row it was saved as, e.g. 'recipe_12'."""

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _ENTRY_FIELDS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RefEntry:
        return cls(**{name: data[name] for name in _ENTRY_FIELDS if name in data})


_ENTRY_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(RefEntry))


class RefSource(Protocol):
    """Where a lazily loaded registry finds the entries it has not loaded: the session's stored refs.

    Calls are synchronous and answer from committed data; entries this process added and has not
    saved yet are in memory already, so they are never asked for.
    """

    def by_refs(self, refs: Sequence[str]) -> list[RefEntry]:
        """The stored entries of these refs (absent ones left out)."""

    def by_rows(self, row_ids: Sequence[str]) -> list[RefEntry]:
        """The stored entries naming these row ids (absent ones left out)."""

    def everything(self) -> list[RefEntry]:
        """Every stored entry, in ref order (assignment order)."""


class SessionIdRegistry:
    """ref <-> row id for one session, with labels, actions, turns, deletions and drafts."""

    def __init__(
        self, entries: Iterable[RefEntry] = (), counters: Mapping[str, int] | None = None, *, source: RefSource | None = None,
    ) -> None:
        """`entries` and `counters` as stored; with a `source`, `entries` may be a recent part of them."""
        self._source = source
        self._missing_refs: set[str] = set()
        self._missing_rows: set[str] = set()
        """Refs and row ids the source was asked for and does not hold (no ref yet)."""
        self._entries: dict[str, RefEntry] = {}
        self._by_row: dict[str, str] = {}
        self._live: dict[str, str] = {}
        """ref -> row id of saved, not deleted rows: the one dict the hot path of resolve() touches."""
        self._counters: dict[str, int] = dict(counters or {})
        self._dirty: dict[str, None] = {}
        self._durable = False
        """Set by a change that must be saved before a client sees it: a new, revived, deleted or linked ref."""
        for entry in entries:
            self._load(replace(entry))
        if source is not None and len(self._entries) >= sum(self._counters.values()):
            self._source = None  # every entry is loaded already

    @property
    def complete(self) -> bool:
        """True when every entry of the session is in memory."""
        return self._source is None

    # -- lazy loading -----------------------------------------------------------------------

    def prefetch_rows(self, row_ids: Iterable[str]) -> None:
        """Load, in one ask, the entries of these rows that are neither in memory nor known to be absent."""
        if self._source is None:
            return
        wanted = [r for r in dict.fromkeys(row_ids) if r not in self._by_row and r not in self._missing_rows]
        if wanted:
            self._merge(self._source.by_rows(wanted))
            self._missing_rows.update(r for r in wanted if r not in self._by_row)

    def prefetch_refs(self, refs: Iterable[str]) -> None:
        """Load, in one ask, the entries of these refs that are neither in memory nor known to be absent."""
        if self._source is None:
            return
        wanted = [r for r in dict.fromkeys(refs) if isinstance(r, str) and r not in self._entries and r not in self._missing_refs]
        if wanted:
            self._merge(self._source.by_refs(wanted))
            self._missing_refs.update(r for r in wanted if r not in self._entries)

    def load_all(self) -> None:
        """Load every entry (kept in assignment order, entries added since loading last)."""
        if self._source is None:
            return
        stored = self._source.everything()
        self._source = None
        self._merge(stored)
        order = [entry.ref for entry in stored]
        self._entries = {**{ref: self._entries[ref] for ref in order}, **self._entries}

    def _merge(self, stored: Iterable[RefEntry]) -> None:
        for entry in stored:
            if entry.ref not in self._entries:
                self._load(replace(entry))

    def _known_entry(self, ref: str) -> RefEntry | None:
        found = self._entries.get(ref)
        if found is None and self._source is not None and isinstance(ref, str):
            self.prefetch_refs((ref,))
            found = self._entries.get(ref)
        return found

    def _known_row(self, row_id: str) -> str | None:
        found = self._by_row.get(row_id)
        if found is None and self._source is not None:
            self.prefetch_rows((row_id,))
            found = self._by_row.get(row_id)
        return found

    def _load(self, entry: RefEntry) -> None:
        parsed = parse_ref(entry.ref)
        if parsed is None or parsed.entity_type != entry.entity_type or entry.ref in self._entries:
            raise StateError(f"Stored registry entry '{entry.ref}' is malformed or duplicated.", value=entry.ref)
        if entry.row_id is not None:
            if parsed.generated or entry.row_id in self._by_row:
                raise StateError(f"Stored registry entry '{entry.ref}' maps a row twice.", value=entry.ref)
            self._by_row[entry.row_id] = entry.ref
            if entry.deleted_turn is None:
                self._live[entry.ref] = entry.row_id
        key = _counter_key(parsed)
        self._counters[key] = max(self._counters.get(key, 0), parsed.number)
        self._entries[entry.ref] = entry

    # -- assigning refs ---------------------------------------------------------------------

    def register_row(self, entity_type: str, row_id: str, label: str | None, *, turn: int, action: Action) -> str:
        """The row's ref: the one it already has (label, action and turn updated) or the next one.

        A row seen again exists again, so a ref marked deleted is revived.
        """
        ref = self._by_row.get(row_id)
        if ref is None and self._source is not None:
            ref = self._known_row(row_id)
        if ref is None:
            return self._add(entity_type, row_id, label, turn=turn, action=action)
        entry = self._entries[ref]
        _check_same_type(entry, entity_type)
        label = entry.label if label is None else label
        if (entry.label, entry.action, entry.turn_last_ref, entry.deleted_turn) != (label, action, turn, None):
            self._durable = self._durable or entry.deleted_turn is not None or action != "read"
            entry.label, entry.action, entry.turn_last_ref, entry.deleted_turn = label, action, turn, None
            self._live[ref] = row_id
            self._dirty[ref] = None
        return ref

    def register_link(self, entity_type: str, row_id: str, *, turn: int) -> tuple[str, bool]:
        """The ref of a row named by a foreign key: (existing ref, False) or (new 'linked' ref, True)."""
        ref = self._by_row.get(row_id)
        if ref is None and self._source is not None:
            ref = self._known_row(row_id)
        if ref is not None:
            _check_same_type(self._entries[ref], entity_type)
            return ref, False
        return self._add(entity_type, row_id, None, turn=turn, action="linked"), True

    def assign_gen_ref(self, entity_type: str, label: str | None, *, turn: int) -> str:
        """A new draft ref such as 'gen_recipe_1' (action 'generated', no row yet)."""
        return self._add(entity_type, None, label, turn=turn, action="generated")

    def _add(self, entity_type: str, row_id: str | None, label: str | None, *, turn: int, action: Action) -> str:
        if entity_type not in _KNOWN_TYPES:
            raise ValueError(f"unknown entity type {entity_type!r}")
        key = entity_type if row_id is not None else f"gen_{entity_type}"
        number = self._counters.get(key, 0) + 1
        self._counters[key] = number
        ref = f"{key}_{number}"
        self._entries[ref] = RefEntry(ref, entity_type, row_id, label, action, turn, turn)
        if row_id is not None:
            self._by_row[row_id] = ref
            self._live[ref] = row_id
        self._dirty[ref] = None
        self._durable = True
        return ref

    # -- changing entries -------------------------------------------------------------------

    def set_label(self, ref: str, label: str) -> None:
        entry = self.entry(ref)
        if entry.label != label:
            entry.label = label
            self._dirty[ref] = None

    def touch(self, ref: str, *, turn: int) -> None:
        """Record that `ref` was referred to in `turn`."""
        entry = self.entry(ref)
        if entry.turn_last_ref != turn:
            entry.turn_last_ref = turn
            self._dirty[ref] = None

    def mark_named(self, ref: str, *, turn: int) -> None:
        """Record that the model named `ref` in `turn` (Understand's referenced_refs): touched, and a 'linked' ref (a
        foreign-key target or one the dashboard showed, known but not in view) comes into view as one it has read."""
        if self.entry(ref).action == "linked":
            self._set_action(ref, "read", turn)
        self.touch(ref, turn=turn)

    def mark_updated(self, ref: str, *, turn: int) -> None:
        self._set_action(ref, "updated", turn)

    def mark_deleted(self, ref: str, *, turn: int) -> None:
        """Keep the ref and its label, flagged deleted in `turn`; resolve() then refuses it."""
        entry = self._set_action(ref, "deleted", turn)
        if entry.deleted_turn is None:
            entry.deleted_turn = turn
        self._live.pop(ref, None)

    def _set_action(self, ref: str, action: Action, turn: int) -> RefEntry:
        entry = self.entry(ref)
        entry.action = action
        entry.turn_last_ref = turn
        self._dirty[ref] = None
        self._durable = True
        return entry

    def link_saved(self, gen_ref: str, saved_ref: str, *, turn: int) -> None:
        """Record that draft `gen_ref` was saved as `saved_ref`; both then resolve to that row.

        Raises:
            InvalidRefError: `gen_ref` is not a draft, or `saved_ref` is not a saved row of its type.
            StateError: the draft was already saved as another ref.
        """
        draft = self.entry(gen_ref)
        saved = self.entry(saved_ref)
        if not draft.ref.startswith("gen_"):
            raise InvalidRefError(f"'{gen_ref}' is not a draft (gen_ ref).", field="gen_ref", value=gen_ref)
        if saved.row_id is None or saved.entity_type != draft.entity_type:
            raise InvalidRefError(
                f"'{saved_ref}' is not a saved {_noun(draft.entity_type)} ref, so '{gen_ref}' cannot be linked to it.",
                field="saved_ref", value=saved_ref,
            )
        if draft.saved_as not in (None, saved_ref):
            raise StateError(f"{gen_ref} was already saved as {draft.saved_as}.", value=gen_ref)
        draft.action, draft.saved_as, draft.turn_last_ref = "saved", saved_ref, turn
        if saved.label is None and draft.label is not None:
            saved.label = draft.label
        self._dirty[gen_ref] = None
        self._dirty[saved_ref] = None
        self._durable = True

    def unlink_saved(self, gen_ref: str, *, turn: int) -> None:
        """A saved draft whose row an undo removed: pending again, its gen ref no longer names a row."""
        entry = self.entry(gen_ref)
        if entry.saved_as is not None:
            entry.action, entry.saved_as, entry.turn_last_ref = "generated", None, turn
            self._dirty[gen_ref] = None

    # -- looking up -------------------------------------------------------------------------

    def resolve(self, ref: str, *, expected_type: str | None = None, field: str | None = None) -> str:
        """The row id behind `ref`, checked to be a live row of `expected_type`.

        Raises:
            InvalidRefError: not a ref, or a ref of another entity type.
            UnknownRefError: a well-formed ref this session never assigned.
            DeletedRefError: the row was deleted (the message names it and the turn).
            PendingDraftError: a gen_* draft that has not been saved.
        """
        row_id = self._live.get(ref) if isinstance(ref, str) else None
        if row_id is not None and (expected_type is None or ref.startswith(_PREFIXES[expected_type])):
            return row_id
        return self._resolve_slowly(ref, expected_type, field)

    def _resolve_slowly(self, ref: object, expected_type: str | None, field: str | None) -> str:
        parsed = _parse_expected(ref, expected_type, field)
        entry = self.get(str(parsed))
        if entry is not None and entry.row_id is not None and entry.deleted_turn is None:
            return self.resolve(entry.ref, expected_type=expected_type, field=field)  # loaded just now
        if entry is None:
            raise self._unknown(parsed, field)
        if entry.deleted_turn is not None:
            raise _deleted(entry, field)
        if entry.row_id is not None:
            return entry.row_id
        if entry.saved_as is None:
            where = f"{field}: " if field else ""
            raise PendingDraftError(
                f"{where}{_named(entry)} is a draft that has not been saved; save it with draft_save and use the new ref.",
                field=field, value=entry.ref,
            )
        saved = self.entry(entry.saved_as)
        if saved.deleted_turn is not None:
            raise _deleted(saved, field, via=entry.ref)
        return self.resolve(entry.saved_as, expected_type=expected_type, field=field)

    def _unknown(self, parsed: Ref, field: str | None) -> UnknownRefError:
        self.load_all()  # the message lists the refs the session knows
        table = table_for_entity_type(parsed.entity_type)
        prefix = f"gen_{parsed.entity_type}" if parsed.generated else parsed.entity_type
        numbers = [
            _ref_number(e.ref) for e in self._entries.values()
            if e.entity_type == parsed.entity_type and e.deleted_turn is None and e.ref.startswith("gen_") == parsed.generated
        ]
        known = _compact(prefix, numbers) if numbers else f"no {prefix} refs yet"
        hint = "only drafts generated in this session have gen refs" if parsed.generated else f"read {table.name} to get refs"
        where = f"{field}: " if field else ""
        return UnknownRefError(f"{where}Unknown ref '{parsed}': this session knows {known}; {hint}.", field=field, value=str(parsed))

    def ref_for_row(self, row_id: str) -> str | None:
        """The ref of a row (deleted ones included), or None if the session has not seen it."""
        found = self._by_row.get(row_id)
        return found if found is not None or self._source is None else self._known_row(row_id)

    def holds_any_row(self, row_ids: list[str]) -> bool:
        """True when any of these row ids has a ref in this session (one ask of the store for those not in memory)."""
        self.prefetch_rows(row_ids)
        return any(row_id in self._by_row for row_id in row_ids)

    def entry(self, ref: str) -> RefEntry:
        """The entry of `ref` (a live object: change it only through the registry).

        Raises:
            UnknownRefError: the session never assigned `ref`.
        """
        found = self._known_entry(ref)
        if found is not None:
            return found
        parsed = parse_ref(ref)
        if parsed is None:
            raise UnknownRefError(f"{describe_value(ref)} is not a ref; use refs such as recipe_1.", value=field_value(ref))
        raise self._unknown(parsed, None)

    def get(self, ref: str) -> RefEntry | None:
        found = self._entries.get(ref)
        return found if found is not None or self._source is None else self._known_entry(ref)

    def entries(self) -> list[RefEntry]:
        """Every entry, in assignment order (a lazily loaded registry loads them all first)."""
        self.load_all()
        return list(self._entries.values())

    def counters(self) -> dict[str, int]:
        """Last number used per entity type ('recipe') and per draft type ('gen_recipe')."""
        return dict(self._counters)

    def dirty_entries(self) -> list[RefEntry]:
        """Entries added or changed since loading or the last clear_dirty(), in first-change order."""
        return [self._entries[ref] for ref in self._dirty]

    def has_dirty(self) -> bool:
        """True when an entry changed since loading or the last clear_dirty()."""
        return bool(self._dirty)

    def has_durable_changes(self) -> bool:
        """True when an unsaved change must reach the store before the call returns (see `_durable`);
        a read that only saw known rows again (label, last turn seen) has none."""
        return self._durable

    def clear_dirty(self) -> None:
        self._dirty.clear()
        self._durable = False

    def __len__(self) -> int:
        """How many refs the session has assigned (each counter is the last number of its kind)."""
        return len(self._entries) if self._source is None else sum(self._counters.values())

    def __contains__(self, ref: object) -> bool:
        return isinstance(ref, str) and self._known_entry(ref) is not None


def _counter_key(parsed: Ref) -> str:
    return f"gen_{parsed.entity_type}" if parsed.generated else parsed.entity_type


def _ref_number(ref: str) -> int:
    return int(ref.rsplit("_", 1)[1])


def _check_same_type(entry: RefEntry, entity_type: str) -> None:
    if entry.entity_type != entity_type:
        raise StateError(f"A {_noun(entity_type)} row is already known as {entry.ref}.", value=entry.ref)


def _noun(entity_type: str) -> str:
    return table_for_entity_type(entity_type).noun


def _named(entry: RefEntry) -> str:
    return f"{entry.ref} ({entry.label})" if entry.label else entry.ref


def _parse_expected(ref: object, expected_type: str | None, field: str | None) -> Ref:
    """Parse `ref`, or raise InvalidRefError saying which ref the field takes."""
    parsed = parse_ref(ref)
    wanted = f"a {_noun(expected_type)} ref ({expected_type}_N)" if expected_type else "a ref such as recipe_1"
    subject = f"{field} takes {wanted}" if field else f"Expected {wanted}"
    if parsed is None:
        raise InvalidRefError(
            f"{subject}; {describe_value(ref)} is not a ref. Use the refs reads return, not raw ids or names.",
            field=field, value=field_value(ref), expected=f"{expected_type}_N" if expected_type else None,
        )
    if expected_type is not None and parsed.entity_type != expected_type:
        draft = " draft" if parsed.generated else ""
        raise InvalidRefError(
            f"{subject}; '{parsed}' is a {_noun(parsed.entity_type)}{draft}.",
            field=field, value=str(parsed), expected=f"{expected_type}_N",
        )
    return parsed


def _deleted(entry: RefEntry, field: str | None, *, via: str | None = None) -> DeletedRefError:
    subject = f"{via} was saved as {_named(entry)}, which" if via else _named(entry)
    verb = "discarded" if entry.row_id is None and entry.saved_as is None else "deleted"
    where = f"{field}: " if field else ""
    return DeletedRefError(
        f"{where}{subject} was {verb} in turn {entry.deleted_turn}.",
        field=field, value=via or entry.ref, label=entry.label, deleted_turn=entry.deleted_turn,
    )


def _compact(prefix: str, numbers: list[int]) -> str:
    """[1, 2, 3, 4, 7] -> 'recipe_1..recipe_4, recipe_7' (at most a few ranges, then a count)."""
    ranges: list[tuple[int, int]] = []
    for number in sorted(numbers):
        if ranges and number == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], number)
        else:
            ranges.append((number, number))
    shown = [f"{prefix}_{a}" if a == b else f"{prefix}_{a}..{prefix}_{b}" for a, b in ranges[:_MAX_RANGES_SHOWN]]
    rest = len(ranges) - _MAX_RANGES_SHOWN
    return ", ".join(shown) + (f" and {rest} more ranges" if rest > 0 else "")
