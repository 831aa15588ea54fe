"""A session's turn lifecycle and context state: understanding, narratives, conversation, inputs.

This is the I/O side of `state/` context modules: it reads and writes the session documents
named in `state/turn_state.py`, reads the user's preferences from the store, and hands plain
values to the pure functions (merge, curation, narrative, conversation, context builders).
Callers hold the session lock and save the session afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from alfred_mcp.dashboard import build_dashboard
from alfred_mcp.errors import StateError, UnknownRefError
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import PREFERENCES
from alfred_mcp.session import Session
from alfred_mcp.state.constraints import (
    CompiledConstraints,
    ConstraintSnapshot,
    MergeResult,
    SessionConstraints,
    compile_constraints,
    merge_constraints,
    permanent_from_preferences,
)
from alfred_mcp.state.context import DEFAULT_CONFIG, ContextConfig, ContextInputs
from alfred_mcp.state.conversation import ConversationHistory, record_reply, record_user_message
from alfred_mcp.state.curation import CurationState, DecisionLogEntry, EntityCuration, apply_curation
from alfred_mcp.state.drafts import Draft
from alfred_mcp.state.folding import FoldedLines, fold_line
from alfred_mcp.state.ledger import CallRecord
from alfred_mcp.state.narrative import TurnExecutionSummary, TurnPlan, narrative_line, summarize_turn
from alfred_mcp.state.turn_state import (
    CONSTRAINTS_KEY,
    CONVERSATION_KEY,
    CURATION_KEY,
    DRAFT_PREFIX,
    NARRATIVE_DIGEST_KEY,
    UNDERSTANDING_KEY,
    NarrativeIndex,
    Understanding,
    narrative_key,
    plan_key,
)
from alfred_mcp.state.working_set import DraftView
from alfred_mcp.store.base import Row, Store

_PROFILE_HIDDEN = ("id", "user_id", "created_at", "updated_at")


# -- reading the session's documents ----------------------------------------------------------


def curation_of(session: Session) -> CurationState:
    data = session.document(CURATION_KEY)
    return CurationState.from_dict(data) if data else CurationState()


def constraints_of(session: Session) -> SessionConstraints:
    data = session.document(CONSTRAINTS_KEY)
    return SessionConstraints.model_validate(data) if data else SessionConstraints()


def conversation_of(session: Session) -> ConversationHistory:
    data = session.document(CONVERSATION_KEY)
    return ConversationHistory.model_validate(data) if data else ConversationHistory()


def narrative_index_of(session: Session) -> NarrativeIndex:
    data = session.document(NARRATIVE_DIGEST_KEY)
    return NarrativeIndex.model_validate(data) if data else NarrativeIndex()


def understanding_of(session: Session, turn: int) -> Understanding | None:
    """The understanding submitted in `turn`, if any."""
    data = session.document(UNDERSTANDING_KEY)
    found = Understanding.model_validate(data) if data else None
    return found if found is not None and found.turn == turn else None


def narrative_of(session: Session, turn: int) -> TurnExecutionSummary | None:
    data = session.document(narrative_key(turn))
    return TurnExecutionSummary.model_validate(data) if data else None


def calls_in(session: Session, turn: int) -> list[CallRecord]:
    return session.calls(turn)


def pending_drafts(session: Session) -> list[DraftView]:
    """The session's drafts still waiting to be saved (documents `draft:<gen_ref>`)."""
    views = []
    for data in session.documents_with_prefix(DRAFT_PREFIX).values():
        draft = Draft.from_dict(data)
        if draft.status == "pending":
            views.append(DraftView(draft.ref, draft.entity_type, draft.label))
    return views


async def preferences_row(store: Store, user_id: str) -> Row | None:
    rows = await store.select(PREFERENCES, Query(limit=1), user_id=user_id)
    return rows[0] if rows else None


def profile_of(row: Row | None) -> dict[str, Any] | None:
    """The preferences row as the roles see it: no ids, no timestamps."""
    return None if row is None else {key: value for key, value in row.items() if key not in _PROFILE_HIDDEN}


async def current_constraints(store: Store, session: Session) -> SessionConstraints:
    """The session's constraints with the permanent part read fresh from the preferences row."""
    row = await preferences_row(store, session.user_id)
    permanent = permanent_from_preferences(row or {})
    return constraints_of(session).model_copy(update={"permanent": permanent})


async def compiled_constraints(store: Store, session: Session) -> CompiledConstraints:
    return compile_constraints(await current_constraints(store, session))


# -- understanding ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Submitted:
    """What an understanding submission changed: the merge result and this turn's decisions."""

    merge: MergeResult
    curation: CurationState
    decisions: list[DecisionLogEntry]


