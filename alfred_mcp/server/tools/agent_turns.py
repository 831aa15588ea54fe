"""Turn tools: run a whole agent turn (`chat`), or drive and inspect it stage by stage."""

from __future__ import annotations

from typing import Any

from alfred_mcp.agent.llm.base import LLM
from alfred_mcp.agent.loop import run_turn
from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.agent.prompting import role_prompt
from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import ConfigError, OutOfOrderError
from alfred_mcp.operations import drafting
from alfred_mcp.server.call_context import current_request_context
from alfred_mcp.server.sampling import SamplingLLM, push_sampler
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult, work_on
from alfred_mcp.server.tools.common import session_context as _context
from alfred_mcp.server.tools.runner import tool_runner
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.agent_turn import TurnState
from alfred_mcp.state.role_outputs import output_schema


def status_view(machine: TurnMachine, state: TurnState) -> dict[str, Any]:
    step = state.step if state.stage == "act" else None
    return {
        "stage": state.stage, "expected_role": machine.expected_role(state), "outcome": state.outcome,
        "step": step.model_dump(mode="json") if step else None, "reply": state.reply, "notice": state.notice,
    }


async def chat(app: AlfredApp, args: ToolArgs) -> ToolResult:
    llm = _model_for(app, args.get("model", "configured"))
    async with work_on(app, "chat", args) as work:
        state = await run_turn(_machine(app, work), llm, args["message"])
        return {
            "reply": state.reply or "", "outcome": state.outcome, "summary": state.ledger or {},
            "model_calls": state.model_calls, **_context(work.session),
        }


def _model_for(app: AlfredApp, which: str) -> LLM:
    if which == "client":
        context = current_request_context()
        if context is None:
            raise ConfigError("model='client' needs an MCP client that supports sampling.", field="model")
        return SamplingLLM(push_sampler(context))
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
        return {**status_view(machine, state), **_context(work.session)}


async def turn_context(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "turn_context", args) as work:
        machine = _machine(app, work)
        state = _current(machine)
        role = args.get("role") or machine.expected_role(state)
        if role is None:
            raise OutOfOrderError(f"Turn {state.turn} is done; start a new one with turn_start.")
        prompt = await role_prompt(machine, state, role)
        return {"role": role, "instructions": prompt.system, "context": prompt.user, "output_schema": output_schema(role), **_context(work.session)}


async def turn_submit(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "turn_submit", args) as work:
        machine = _machine(app, work)
        state = await machine.submit(_current(machine), args["role"], args["output"])
        return {**status_view(machine, state), "summary": state.ledger, **_context(work.session)}


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
        state = await machine.end(_current(machine), args.get("reason") or "abandoned by the client")
        return {**status_view(machine, state), **_context(work.session)}


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
