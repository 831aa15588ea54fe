"""Turn tools: run a whole agent turn (`chat`), or drive and inspect it stage by stage."""

from __future__ import annotations

from typing import Any

from alfred_mcp import drafting
from alfred_mcp.agent.llm.base import LLM
from alfred_mcp.agent.loop import run_turn
from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.agent.outputs import output_schema
from alfred_mcp.agent.prompting import role_prompt
from alfred_mcp.agent.turn_state import TurnState
from alfred_mcp.app import AlfredApp
from alfred_mcp.call_context import current_call
from alfred_mcp.errors import ConfigError, OutOfOrderError
from alfred_mcp.handlers.common import acting
from alfred_mcp.handlers.common import session_context as _context


def status_view(machine: TurnMachine, state: TurnState) -> dict[str, Any]:
    step = state.step if state.stage == "act" else None
    return {
        "stage": state.stage, "expected_role": machine.expected_role(state), "outcome": state.outcome,
        "step": step.model_dump(mode="json") if step else None, "reply": state.reply, "notice": state.notice,
    }


async def chat(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    llm = _model_for(app, args.get("model", "configured"))
    async with acting(app, "chat", args) as session:
        state = await run_turn(TurnMachine(app, session), llm, args["message"])
        await session.save(app.store)
        return {
            "reply": state.reply or "", "outcome": state.outcome, "summary": state.ledger or {},
            "model_calls": state.model_calls, **_context(session),
        }


def _model_for(app: AlfredApp, which: str) -> LLM:
    if which == "client":
        from alfred_mcp.agent.llm.sampling import SamplingLLM, push_sampler

        context = current_call().mcp_context
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


async def turn_start(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    async with acting(app, "turn_start", args) as session:
        machine = TurnMachine(app, session)
        state = await machine.begin(args["message"])
        await session.save(app.store)
        return {**status_view(machine, state), **_context(session)}


async def turn_context(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    async with acting(app, "turn_context", args) as session:
        machine = TurnMachine(app, session)
        state = _current(machine)
        role = args.get("role") or machine.expected_role(state)
        if role is None:
            raise OutOfOrderError(f"Turn {state.turn} is done; start a new one with turn_start.")
        prompt = await role_prompt(machine, state, role)
        return {"role": role, "instructions": prompt.system, "context": prompt.user, "output_schema": output_schema(role), **_context(session)}


async def turn_submit(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    async with acting(app, "turn_submit", args) as session:
        machine = TurnMachine(app, session)
        state = await machine.submit(_current(machine), args["role"], args["output"])
        await session.save(app.store)
        return {**status_view(machine, state), "summary": state.ledger, **_context(session)}


async def turn_status(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    async with acting(app, "turn_status", args) as session:
        machine = TurnMachine(app, session)
        state = machine.load(args["turn"]) if args.get("turn") else machine.current()
        batches = []
        if state is not None:
            refs = {s.batch for s in state.steps if s.batch} | {c.batch for s in state.steps for c in s.tool_calls if c.batch}
            batches = [drafting.load_manifest(session, ref).to_dict() for ref in sorted(refs)]
        return {"state": state.model_dump(mode="json") if state else None, "batches": batches, **_context(session)}


async def turn_abandon(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    async with acting(app, "turn_abandon", args) as session:
        machine = TurnMachine(app, session)
        state = await machine.end(_current(machine), args.get("reason") or "abandoned by the client")
        await session.save(app.store)
        return {**status_view(machine, state), **_context(session)}


def _current(machine: TurnMachine) -> TurnState:
    state = machine.current()
    if state is None:
        raise OutOfOrderError("No turn has been started in this session; call turn_start with the user's message.")
    return state


HANDLERS = {
    "chat": chat,
    "turn_start": turn_start,
    "turn_context": turn_context,
    "turn_submit": turn_submit,
    "turn_status": turn_status,
    "turn_abandon": turn_abandon,
}
