"""Turn tools: run a whole agent turn (`chat`), or drive and inspect it stage by stage."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from alfred_mcp.agent.interrupt import Interrupt, finish_despite_cancellation
from alfred_mcp.agent.llm.base import LLM
from alfred_mcp.agent.loop import Observer, TurnEvent, TurnLimits, describe_event, run_turn
from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.agent.ownership import end_if_abandoned, new_owner
from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import ConfigError, OutOfOrderError, RoleOutputError
from alfred_mcp.operations import drafting
from alfred_mcp.operations.progress import report_progress
from alfred_mcp.server.call_context import current_request_context
from alfred_mcp.server.sampling import SamplingLLM, push_sampler
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult, work_on
from alfred_mcp.server.tools.common import session_context as _context
from alfred_mcp.server.tools.first_overview import with_first_overview
from alfred_mcp.server.tools.runner import tool_runner
from alfred_mcp.server.tools.sent_ahead import (
    apply_ahead,
    calls_made,
    check_reply_last,
    refused_before_reply,
    reply_held,
    reply_refused,
)
from alfred_mcp.server.tools.stage_listing import count_as_sent, lists_role_texts
from alfred_mcp.server.tools.stage_view import answer, replies_written, role_view, status_view
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.agent_turn import TurnState
from alfred_mcp.state.refs import refs_in


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
    check_reply_last("turn_start", args.get("then") or ())
    async with work_on(app, "turn_start", args) as work:
        machine = _machine(app, work)
        state = await machine.begin(args["message"])
        started = await with_first_overview(work, await _answer_after(work, machine, state, args), today=date.today())
        following = started.get("next")
        # a new chat on an old session lacks the instructions; a client that sends outputs ahead knows their shapes, and
        # a stage listing's client has them in tools/list (stage_listing.py)
        if isinstance(following, dict) and "instructions" not in following and not args.get("then") and not lists_role_texts(app.settings):
            following["sent_before"] = SENT_BEFORE
        return {**started, **_context(work.session)}


SENT_BEFORE = "(each role's instructions and output shape: sent earlier in this session; turn_context with full: true sends them again)"
"""What a turn's first answer says when the session's client was sent the instructions before: a client's model in a new
chat on the same session learns how to get them (the server cannot tell a new chat from the old one)."""


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


async def turn_submit(app: AlfredApp, args: ToolArgs) -> ToolResult:
    """Apply one role output, then the outputs sent ahead in `then` (sent_ahead.py). A refused `output` is an error
    result (`then` is not applied), but its count is kept (the turn's attempts are bounded), so the refusal is raised
    after the unit of work commits."""
    check_reply_last("turn_submit", args.get("then") or (), after_reply=args["role"] == "reply")
    refused: RoleOutputError | None = None
    async with work_on(app, "turn_submit", args) as work:
        machine = _machine(app, work)
        current = _current(machine)
        seen = calls_made(current)
        try:
            state = await machine.submit(current, args["role"], args["output"])
        except RoleOutputError as error:
            refused = error
        else:
            return {**await _answer_after(work, machine, state, args, seen=seen), **_context(work.session)}
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


async def _answer_after(work: UnitOfWork, machine: TurnMachine, state: TurnState, args: ToolArgs, *, seen: int = 0) -> ToolResult:
    """The outputs sent ahead (`then`) applied (sent_ahead.py; `seen`: the turn's calls the client knew of before this
    call), then the answer: where the turn stands, what the expected role needs, what was not applied or refused, and
    the ledger of a turn that ended; not the reply the call carried."""
    then: Sequence[dict[str, Any]] = args.get("then") or ()
    state, ahead = await apply_ahead(machine, state, then, seen=seen)
    ledger = _ledger_view(state.ledger, "\n".join([state.notice or "", *(call.card or "" for step in state.steps for call in step.tool_calls)]))
    answered = await answer(work, machine, state, replies_written(args), refused=refused_before_reply(ahead),
                            reply_held=reply_held(ahead), reply_refused=reply_refused(ahead))
    return {**answered, **ahead, **({"summary": ledger} if ledger else {})}


def _ledger_view(ledger: dict[str, Any] | None, notice: str | None) -> dict[str, Any] | None:
    """The ledger without what the client already knows (its own calls; the turn and outcome the answer gives; the
    things `notice` shows by ref: this answer's notice and the cards of the turn's calls, which the answers after
    Act's calls gave), what only the bundled
    loop counts (the server's model requests) or what is empty (turn_status has it all)."""
    if ledger is None:
        return None
    shown = refs_in(notice or "")
    view = {key: [thing for thing in value if thing.get("ref") not in shown] if key.startswith(_THINGS) else value
            for key, value in ledger.items() if key not in _KNOWN_TO_CLIENT}
    return {key: value for key, value in view.items() if value not in ([], None)}


_THINGS = ("entities_", "artifacts_")
"""The ledger's lists of things (ref, type, label) the turn touched."""
_KNOWN_TO_CLIENT = frozenset({"tools_called", "model_calls", "model_requests", "turn", "outcome"})


def _machine(app: AlfredApp, work: UnitOfWork) -> TurnMachine:
    count_as_sent(work, app.settings)  # under a stage listing, the client has the role texts from tools/list
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
