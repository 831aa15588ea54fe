"""A role's prompt for a turn: the role template filled with the session context (system), plus
this turn's own facts (user): the plan, the step, its tool results and refusals, drafts in full."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from alfred_mcp.agent import act_tools
from alfred_mcp.agent.role_templates import role_prompt as filled_template
from alfred_mcp.contracts import load_contracts
from alfred_mcp.operations import drafting
from alfred_mcp.state.agent_turn import StepState, TurnState
from alfred_mcp.state.context import StepView

if TYPE_CHECKING:
    from alfred_mcp.agent.machine import TurnMachine


@dataclass(frozen=True)
class Prompt:
    system: str
    user: str


async def role_prompt(machine: TurnMachine, state: TurnState, role: str) -> Prompt:
    """The system text (instructions + session context) and the turn text for `role`."""
    step = state.step if role == "act" else None
    view = _step_view(state, step) if step is not None else None
    system = await filled_template(machine.work, role, step=view, message=state.message)
    sections = {"understand": _understand_turn, "think": _think_turn, "act": _act_turn, "reply": _reply_turn}
    return Prompt(system=system, user=sections[role](machine, state))


def _step_view(state: TurnState, step: StepState) -> StepView:
    return StepView(step.step.step_type, step.step.description, step.step.subdomain, step.index + 1, len(state.steps))


def _understand_turn(machine: TurnMachine, state: TurnState) -> str:
    return f"## User message (turn {state.turn})\n{state.message}\n\nAnswer with the understand output as JSON."


def _think_turn(machine: TurnMachine, state: TurnState) -> str:
    lines = [f"## User message (turn {state.turn})", state.message]
    understanding = state.understanding
    if understanding is not None:
        lines += ["", "## Understanding", f"Referenced: {', '.join(understanding.referenced_refs) or 'nothing specific'}"]
        if understanding.processed_message:
            lines.append(f"Request: {understanding.processed_message}")
    lines += ["", "Answer with the think output (the plan) as JSON."]
    return "\n".join(lines)


def _act_turn(machine: TurnMachine, state: TurnState) -> str:
    step = state.step
    assert step is not None and state.plan is not None
    lines = [f"## Goal\n{state.plan.goal}", "", "## Plan"]
    for other in state.steps:
        marker = "→" if other.index == step.index else ("✓" if other.status == "completed" else " ")
        lines.append(f"{marker} {other.index + 1}. [{other.step.step_type}/{other.step.subdomain}] {other.step.description}")
        if other.status == "completed" and other.result_summary:
            lines.append(f"     result: {other.result_summary}" + (f" (note: {other.note_for_next_step})" if other.note_for_next_step else ""))
    lines += ["", f"## Current step {step.index + 1}: {step.step.description}", _batch_block(machine, step)]
    lines += _calls_block(step)
    if step.step.step_type in ("write", "generate"):
        lines += _drafts_block(machine, state)
    lines += ["", "## Tools for this step", _tools_block(step.step.step_type)]
    lines += ["", "Answer with one act decision as JSON: a tool_call, step_complete, ask_user or blocked."]
    return "\n".join(line for line in lines if line is not None)


def _batch_block(machine: TurnMachine, step: StepState) -> str:
    if step.batch is None:
        expected = step.step.expected_count
        return f"Drafts to generate: {expected} (so far: {', '.join(step.drafts) or 'none'})." if expected else ""
    manifest = drafting.load_manifest(machine.session, step.batch)
    lines = [f"## Batch {step.batch} ({manifest.policy}): {manifest.summary()}"]
    for item in manifest.items:
        done = f" -> {item.result_ref}" if item.result_ref else ""
        why = f": {item.reason}" if item.reason else ""
        lines.append(f"- {item.ref} {item.label or ''} [{item.status}{done}{why}]")
    return "\n".join(lines)


def _calls_block(step: StepState) -> list[str]:
    lines = []
    if step.tool_calls:
        lines += ["", "## This step so far"]
        for call in step.tool_calls:
            lines.append(f"- {call.tool} {json.dumps(call.arguments, ensure_ascii=False)[:300]} -> {'ok' if call.ok else 'ERROR'}: {call.summary}")
    if step.refused:
        lines += ["", "## Refused by the state", *(f"- step_complete: {reason}" for reason in step.refused)]
    return lines


def _drafts_block(machine: TurnMachine, state: TurnState) -> list[str]:
    """Pending drafts in full: a write step saves exactly this content, never a summary of it."""
    drafts = drafting.list_drafts(machine.session)
    if not drafts:
        return []
    lines = ["", "## Drafts (pending, full content)"]
    for draft in drafts:
        lines.append(f"### {draft.ref}: {draft.label}\n{json.dumps(draft.content, ensure_ascii=False)}")
    return lines


def _tools_block(step_type: str) -> str:
    contracts = load_contracts()
    lines = []
    for name in act_tools.tools_for_step(step_type):
        contract = contracts[name]
        schema = {k: v for k, v in contract.input_schema.items() if k != "$defs"}
        lines.append(f"- {name}: {contract.description}\n  arguments schema: {json.dumps(_without_session(schema), ensure_ascii=False)}")
        if "$defs" in contract.input_schema:
            lines.append(f"  item shapes: {json.dumps(contract.input_schema['$defs'], ensure_ascii=False)}")
    return "\n".join(lines)


def _without_session(schema: dict[str, Any]) -> dict[str, Any]:
    properties = {k: v for k, v in schema.get("properties", {}).items() if k != "session"}
    return {**schema, "properties": properties}


def _reply_turn(machine: TurnMachine, state: TurnState) -> str:
    lines = [f"## User message (turn {state.turn})", state.message, "", f"## Outcome: {state.outcome}"]
    if state.blocked_reason:
        lines.append(f"Stopped: {state.blocked_reason}")
    for step in state.steps:
        lines.append(f"- step {step.index + 1} [{step.status}] {step.step.description}" + (f": {step.result_summary}" if step.result_summary else ""))
        for call in step.tool_calls:
            lines.append(f"    {call.tool}: {'ok' if call.ok else 'ERROR'}: {call.summary}")
    batches = sorted({s.batch for s in state.steps if s.batch} | {c.batch for s in state.steps for c in s.tool_calls if c.batch})
    for batch in batches:
        lines.append(f"Batch {batch}: {drafting.load_manifest(machine.session, batch).summary()}")
    pending = [d for d in drafting.list_drafts(machine.session)]
    if pending:
        lines.append("Generated, not saved yet: " + ", ".join(f"{d.ref} ({d.label})" for d in pending))
    lines += ["", "Report exactly what the state says: saved is saved, generated is not saved, failed is failed. Answer with the reply output as JSON."]
    return "\n".join(lines)
