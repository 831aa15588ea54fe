"""Entity curation: which session refs the roles see, as decided by Understand (seed 004).

Curation changes visibility only. The registry keeps every ref and its row mapping whatever the
model says; here we record which refs are retained beyond the automatic recency window, which
are hidden (dropped, or everything before a `clear_all`), and a short decision log that the next
Understand pass reads. Turns are passed in; nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Container, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, Field

from alfred_mcp.errors import UnknownRefError
from alfred_mcp.kitchen.jsonschema import describe_value, field_value
from alfred_mcp.state.refs import parse_ref

CurationAction = Literal["retain", "demote", "drop", "clear_all", "ignored", "note"]

DECISION_LOG_LIMIT = 20
DEFAULT_WINDOW = 2
_UNKNOWN_REF = "not a ref this session knows"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RetentionDecision(_Model):
    """An older ref kept in view."""

    ref: str = Field(max_length=64, description="The ref kept.")
    reason: str = Field(max_length=200, description="Why it still matters.")


class EntityCuration(_Model):
    """What stays in view (nothing is deleted)."""

    retain_active: list[RetentionDecision] = Field(
        default_factory=list, description="Older refs to keep in view, with why."
    )
    demote: list[str] = Field(default_factory=list, description="Refs out of view (still known).")
    drop: list[str] = Field(
        default_factory=list, description="Refs to forget; hidden until named again."
    )
    clear_all: bool = Field(default=False, description="Fresh start: hide all not used from now on.")
    curation_summary: str | None = Field(
        default=None, max_length=300, description="A line for the next Understand."
    )


class Retention(_Model):
    """Why a ref is retained, and the turn it was decided."""

    reason: str
    turn: int


class DecisionLogEntry(_Model):
    """One curation decision, as shown to later Understand passes."""

    turn: int
    action: CurationAction
    ref: str | None = None
    reason: str | None = None


class CurationState(_Model):
    """The curation side of a session, persisted between turns."""

    retained: dict[str, Retention] = Field(default_factory=dict)
    dropped: dict[str, int] = Field(default_factory=dict, description="ref -> the turn it was dropped.")
    cleared_at_turn: int | None = None
    decision_log: list[DecisionLogEntry] = Field(default_factory=list, description=f"The last {DECISION_LOG_LIMIT}.")

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CurationState:
        return cls.model_validate(data)


class RegistryEntry(Protocol):
    """What curation reads from a registry entry (the registry's RefEntry fits)."""

    @property
    def ref(self) -> str: ...
    @property
    def action(self) -> str: ...
    @property
    def turn_created(self) -> int: ...
    @property
    def turn_last_ref(self) -> int: ...
    @property
    def deleted_turn(self) -> int | None: ...


class RetainedRef(NamedTuple):
    ref: str
    reason: str


@dataclass(frozen=True)
class ActiveSet:
    """The refs in view this turn: recent ones, and older ones Understand retained (disjoint)."""

    recent: list[str]
    retained: list[RetainedRef]


@dataclass
class _Draft:
    """Working copy while one curation is applied."""

    turn: int
    retained: dict[str, Retention]
    dropped: dict[str, int]
    log: list[DecisionLogEntry] = field(default_factory=list)

    def note(self, action: CurationAction, ref: str | None, reason: str | None) -> None:
        self.log.append(DecisionLogEntry(turn=self.turn, action=action, ref=ref, reason=reason))


def apply_curation(
    state: CurationState, curation: EntityCuration, *, turn: int, known_refs: Collection[str]
) -> CurationState:
    """Apply one turn's curation: clear_all, then retain, demote, drop (the stricter decision wins).

    Refs outside `known_refs` are skipped and logged as 'ignored'; nothing raises (callers refuse
    them first with `check_curation_refs`). The log keeps the last `DECISION_LOG_LIMIT` entries.
    """
    draft = _Draft(turn=turn, retained=dict(state.retained), dropped=dict(state.dropped))
    cleared_at = state.cleared_at_turn
    if curation.clear_all:
        draft.retained.clear()
        cleared_at = turn
        draft.note("clear_all", None, curation.curation_summary)
    for decision in _unique_decisions(curation.retain_active):
        if _known(draft, decision.ref, known_refs):
            draft.retained[decision.ref] = Retention(reason=decision.reason, turn=turn)
            draft.dropped.pop(decision.ref, None)
            draft.note("retain", decision.ref, decision.reason)
    for ref in dict.fromkeys(curation.demote):
        if _known(draft, ref, known_refs):
            draft.retained.pop(ref, None)
            draft.note("demote", ref, curation.curation_summary)
    for ref in dict.fromkeys(curation.drop):
        if _known(draft, ref, known_refs):
            draft.retained.pop(ref, None)
            draft.dropped[ref] = turn
            draft.note("drop", ref, curation.curation_summary)
    if not draft.log and curation.curation_summary:
        draft.note("note", None, curation.curation_summary)
    log = [*state.decision_log, *draft.log][-DECISION_LOG_LIMIT:]
    return CurationState(retained=draft.retained, dropped=draft.dropped, cleared_at_turn=cleared_at, decision_log=log)


def check_curation_refs(curation: EntityCuration, known_refs: Container[str], *, field: str = "curation") -> None:
    """Every ref a curation names must be one the session knows (a deleted one still counts).

    Raises:
        UnknownRefError: naming the field, e.g. 'curation.drop[0]'.
    """
    named = [(f"{field}.retain_active[{i}].ref", d.ref) for i, d in enumerate(curation.retain_active)]
    named += [(f"{field}.demote[{i}]", ref) for i, ref in enumerate(curation.demote)]
    named += [(f"{field}.drop[{i}]", ref) for i, ref in enumerate(curation.drop)]
    for where, ref in named:
        if ref not in known_refs:
            raise UnknownRefError(
                f"{where}: {describe_value(ref)} is not a ref this session knows; curate only refs from the entity context.",
                field=where, value=field_value(ref),
            )


def _unique_decisions(decisions: Iterable[RetentionDecision]) -> list[RetentionDecision]:
    """One decision per ref; the last reason given wins."""
    return list({decision.ref: decision for decision in decisions}.values())


def _known(draft: _Draft, ref: str, known_refs: Collection[str]) -> bool:
    if ref in known_refs:
        return True
    draft.note("ignored", ref, _UNKNOWN_REF)
    return False


def active_entities(
    state: CurationState, entries: Iterable[RegistryEntry], *, turn: int, window: int = DEFAULT_WINDOW
) -> ActiveSet:
    """The refs the roles see at `turn`.

    recent: not deleted, not 'linked', and last touched at most `window` turns ago
    (`turn - turn_last_ref <= window`: with the default, this turn and the two before it), unless
    hidden. A dropped ref is hidden until it is touched in a later turn than its drop. After a
    clear_all at turn c, a ref is hidden unless it was created in turn c or later or touched after
    c (curation runs at the start of a turn, so what that turn creates comes after the clear).
    retained: refs Understand retained, with reasons, that are not deleted and not already recent.
    """
    live = [entry for entry in entries if entry.deleted_turn is None and entry.action != "deleted"]
    recent = sorted((e.ref for e in live if _is_recent(state, e, turn=turn, window=window)), key=_ref_order)
    shown = set(recent)
    retained = [
        RetainedRef(e.ref, state.retained[e.ref].reason) for e in live if e.ref in state.retained and e.ref not in shown
    ]
    return ActiveSet(recent=recent, retained=sorted(retained, key=lambda item: _ref_order(item.ref)))


def _is_recent(state: CurationState, entry: RegistryEntry, *, turn: int, window: int) -> bool:
    if entry.action == "linked" or turn - entry.turn_last_ref > window:
        return False
    return not (_hidden_by_drop(state, entry) or _hidden_by_clear(state, entry))


def _hidden_by_drop(state: CurationState, entry: RegistryEntry) -> bool:
    dropped_at = state.dropped.get(entry.ref)
    return dropped_at is not None and entry.turn_last_ref <= dropped_at


def _hidden_by_clear(state: CurationState, entry: RegistryEntry) -> bool:
    cleared = state.cleared_at_turn
    return cleared is not None and entry.turn_last_ref <= cleared and entry.turn_created < cleared


def _ref_order(ref: str) -> tuple[Any, ...]:
    """recipe_2 before recipe_10; drafts after saved rows of their type; odd strings last."""
    parsed = parse_ref(ref)
    if parsed is None:
        return (1, ref)
    return (0, parsed.entity_type, parsed.generated, parsed.number)
