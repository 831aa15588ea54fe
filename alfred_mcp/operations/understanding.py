"""Understand's submission: touch the refs it names, curate the working set, merge the constraints.

Constraints are compiled once per turn and merged deterministically (`state/constraints.py`);
the permanent part (allergies, dislikes) is always read fresh from the preferences row. A
constraint about one ref must name a ref the session knows, a dropped one a constraint in force (else nothing is
changed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import PREFERENCES
from alfred_mcp.operations.history import record_message
from alfred_mcp.operations.windows import config_of
from alfred_mcp.session import Session, UnitOfWork
from alfred_mcp.session.documents import CONSTRAINTS, CURATION, UNDERSTANDING
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.constraints import (
    CompiledConstraints,
    Constraint,
    ConstraintSnapshot,
    MergeResult,
    SessionConstraints,
    compile_constraints,
    describe_constraint,
    drop_matches,
    held_constraints,
    merge_constraints,
    permanent_from_preferences,
)
from alfred_mcp.state.context import ContextConfig
from alfred_mcp.state.curation import CurationState, DecisionLogEntry, EntityCuration, apply_curation, check_curation_refs
from alfred_mcp.state.stated_phrases import with_stated
from alfred_mcp.state.understanding import Understanding
from alfred_mcp.store.base import KitchenStore, Row


def curation_of(session: Session) -> CurationState:
    return session.read(CURATION) or CurationState()


def constraints_of(session: Session) -> SessionConstraints:
    """The session's constraints as stored (the permanent part may be stale: see current_constraints)."""
    return session.read(CONSTRAINTS) or SessionConstraints()


async def preferences_row(store: KitchenStore, user_id: str) -> Row | None:
    rows = await store.select(PREFERENCES, Query(limit=1), user_id=user_id)
    return rows[0] if rows else None


def with_permanent(session: Session, preferences: Row | None) -> SessionConstraints:
    """The session's constraints with the permanent part taken from the preferences row."""
    return constraints_of(session).model_copy(update={"permanent": permanent_from_preferences(preferences or {})})


async def current_constraints(work: UnitOfWork) -> SessionConstraints:
    """The session's constraints with the permanent part read fresh from the preferences row."""
    return with_permanent(work.session, await preferences_row(work.store, work.user_id))


async def read_constraints(work: UnitOfWork, tool: str) -> SessionConstraints:
    """The constraints as a tool shows them (`current_constraints`), the read noted in the turn's call log: Reply of a
    turn that read them is given them (state/context.py)."""
    current = await current_constraints(work)
    work.session.record_call(CallRecord(turn=work.session.turn, tool=tool, action="read"))
    return current


async def compiled_constraints(work: UnitOfWork) -> CompiledConstraints:
    return compile_constraints(await current_constraints(work))


def scoped_refs(snapshot: ConstraintSnapshot) -> list[tuple[str, str]]:
    """(where, ref) of every constraint of the snapshot that is about one ref."""
    return [(f"constraint_snapshot.{name}[{index}].about", constraint.about)
            for name, constraints in (("new_constraints", snapshot.new_constraints), ("overrides", snapshot.overrides))
            for index, constraint in enumerate(constraints) if constraint.about is not None]


def check_drops(names: Sequence[str], held: Sequence[Constraint]) -> None:
    """Raises InputError naming `constraint_snapshot.drop[i]` when a name drops nothing the goal or occasion holds
    (nothing is changed); the error lists what a drop may name."""
    for index, name in enumerate(names):
        if not any(drop_matches(constraint, name) for constraint in held):
            shown = "; ".join(sorted({describe_constraint(c) + (f" ({c.about})" if c.about else "") for c in held})) or "none"
            raise InputError(f"constraint_snapshot.drop[{index}] {name!r} names no constraint in force (in force: {shown}); "
                             "allergies and dislikes change through the preferences.",
                             field=f"constraint_snapshot.drop[{index}]", value=name)


@dataclass(frozen=True)
class Submitted:
    """What an understanding submission changed: the merge result and this turn's decisions."""

    merge: MergeResult
    curation: CurationState
    decisions: list[DecisionLogEntry]


async def submit_understanding(
    work: UnitOfWork,
    *,
    message: str | None,
    referenced: Sequence[str],
    curation: EntityCuration,
    snapshot: ConstraintSnapshot,
    config: ContextConfig | None = None,
) -> Submitted:
    """Touch the referenced refs, apply the curation and merge the snapshot, with the substitutions and what stays that
    the message states in fixed forms and the snapshot left out (`state/stated_phrases.py`); all or nothing.

    Raises:
        UnknownRefError: a referenced or curated ref this session never assigned (nothing is changed).
    """
    session = work.session
    config = config or config_of(work)
    registry = session.registry
    refs = list(dict.fromkeys(referenced))
    for index, ref in enumerate(referenced):
        if ref not in registry:
            registry.resolve(ref, field=f"referenced_refs[{index}]")  # raises: not a ref, or unknown, naming the field
    for where, ref in scoped_refs(snapshot):
        if ref not in registry:
            registry.resolve(ref, field=where)  # a constraint about a ref this session never assigned
    snapshot = with_stated(snapshot, message, {ref: registry.entry(ref).label for ref in refs})
    current = await current_constraints(work)
    if not snapshot.reset_all:
        check_drops(snapshot.drop, held_constraints(current))
    turn = session.turn
    known = frozenset(entry.ref for entry in registry.entries())
    check_curation_refs(curation, known)
    curated = apply_curation(curation_of(session), curation, turn=turn, known_refs=known)
    merge = merge_constraints(
        current, snapshot, turn=turn, config=config.reset,
        user_message=message, entities_referenced=bool(refs),
    )
    understanding = Understanding(turn=turn, message=message, referenced=refs, curation=curation, snapshot=snapshot,
                                  rejected=merge.rejected, reset_reason=merge.reset_reason)
    if message:
        record_message(session, message, config)
    for ref in refs:
        registry.mark_named(ref, turn=turn)
    session.write(CURATION, curated)
    session.write(CONSTRAINTS, merge.constraints)
    session.write(UNDERSTANDING, understanding)
    session.record_call(CallRecord(turn=turn, tool="understanding_submit", refs=refs, count=len(refs),
                                   note=curation.curation_summary))
    # The entries this curation added are what it logs on an empty state (the log is capped).
    added = len(apply_curation(CurationState(), curation, turn=turn, known_refs=known).decision_log)
    return Submitted(merge, curated, curated.decision_log[-added:] if added else [])
