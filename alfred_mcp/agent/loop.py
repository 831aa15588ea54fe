"""run_turn: drive the turn machine with a model, one role call at a time, within the turn's budgets.

- An answer that is not usable (not JSON, cut off, or refused by the role's contract) goes back to that role
  with why, in that role's next request only; after MAX_INVALID_OUTPUTS misses the role gives up.
- After a timeout, an unreachable server or a refused request, the turn calls the model no more.
- A turn makes at most `limits.calls` model calls and spends at most `limits.seconds`; an `Interrupt`
  (a signal, a client's cancellation) cancels the call in flight.
- When the model cannot finish a turn, the state writes the reply (`present.state_reply`): what was done, and one
  sentence saying what failed and what to try. That turn is not fed back to the model as conversation.
Every call, HTTP request (answered, failed, cancelled or interrupted alike) and failure is counted in the turn's
state, and so in its ledger.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import anyio

from alfred_mcp.agent.interrupt import Interrupt
from alfred_mcp.agent.llm.base import LLM, Message, ModelRequest, ModelResponse, tally_requests
from alfred_mcp.agent.machine import MAX_INVALID_OUTPUTS, MODEL_HINT, TurnMachine, model_gave_up
from alfred_mcp.agent.prompting import role_prompt
from alfred_mcp.config import DEFAULT_MAX_TOKENS, TURN_CALLS_ENV, TURN_SECONDS_ENV, ModelOptions
from alfred_mcp.errors import ModelError, ModelOutputError, RoleOutputError
from alfred_mcp.state.agent_turn import TurnOwner, TurnState
from alfred_mcp.state.role_outputs import output_schema

EventKind = Literal["call", "waiting", "retry", "failed", "done"]
STAGE_WORDS = {"understand": "understanding", "think": "planning", "act": "acting", "reply": "replying"}


@dataclass(frozen=True)
class TurnLimits:
    """What one turn may spend on its model."""

    calls: int = 30
    seconds: float = 600.0
    max_tokens: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_MAX_TOKENS))
    heartbeat: float = 10.0
    """Seconds between `waiting` events while one model call runs (progress for clients with short timeouts)."""

    @classmethod
    def from_options(cls, options: ModelOptions) -> TurnLimits:
        return cls(calls=options.turn_calls, seconds=options.turn_seconds, max_tokens=dict(options.max_tokens))


@dataclass(frozen=True)
class TurnEvent:
    """What the loop tells its driver: a model call starting, a long wait, an unusable answer, a failure, the end."""

    kind: EventKind
    role: str
    calls: int
    """Model calls made so far in this turn (this one included)."""
    elapsed: float
    state: TurnState
    note: str = ""


Observer = Callable[[TurnEvent], Awaitable[None]]


@dataclass(frozen=True)
class Stop:
    """Why the model is not called again this turn: what failed (on record), what to try, and the plain words
    the user reads for it (`said`; the reason itself when it is plain already)."""

    reason: str
    hint: str = ""
    said: str | None = None


async def run_turn(
    machine: TurnMachine,
    llm: LLM,
    message: str,
    *,
    limits: TurnLimits | None = None,
    observe: Observer | None = None,
    interrupt: Interrupt | None = None,
    owner: TurnOwner | None = None,
) -> TurnState:
    """Run a whole turn for `message`; returns the final state (done, replied)."""
    run = _Run(machine, llm, limits or TurnLimits(), observe, interrupt or Interrupt())
    return await run.turn(await machine.begin(message, owner=owner))


class _Run:
    def __init__(self, machine: TurnMachine, llm: LLM, limits: TurnLimits, observe: Observer | None, interrupt: Interrupt) -> None:
        self.machine, self.llm, self.limits, self.observe, self.interrupt = machine, llm, limits, observe, interrupt
        self.started = anyio.current_time()
        self.calls = 0
        self.misses: Counter[str] = Counter()
        self.notes: dict[str, str] = {}
        self.stop: Stop | None = None

    async def turn(self, state: TurnState) -> TurnState:
        while (role := self.machine.expected_role(state)) is not None:
            self.stop = self.stop or self._out_of_budget()
            if self.stop is not None:
                state = await self._give_up(state, self.stop)
                break
            state = await self._call(state, role)
        await self._tell("done", "", state)
        return state

    def _elapsed(self) -> float:
        return anyio.current_time() - self.started

    def _out_of_budget(self) -> Stop | None:
        if self.interrupt.reason is not None:
            return Stop(self.interrupt.reason)
        if self.calls >= self.limits.calls:
            return Stop(f"it used all {self.limits.calls} model calls a turn may make", f"simplify the request, or raise {TURN_CALLS_ENV}")
        if self._elapsed() >= self.limits.seconds:
            return self._out_of_time()
        return None

    def _out_of_time(self) -> Stop:
        return Stop(f"it ran out of the {self.limits.seconds:g} s a turn may take", f"use a faster model, or raise {TURN_SECONDS_ENV}")

    async def _call(self, state: TurnState, role: str) -> TurnState:
        prompt = await role_prompt(self.machine, state, role)
        if self.interrupt.reason is not None:  # came while the prompt was built: no call is made
            self.stop = Stop(self.interrupt.reason)
            return state
        note = self.notes.pop(role, None)
        request = ModelRequest(
            role=role, system=prompt.system,
            messages=(Message(role="user", content=prompt.user + (f"\n\n{note}" if note else "")),),
            output_schema=output_schema(role), schema_name=f"{role}_output", max_tokens=self.limits.max_tokens.get(role, 1024),
        )
        self.calls += 1
        await self._tell("call", role, state, f"attempt {self.misses[role] + 1}" if self.misses[role] else "")
        with tally_requests() as sent:
            try:
                answer = await self._ask(request, state)
            except ModelError as error:
                state.model_requests += sent.count or int(error.fields.get("requests", 1))
                if isinstance(error, ModelOutputError):
                    return await self._missed(state, role, error.message)
                return await self._failed(state, role, error.code, Stop(error.message, str(error.fields.get("hint", ""))))
        # a provider that does not tally its requests: what its answer reports, or the one request cancelled
        state.model_requests += sent.count or (answer.requests if isinstance(answer, ModelResponse) else 1)
        if isinstance(answer, Stop):
            return await self._failed(state, role, "interrupted" if self.interrupt.reason else "turn_budget", answer)
        try:
            return await self.machine.submit(state, role, answer.data)
        except RoleOutputError as error:  # the machine counted the call
            return await self._missed(self.machine.current() or state, role, error.message, counted=True)

    async def _ask(self, request: ModelRequest, state: TurnState) -> ModelResponse | Stop:
        """The model's answer, unless the turn's time runs out or an interrupt comes first."""
        answer: list[ModelResponse] = []
        failure: list[ModelError] = []
        with self.interrupt.scope(), anyio.move_on_after(self.limits.seconds - self._elapsed()):
            async with anyio.create_task_group() as group:
                group.start_soon(self._heartbeat, request.role, state)
                try:
                    answer.append(await self.llm.complete(request))
                except ModelError as error:  # raised below, not wrapped in the group's ExceptionGroup
                    failure.append(error)
                group.cancel_scope.cancel()
        if failure:
            raise failure[0]
        if answer:
            return answer[0]
        return Stop(self.interrupt.reason) if self.interrupt.reason is not None else self._out_of_time()

    async def _heartbeat(self, role: str, state: TurnState) -> None:
        while True:
            await anyio.sleep(self.limits.heartbeat)
            await self._tell("waiting", role, state)

    async def _missed(self, state: TurnState, role: str, why: str, *, counted: bool = False) -> TurnState:
        """An unusable answer: counted; that role asks again with why, or gives up after MAX_INVALID_OUTPUTS."""
        self.misses[role] += 1
        self._count(state, role, "unusable_output", why, counted=counted)
        if self.misses[role] < MAX_INVALID_OUTPUTS:
            self.notes[role] = f"Your previous {role} answer was refused: {why} Answer again with one valid JSON object."
            await self._tell("retry", role, state, why)
            return state
        reason = f"the model's {role} answer was unusable {self.misses[role]} times ({why.rstrip('.')})"
        await self._tell("failed", role, state, reason)
        if role == "reply":
            self.stop = Stop(reason, MODEL_HINT, model_gave_up(role, self.misses[role]))
            return state
        return self.machine.abandon(state, reason, said=model_gave_up(role, self.misses[role]), hint=MODEL_HINT)

    async def _failed(self, state: TurnState, role: str, code: str, stop: Stop) -> TurnState:
        """The model cannot be asked again this turn (timeout, unreachable, refused, budget, interrupt)."""
        self.stop = stop
        self._count(state, role, code, stop.reason)
        await self._tell("failed", role, state, stop.reason)
        return state

    def _count(self, state: TurnState, role: str, code: str, message: str, *, counted: bool = False) -> None:
        """A model call that produced no accepted output (the machine counts and records those it refused)."""
        if not counted:
            state.model_calls[role] = state.model_calls.get(role, 0) + 1
            state.errors.append({"role": role, "code": code, "message": message})

    async def _give_up(self, state: TurnState, stop: Stop) -> TurnState:
        return await self.machine.reply_without_model(state, stop.reason, said=stop.said, hint=stop.hint)

    async def _tell(self, kind: EventKind, role: str, state: TurnState, note: str = "") -> None:
        if self.observe is not None:
            await self.observe(TurnEvent(kind, role, self.calls, self._elapsed(), state, note))


def describe_event(event: TurnEvent) -> str:
    """One short line for a turn event (the CLI's progress lines, the chat tool's progress messages)."""
    state, word = event.state, STAGE_WORDS.get(event.role, event.role)
    if event.kind == "done":
        counts = f"{event.calls} model call{'' if event.calls == 1 else 's'}, {event.elapsed:.1f} s"
        return f"done: {state.outcome} ({counts})" + (f": {state.blocked_reason}" if state.blocked_reason else "")
    if event.kind == "waiting":
        return f"{word}: waiting for the model ({event.elapsed:.0f} s into the turn)"
    if event.kind == "retry":
        return f"{word}: unusable answer, asking again ({event.note})"
    if event.kind == "failed":
        return f"{word}: {event.note}"
    where = f" step {state.current_step + 1}/{len(state.steps)}" if event.role == "act" and state.steps else ""
    return f"{word}{where}" + (f" ({event.note})" if event.note else "")
