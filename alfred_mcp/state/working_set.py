"""The working set: which entities the roles see this turn, in four groups (seeds 001, 004).

Recent (touched in the entity window), retained (older, kept by Understand with a reason),
pending drafts (generated, not saved) and excluded (dropped, or demoted this turn). Every
entity appears once: gen refs show only as pending drafts, and a saved draft only as its saved
ref. What is not in view stays known (`others`); curation never removes a registry mapping.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from alfred_mcp.state.curation import DEFAULT_WINDOW, CurationState, RegistryEntry, active_entities
from alfred_mcp.state.refs import parse_ref


class Entry(RegistryEntry, Protocol):
    """What the working set reads from a registry entry: curation's view plus type and label."""

    @property
    def entity_type(self) -> str: ...
    @property
    def label(self) -> str | None: ...


@dataclass(frozen=True)
class DraftView:
    """A pending draft as the roles see it."""

    ref: str
    entity_type: str
    label: str


@dataclass(frozen=True)
class EntityLine:
    """One entity in view: its ref, label, last action and, where there is one, why it is listed."""

    ref: str
    entity_type: str
    label: str | None
    action: str
    turn_last_ref: int
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = {"ref": self.ref, "entity_type": self.entity_type, "label": self.label, "action": self.action,
                "turn_last_ref": self.turn_last_ref}
        return data if self.reason is None else {**data, "reason": self.reason}


@dataclass(frozen=True)
class WorkingSet:
    """The entities in view at one turn, grouped, and the known ones out of view."""

    turn: int
    recent: list[EntityLine]
    retained: list[EntityLine]
    pending: list[DraftView]
    excluded: list[EntityLine]
    others: list[Entry]
    """Known, live refs out of view (drafts and rows only named by a foreign key left out), in registry order."""
    cleared_at: int | None
    known: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "recent": [line.to_dict() for line in self.recent],
            "retained": [line.to_dict() for line in self.retained],
            "pending_drafts": [{"ref": d.ref, "entity_type": d.entity_type, "label": d.label} for d in self.pending],
            "excluded": [line.to_dict() for line in self.excluded],
            "cleared_at_turn": self.cleared_at,
            "known_refs": self.known,
            "out_of_view": len(self.others),
        }


def build_working_set(
    entries: Sequence[Entry],
    curation: CurationState,
    drafts: Iterable[DraftView],
    *,
    turn: int,
    window: int = DEFAULT_WINDOW,
) -> WorkingSet:
    """Group the session's entities for `turn`; deterministic for the same inputs.

    A dropped or demoted ref stays out of view until it is touched in a later turn; it is listed
    as excluded while the decision is within the window. A draft dropped, or created before a
    clear_all, is not listed as pending (it stays a draft; naming it brings it back).
    """
    by_ref = {entry.ref: entry for entry in entries}
    active = active_entities(curation, entries, turn=turn, window=window)
    aside = _set_aside(curation, by_ref)
    excluded = [
        _line(by_ref[ref], reason) for ref, (at, reason) in sorted(aside.items(), key=lambda item: _order(item[0]))
        if turn - at <= window
    ]
    recent = [_line(by_ref[ref]) for ref in active.recent if _shown(ref, aside)]
    retained = [_line(by_ref[item.ref], item.reason) for item in active.retained if _shown(item.ref, aside)]
    pending = [d for d in drafts if not _draft_hidden(curation, by_ref.get(d.ref), aside)]
    in_view = {line.ref for line in excluded + recent + retained}
    others = [e for e in entries if e.ref not in in_view and _is_other(e)]
    return WorkingSet(
        turn=turn, recent=recent, retained=retained, pending=sorted(pending, key=lambda d: _order(d.ref)),
        excluded=excluded, others=others, cleared_at=curation.cleared_at_turn, known=len(by_ref),
    )


def _set_aside(curation: CurationState, by_ref: dict[str, Entry]) -> dict[str, tuple[int, str]]:
    """Live refs dropped or demoted and not touched since: ref -> (decision turn, why)."""
    decided: dict[str, tuple[int, str]] = {}
    for ref, at in curation.dropped.items():
        decided[ref] = (at, f"dropped in turn {at}")
    for entry in curation.decision_log:
        if entry.ref is not None and entry.action in ("drop", "demote"):
            verb = "dropped" if entry.action == "drop" else "demoted"
            why = f"{verb} in turn {entry.turn}" + (f": {entry.reason}" if entry.reason else "")
            if entry.turn >= decided.get(entry.ref, (0, ""))[0]:
                decided[entry.ref] = (entry.turn, why)
    return {
        ref: decision for ref, decision in decided.items()
        if ref in by_ref and by_ref[ref].deleted_turn is None and by_ref[ref].turn_last_ref <= decision[0]
    }


def _shown(ref: str, aside: Mapping[str, object]) -> bool:
    return ref not in aside and not ref.startswith("gen_")


def _draft_hidden(curation: CurationState, entry: Entry | None, aside: Mapping[str, object]) -> bool:
    if entry is None:
        return False
    if entry.ref in aside:
        return True
    cleared = curation.cleared_at_turn
    return cleared is not None and entry.turn_last_ref <= cleared and entry.turn_created < cleared


def _is_other(entry: Entry) -> bool:
    """Known, live, and once in the conversation: not a draft, not a row only named by a foreign key or the dashboard."""
    return entry.deleted_turn is None and entry.action not in ("deleted", "linked") and not entry.ref.startswith("gen_")


def _line(entry: Entry, reason: str | None = None) -> EntityLine:
    return EntityLine(entry.ref, entry.entity_type, entry.label, entry.action, entry.turn_last_ref, reason)


def _order(ref: str) -> tuple[Any, ...]:
    parsed = parse_ref(ref)
    return (1, ref) if parsed is None else (0, parsed.entity_type, parsed.generated, parsed.number)
