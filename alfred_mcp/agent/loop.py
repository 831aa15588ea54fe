"""run_turn: drive the turn machine with a model provider, one role call at a time.

An invalid role output goes back to the model with its validation errors (bounded by the
machine); a refusal by the state (a step completed too early, a tool error) is part of the
next Act context, so the model can correct course. Nothing is applied from an invalid output.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from alfred_mcp.agent.llm.base import LLM, Message, ModelRequest
from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.agent.prompting import role_prompt
from alfred_mcp.errors import ModelError, RoleOutputError
from alfred_mcp.state.agent_turn import TurnState
from alfred_mcp.state.role_outputs import output_schema

MAX_MODEL_CALLS_PER_TURN = 40
Observer = Callable[[str, TurnState], Awaitable[None]]


async def run_turn(machine: TurnMachine, llm: LLM, message: str, *, observe: Observer | None = None) -> TurnState:
    """Run a whole turn for `message`; returns the final state (done, replied)."""
    state = await machine.begin(message)
    calls = 0
    retry_note: str | None = None
    while (role := machine.expected_role(state)) is not None:
        if calls >= MAX_MODEL_CALLS_PER_TURN:
            state = machine.abandon(state, f"the turn needed more than {MAX_MODEL_CALLS_PER_TURN} model calls")
            role = "reply"
        if observe is not None:
            await observe(role, state)
        prompt = await role_prompt(machine, state, role)
        request = ModelRequest(
            role=role, system=prompt.system,
            messages=(Message(role="user", content=prompt.user + (f"\n\n{retry_note}" if retry_note else "")),),
            output_schema=output_schema(role), schema_name=f"{role}_output",
        )
        calls += 1
        try:
            response = await llm.complete(request)
        except ModelError as error:
            state = await _model_failed(machine, state, role, error)
            continue
        try:
            state = await machine.submit(state, role, response.data)
            retry_note = None
        except RoleOutputError as error:
            retry_note = f"Your previous {role} output was refused: {error.message} Answer again with valid JSON."
            state = machine.current() or state
    if observe is not None:
        await observe("done", state)
    return state


async def _model_failed(machine: TurnMachine, state: TurnState, role: str, error: ModelError) -> TurnState:
    """The model could not answer: the turn ends blocked, and the reply is written by the state."""
    if role == "reply":
        return await machine.reply_without_model(state, f"the reply model call failed: {error.message}")
    return machine.abandon(state, f"the {role} model call failed: {error.message}")
