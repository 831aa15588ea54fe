"""Where a turn's outputs meet the session's context state (`alfred_mcp/turns.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from alfred_mcp import turns
from alfred_mcp.agent.outputs import UnderstandOutput
from alfred_mcp.state.narrative import PlannedStep, TurnPlan
from alfred_mcp.state.turn_state import plan_key

if TYPE_CHECKING:
    from alfred_mcp.agent.turn_state import TurnState
    from alfred_mcp.app import AlfredApp
    from alfred_mcp.session import Session


async def apply_understanding(app: AlfredApp, session: Session, output: UnderstandOutput, *, user_message: str) -> None:
    """Touch the referenced refs, apply the curation (visibility only), merge the constraint snapshot."""
    await turns.submit_understanding(
        app.store, session, message=user_message, referenced=output.referenced_refs,
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
            refs=[ref for call in s.tool_calls for ref in call.refs][:50],
        )
        for s in state.steps
    ]
    plan = TurnPlan(decision=state.plan.decision, goal=state.plan.goal[:300], steps=steps)
    session.put_document(plan_key(state.turn), plan.model_dump(mode="json", exclude_defaults=True))


def record_conversation(session: Session, state: TurnState) -> None:
    """The turn's plan and Alfred's reply join the session's narrative and conversation."""
    record_plan(session, state)
    if state.reply:
        turns.record_assistant_reply(session, state.reply)
