"""A session's history: the conversation (what was said) and the turn narratives (what was done).

Closing a turn stores its narrative, built from its call log and documents, and folds the one
leaving the whole window; the conversation keeps the last exchanges verbatim and folds older ones.
"""

from __future__ import annotations

from alfred_mcp.errors import StateError
from alfred_mcp.session import Session
from alfred_mcp.session.documents import AGENT_TURNS, CONVERSATION, NARRATIVE_INDEX, NARRATIVES, PLANS, UNDERSTANDING
from alfred_mcp.state.context import DEFAULT_CONFIG, ContextConfig
from alfred_mcp.state.conversation import ConversationHistory, record_reply, record_user_message, without_turn
from alfred_mcp.state.folding import FoldedLines, fold_line
from alfred_mcp.state.narrative import TurnExecutionSummary, narrative_line, summarize_turn
from alfred_mcp.state.understanding import NarrativeIndex, Understanding


def conversation_of(session: Session) -> ConversationHistory:
    return session.read(CONVERSATION) or ConversationHistory()


def understanding_of(session: Session, turn: int) -> Understanding | None:
    """The understanding submitted in `turn`, if any."""
    found = session.read(UNDERSTANDING)
    return found if found is not None and found.turn == turn else None


def record_message(session: Session, message: str, config: ContextConfig = DEFAULT_CONFIG) -> None:
    """Record the user's message of the current turn in the conversation history."""
    session.write(CONVERSATION, record_user_message(conversation_of(session), session.turn, message, config=config.conversation))


def record_assistant_reply(
    session: Session, reply: str, config: ContextConfig = DEFAULT_CONFIG, *, flow: dict[str, str] | None = None
) -> ConversationHistory:
    """Record Alfred's reply of the current turn (and its tone, what the user expressed, the next step offered)."""
    history = record_reply(conversation_of(session), session.turn, reply, config=config.conversation, flow=flow)
    session.write(CONVERSATION, history)
    return history


def forget_exchange(session: Session) -> None:
    """Leave the current turn out of the conversation: its message was never answered (the model failed)."""
    session.write(CONVERSATION, without_turn(conversation_of(session), session.turn))


def summarize_current(session: Session, turn: int | None = None) -> TurnExecutionSummary:
    """The narrative of `turn` (default: the current one) from its call log and documents."""
    turn = session.turn if turn is None else turn
    understanding = understanding_of(session, turn)
    exchange = conversation_of(session).exchange(turn)
    return summarize_turn(
        turn,
        session.calls(turn),
        user_message=(exchange.user if exchange else None) or (understanding.message if understanding else None),
        reply=exchange.assistant if exchange else None,
        curation=understanding.curation if understanding else None,
        snapshot=understanding.snapshot if understanding else None,
        plan=session.read(PLANS.at(turn)),
    )


def turn_has_activity(session: Session) -> bool:
    """True when the current turn already holds a call, a message or an agent turn: a new message starts the next one."""
    turn = session.turn
    return bool(session.calls(turn)) or conversation_of(session).exchange(turn) is not None or session.has(AGENT_TURNS.at(turn))


def begin_turn(session: Session, message: str | None, config: ContextConfig = DEFAULT_CONFIG) -> TurnExecutionSummary | None:
    """Start the turn of a new user message: the current turn is closed and the counter moves on, unless
    nothing happened in it yet (a fresh session's first message stays in turn 1). Returns the closed narrative."""
    closed = None
    if turn_has_activity(session):
        closed = close_turn(session, config)
        session.turn += 1
    if message:
        record_message(session, message, config)
    return closed


def close_turn(session: Session, config: ContextConfig = DEFAULT_CONFIG) -> TurnExecutionSummary | None:
    """Store the current turn's narrative and fold the one leaving the whole window; None if nothing happened."""
    summary = summarize_current(session)
    if summary.is_empty:
        return None
    index = session.read(NARRATIVE_INDEX) or NarrativeIndex()
    if index.whole and index.whole[-1] >= summary.turn:
        raise StateError(f"Turn {summary.turn} was already closed.", value=summary.turn)
    session.write(NARRATIVES.at(summary.turn), summary)
    whole = [*index.whole, summary.turn]
    folded = index.folded
    while len(whole) > config.narrative_turns:
        oldest = session.read(NARRATIVES.at(whole.pop(0)))
        if oldest is not None:
            folded = fold_line(folded, narrative_line(oldest), turn=oldest.turn, cap=config.narrative_chars)
    session.write(NARRATIVE_INDEX, NarrativeIndex(whole=whole, folded=folded))
    return summary


def recent_narratives(session: Session) -> tuple[list[TurnExecutionSummary], FoldedLines]:
    """The closed turns kept whole (oldest first) and the folded earlier ones."""
    index = session.read(NARRATIVE_INDEX) or NarrativeIndex()
    whole = [found for turn in index.whole if (found := session.read(NARRATIVES.at(turn))) is not None]
    return whole, index.folded