async def submit_understanding(
    store: Store,
    session: Session,
    *,
    message: str | None,
    referenced: Sequence[str],
    curation: EntityCuration,
    snapshot: ConstraintSnapshot,
    config: ContextConfig = DEFAULT_CONFIG,
) -> Submitted:
    """Touch the referenced refs, apply the curation and merge the snapshot; all or nothing.

    Raises:
        UnknownRefError: a referenced ref this session never assigned (nothing is changed).
    """
    registry = session.registry
    refs = list(dict.fromkeys(referenced))
    for ref in refs:
        try:
            registry.entry(ref)
        except UnknownRefError as error:
            error.fields["field"] = "referenced"
            raise
    turn = session.turn
    known = frozenset(entry.ref for entry in registry.entries())
    curated = apply_curation(curation_of(session), curation, turn=turn, known_refs=known)
    merge = merge_constraints(
        await current_constraints(store, session), snapshot, turn=turn, config=config.reset,
        user_message=message, entities_referenced=bool(refs),
    )
    understanding = Understanding(turn=turn, message=message, referenced=refs, curation=curation, snapshot=snapshot,
                                  rejected=merge.rejected, reset_reason=merge.reset_reason)
    if message:
        record_message(session, message, config)
    for ref in refs:
        registry.touch(ref, turn=turn)
    session.put_document(CURATION_KEY, curated.to_dict())
    session.put_document(CONSTRAINTS_KEY, merge.constraints.model_dump(mode="json"))
    session.put_document(UNDERSTANDING_KEY, understanding.model_dump(mode="json", exclude_defaults=True))
    session.record_call(CallRecord(turn=turn, tool="understanding_submit", refs=refs, count=len(refs),
                                   note=curation.curation_summary))
    # The entries this curation added are what it logs on an empty state (the log is capped).
    added = len(apply_curation(CurationState(), curation, turn=turn, known_refs=known).decision_log)
    return Submitted(merge, curated, curated.decision_log[-added:] if added else [])


# -- conversation -----------------------------------------------------------------------------


def record_message(session: Session, message: str, config: ContextConfig = DEFAULT_CONFIG) -> None:
    """Record the user's message of the current turn in the conversation history."""
    history = record_user_message(conversation_of(session), session.turn, message, config=config.conversation)
    session.put_document(CONVERSATION_KEY, history.model_dump(mode="json", exclude_defaults=True))


def record_assistant_reply(session: Session, reply: str, config: ContextConfig = DEFAULT_CONFIG) -> ConversationHistory:
    """Record Alfred's reply of the current turn in the conversation history."""
    history = record_reply(conversation_of(session), session.turn, reply, config=config.conversation)
    session.put_document(CONVERSATION_KEY, history.model_dump(mode="json", exclude_defaults=True))
    return history


# -- narratives -------------------------------------------------------------------------------


def summarize_current(session: Session, turn: int | None = None) -> TurnExecutionSummary:
    """The narrative of `turn` (default: the current one) from its ledger and documents."""
    turn = session.turn if turn is None else turn
    understanding = understanding_of(session, turn)
    exchange = conversation_of(session).exchange(turn)
    plan_data = session.document(plan_key(turn))
    return summarize_turn(
        turn,
        calls_in(session, turn),
        user_message=(exchange.user if exchange else None) or (understanding.message if understanding else None),
        reply=exchange.assistant if exchange else None,
        curation=understanding.curation if understanding else None,
        snapshot=understanding.snapshot if understanding else None,
        plan=TurnPlan.model_validate(plan_data) if plan_data else None,
    )


def close_turn(session: Session, config: ContextConfig = DEFAULT_CONFIG) -> TurnExecutionSummary | None:
    """Store the current turn's narrative and fold the one leaving the whole window; None if nothing happened."""
    summary = summarize_current(session)
    if summary.is_empty:
        return None
    index = narrative_index_of(session)
    if index.whole and index.whole[-1] >= summary.turn:
        raise StateError(f"Turn {summary.turn} was already closed.", value=summary.turn)
    session.put_document(narrative_key(summary.turn), summary.model_dump(mode="json", exclude_defaults=True))
    whole = [*index.whole, summary.turn]
    folded = index.folded
    while len(whole) > config.narrative_turns:
        oldest = narrative_of(session, whole.pop(0))
        if oldest is not None:
            folded = fold_line(folded, narrative_line(oldest), turn=oldest.turn, cap=config.narrative_chars)
    session.put_document(NARRATIVE_DIGEST_KEY, NarrativeIndex(whole=whole, folded=folded).model_dump(mode="json"))
    return summary


def recent_narratives(session: Session) -> tuple[list[TurnExecutionSummary], FoldedLines]:
    """The closed turns kept whole (oldest first) and the folded earlier ones."""
    index = narrative_index_of(session)
    whole = [found for turn in index.whole if (found := narrative_of(session, turn)) is not None]
    return whole, index.folded


# -- everything a role's context is built from ------------------------------------------------


async def context_inputs(
    store: Store, session: Session, *, today: date, with_dashboard: bool = True, user_message: str | None = None
) -> ContextInputs:
    """Read the session and the store into the plain values the context builders take."""
    row = await preferences_row(store, session.user_id)
    permanent = permanent_from_preferences(row or {})
    compiled = compile_constraints(constraints_of(session).model_copy(update={"permanent": permanent}))
    dashboard = await build_dashboard(store, session, today=today) if with_dashboard else None
    narratives, digest = recent_narratives(session)
    conversation = conversation_of(session)
    current = summarize_current(session)
    return ContextInputs(
        turn=session.turn,
        user_message=user_message or current.user_message,
        entries=session.registry.entries(),
        curation=curation_of(session),
        constraints=compiled,
        drafts=pending_drafts(session),
        narratives=narratives,
        narrative_digest=digest,
        current=current,
        conversation=conversation,
        profile=profile_of(row),
        dashboard=dashboard,
        today=today.isoformat(),
    )
