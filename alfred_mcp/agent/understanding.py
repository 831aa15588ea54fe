"""Where a turn's outputs meet the session's context state (understanding, plan, conversation)."""

from __future__ import annotations

from alfred_mcp.operations import history, understanding
from alfred_mcp.session import Session, UnitOfWork
from alfred_mcp.session.documents import PLANS
from alfred_mcp.state.agent_turn import TurnState
from alfred_mcp.state.cards import READ_TOOLS, cards_within
from alfred_mcp.state.context import ContextConfig
from alfred_mcp.state.narrative import MAX_CARD, Decision, PlannedStep, TurnPlan
from alfred_mcp.state.role_outputs import UnderstandOutput


async def apply_understanding(work: UnitOfWork, output: UnderstandOutput, *, user_message: str) -> None:
    """Touch the referenced refs, apply the curation (visibility only), merge the constraint snapshot."""
    await understanding.submit_understanding(
        work, message=user_message, referenced=output.referenced_refs,
        curation=output.curation, snapshot=output.constraint_snapshot,
    )


def record_plan(session: Session, state: TurnState) -> None:
    """Think's plan and each step's outcome, for this turn's narrative."""
    if state.plan is None:
        return
    steps = [
        PlannedStep(
            description=s.step.description[:300], step_type=s.step.step_type, subdomain=s.step.subdomain,
            outcome=(s.result_summary or s.status)[:300], note=(s.note_for_next_step or None) and s.note_for_next_step[:300],
            refs=[ref for call in s.tool_calls for ref in call.refs][:50], status=s.status,
            card=cards_within([c.card for c in s.tool_calls if c.ok and c.card and c.tool in READ_TOOLS], MAX_CARD),
        )
        for s in [*state.superseded_steps, *state.steps]
    ]
    plan = TurnPlan(decision=plan_decision(state), goal=state.plan.goal[:300], steps=steps)
    session.write(PLANS.at(state.turn), plan)


def plan_decision(state: TurnState) -> Decision | None:
    """What decided the turn's plan: Think's decision, or, when Think was never asked, Understand's quick read or its
    'nothing to do but record' (the plan the machine made for them)."""
    understood = state.understanding
    if state.plan is None or state.model_calls.get("think") or understood is None:
        return state.plan.decision if state.plan is not None else None
    if understood.quick_mode:
        return "quick_read"
    return "noted" if understood.nothing_to_do else state.plan.decision


def record_conversation(session: Session, state: TurnState, config: ContextConfig) -> None:
    """The turn's plan and Alfred's reply (with its flow fields) join the session's narrative and conversation."""
    record_plan(session, state)
    if state.reply:
        history.record_assistant_reply(session, state.reply, config, flow=state.reply_flow)


