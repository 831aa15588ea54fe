"""What a stage-by-stage client's model is sent: where the turn stands, and what the expected role needs.

Every answer of turn_start and turn_submit carries `next` (`next_role`), so a client that follows the
answers never needs turn_context, which re-fetches the same view (`role_view` with markers). What the
session's client was already sent is left out (state/client_memo.py): instructions once, each role's
output shape once, context sections unchanged since or grown by new lines, rows the notice shows.
"""

from __future__ import annotations

import json
import re
from typing import Any

from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.agent.prompting import role_prompt
from alfred_mcp.session import UnitOfWork
from alfred_mcp.session.documents import CLIENT_MEMO
from alfred_mcp.state.agent_turn import StepState, TurnState
from alfred_mcp.state.client_memo import ClientMemo, elide_sections
from alfred_mcp.state.context import ROLES
from alfred_mcp.state.role_outputs import output_schema
from alfred_mcp.state.schema_text import schema_text


def status_view(machine: TurnMachine, state: TurnState) -> dict[str, Any]:
    """Where the turn stands, compactly: the stage, the Act step (not its whole record), the reply, the last notice."""
    step = state.step if state.stage == "act" else None
    view = {
        "stage": state.stage, "expected_role": machine.expected_role(state), "outcome": state.outcome,
        "step": step_view(state, step) if step else None, "reply": state.reply, "notice": state.notice,
    }
    return {key: value for key, value in view.items() if value is not None or key == "expected_role"}


def step_view(state: TurnState, step: StepState) -> dict[str, Any]:
    return {"index": step.index, "number": step.index + 1, "of": len(state.steps), "step_type": step.step.step_type,
            "description": step.step.description}


async def role_view(
    work: UnitOfWork, machine: TurnMachine, state: TurnState, role: str, *, full: bool = False, markers: bool = False,
) -> dict[str, Any]:
    """What `role`'s model needs that this session's client lacks: the instructions and output shapes
    it was not sent yet, and the context without what it has (see `elide_sections`). Instructions already sent are left out, or (`markers`, for turn_context) replaced by a line saying when
    they were sent. The first answer of a session carries every role's output as a typed signature
    (`output_shapes`, a third of the JSON Schema's size); turn_context gives the role's JSON Schema
    (`output_schema`) or the turn it was sent."""
    prompt = await role_prompt(machine, state, role, for_client=True, full=full)
    memo = (work.session.read(CLIENT_MEMO) or ClientMemo()).pruned(state.turn)
    parts = []
    for key, text in prompt.instruction_parts():
        sent = _sent_before(memo, f"instructions:{key}", text, state.turn, full)
        if sent is None:
            parts.append(text)
        elif markers:
            parts.append(f"(the {key} instructions: unchanged since turn {sent}; full: true sends them again)")
    view: dict[str, Any] = {"role": role}
    if parts:
        view["instructions"] = "\n\n".join(parts)
    view["context"] = elide_sections(prompt.context, memo, state.turn, full=full)
    schemas = {r: output_schema(r) for r in ((role,) if markers else ROLES)}
    sent_in = {r: _sent_before(memo, f"schema:{r}", json.dumps(schema, sort_keys=True), state.turn, full) for r, schema in schemas.items()}
    if markers:
        view.update({"output_schema": schemas[role]} if sent_in[role] is None else {"output_schema_sent_turn": sent_in[role]})
    elif any(turn is None for turn in sent_in.values()):
        view["output_shapes"] = {r: schema_text(schema) for r, schema in schemas.items() if sent_in[r] is None}
    work.session.write(CLIENT_MEMO, memo)
    return view


def _sent_before(memo: ClientMemo, key: str, text: str, turn: int, full: bool) -> int | None:
    """The turn the client was sent `text` unchanged (None: it goes now, also when `full`); remembered."""
    sent = None if full else memo.seen(key, text)
    memo.remember(key, text, turn if sent is None else sent)
    return sent


async def answer(work: UnitOfWork, machine: TurnMachine, state: TurnState) -> dict[str, Any]:
    """Where the turn stands and, while a role is expected, what it needs (`next`): the client follows the
    answers and never needs turn_context. Rows the notice shows are not repeated in the next context."""
    status = status_view(machine, state)
    role = machine.expected_role(state)
    if role is None:
        return status
    view = await role_view(work, machine, state, role)
    view["context"] = _without_rows_of(status.get("notice"), view["context"])
    return {**status, "next": view}


def _without_rows_of(notice: str | None, context: str) -> str:
    """`context` without what repeats the notice's rows: a card's lines after its head (replaced by one pointer)
    and the entity lines of the refs those rows show."""
    rows = [line.strip() for line in (notice or "").splitlines()[1:] if line.strip()]
    refs = {found.group(1) for row in rows if (found := _ROW_REF.match(row))}
    out: list[str] = []
    for line in context.splitlines():
        entity = _ENTITY_REF.match(line)
        if entity is not None and entity.group(1) in refs:
            continue
        if line.strip() not in rows:
            out.append(line)
        elif not out or out[-1] != _ROWS_IN_NOTICE:
            out.append(_ROWS_IN_NOTICE)
    return "\n".join(out)


_ROW_REF = re.compile(r"^- ([a-z]+_\d+) ")
_ENTITY_REF = re.compile(r"^- ([a-z]+_\d+): ")
_ROWS_IN_NOTICE = "  (rows: as in the notice)"
