"""Turn tools: run a whole agent turn (`chat`), or drive and inspect it stage by stage."""

from __future__ import annotations

import json
import re
from typing import Any

from alfred_mcp.agent.interrupt import Interrupt, finish_despite_cancellation
from alfred_mcp.agent.llm.base import LLM
from alfred_mcp.agent.loop import Observer, TurnEvent, TurnLimits, describe_event, run_turn
from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.agent.ownership import end_if_abandoned, new_owner
from alfred_mcp.agent.prompting import role_prompt
from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import ConfigError, OutOfOrderError, RoleOutputError
from alfred_mcp.operations import drafting
from alfred_mcp.operations.progress import report_progress
from alfred_mcp.server.call_context import current_request_context
from alfred_mcp.server.sampling import SamplingLLM, push_sampler
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult, work_on
from alfred_mcp.server.tools.common import session_context as _context
from alfred_mcp.server.tools.runner import tool_runner
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


async def chat(app: AlfredApp, args: ToolArgs) -> ToolResult:
    """Run a whole turn; progress per stage and model call; a client's cancellation ends the turn as interrupted."""
    llm = _model_for(app, args.get("model", "configured"))
    limits = TurnLimits.from_options(app.model_options)
    interrupt = Interrupt()

    async def turn() -> ToolResult:
        async with work_on(app, "chat", args) as work:
            machine = _machine(app, work)
            await end_if_abandoned(machine)
            state = await run_turn(
                machine, llm, args["message"], limits=limits, observe=_reporter(), interrupt=interrupt,
                owner=new_owner("chat_tool", limits.seconds),
            )
            return {
                "reply": state.reply or "", "outcome": state.outcome, "summary": state.ledger or {},
                "model_calls": state.model_calls, **_context(work.session),
            }

    return await finish_despite_cancellation(turn, interrupt, "interrupted: the client cancelled the request")


def _reporter() -> Observer:
    """Progress notifications (when the client sent a progress token): one per model call, wait and failure."""
    sent = 0

    async def observe(event: TurnEvent) -> None:
        nonlocal sent
        sent += 1
        await report_progress(sent, None, f"turn {event.state.turn}: {describe_event(event)}")

    return observe


def _model_for(app: AlfredApp, which: str) -> LLM:
    if which == "client":
        context = current_request_context()
        if context is None:
            raise ConfigError("model='client' needs an MCP client that supports sampling.", field="model")
        return SamplingLLM(push_sampler(context))
    if app.model_error is not None:
        raise app.model_error
    if app.llm is None:
        raise ConfigError(
            "No model is configured on the server (set ALFRED_MODEL, e.g. anthropic:claude-sonnet-4-5). "
            "Without one, drive the turn yourself: turn_start, turn_context, turn_submit.",
            field="model",
        )
    return app.llm


async def turn_start(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "turn_start", args) as work:
        machine = _machine(app, work)
        state = await machine.begin(args["message"])
        return {**await _answer(work, machine, state), **_context(work.session)}


async def turn_context(app: AlfredApp, args: ToolArgs) -> ToolResult:
    """The role's instructions, context and output schema, each sent once per session while unchanged."""
    async with work_on(app, "turn_context", args) as work:
        machine = _machine(app, work)
        state = _current(machine)
        role = args.get("role") or machine.expected_role(state)
        if role is None:
            raise OutOfOrderError(f"Turn {state.turn} is done; start a new one with turn_start.")
        view = await role_view(work, machine, state, role, full=bool(args.get("full")), markers=True)
        return {**view, **_context(work.session)}


async def role_view(
    work: UnitOfWork, machine: TurnMachine, state: TurnState, role: str, *, full: bool = False, markers: bool = False,
) -> dict[str, Any]:
    """What `role`'s model needs that this session's client lacks: the instructions and output schema
    it was not sent yet, and the context with each section it has (unchanged) as a one-line marker.
    Instructions already sent are left out, or (`markers`, for turn_context) replaced by a line saying when
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


async def _answer(work: UnitOfWork, machine: TurnMachine, state: TurnState) -> dict[str, Any]:
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


async def turn_submit(app: AlfredApp, args: ToolArgs) -> ToolResult:
    """Apply one role output. A refused output is an error result, but its count is kept (the
    turn's attempts are bounded), so the refusal is raised after the unit of work commits."""
    refused: RoleOutputError | None = None
    async with work_on(app, "turn_submit", args) as work:
        machine = _machine(app, work)
        try:
            state = await machine.submit(_current(machine), args["role"], args["output"])
        except RoleOutputError as error:
            refused = error
        else:
            ledger = _ledger_view(state.ledger)
            answer = await _answer(work, machine, state)
            return {**answer, **({"summary": ledger} if ledger else {}), **_context(work.session)}
    assert refused is not None
    raise refused


async def turn_status(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "turn_status", args) as work:
        machine = _machine(app, work)
        state = machine.load(args["turn"]) if args.get("turn") else machine.current()
        batches = []
        if state is not None:
            refs = {s.batch for s in state.steps if s.batch} | {c.batch for s in state.steps for c in s.tool_calls if c.batch}
            batches = [drafting.load_manifest(work.session, ref).to_dict() for ref in sorted(refs)]
        return {"state": state.model_dump(mode="json") if state else None, "batches": batches, **_context(work.session)}


async def turn_abandon(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "turn_abandon", args) as work:
        machine = _machine(app, work)
        state = await machine.abandon_current(args.get("reason") or "abandoned by the client")
        return {**status_view(machine, state), **_context(work.session)}


def _ledger_view(ledger: dict[str, Any] | None) -> dict[str, Any] | None:
    """The ledger without what the client already knows (its own calls) or what is empty (turn_status has it all)."""
    if ledger is None:
        return None
    return {key: value for key, value in ledger.items() if key not in ("tools_called", "model_calls") and value not in ([], None)}


def _machine(app: AlfredApp, work: UnitOfWork) -> TurnMachine:
    return TurnMachine(work, tool_runner(app, work.session.name))


def _current(machine: TurnMachine) -> TurnState:
    state = machine.current()
    if state is None:
        raise OutOfOrderError("No turn has been started in this session; call turn_start with the user's message.")
    return state


HANDLERS: dict[str, Handler] = {
    "chat": chat,
    "turn_start": turn_start,
    "turn_context": turn_context,
    "turn_submit": turn_submit,
    "turn_status": turn_status,
    "turn_abandon": turn_abandon,
}
