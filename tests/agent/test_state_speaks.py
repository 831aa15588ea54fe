"""When the model fails, the state speaks: every way a turn can end blocked or unanswered gets the state's own account
(what was done, what was not, what to try) from one code path, never a model's words nor words meant for a model.

Each case drives a real turn (scripted model, real SQLite kitchen) to one of its failure ends.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from e2e.helpers import call, call_error

from alfred_mcp.agent.interrupt import Interrupt
from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.agent.loop import TurnLimits, run_turn
from alfred_mcp.agent.machine import MAX_DECISIONS_PER_STEP, TurnMachine
from alfred_mcp.agent.ownership import end_if_abandoned
from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import ModelError, ModelOutputError, ModelUnavailableError
from alfred_mcp.server.tools.runner import tool_runner
from alfred_mcp.state.agent_turn import TurnOwner, TurnState

pytestmark = pytest.mark.anyio
MODEL_WORDS = "What do you want me to fix?"
"""Text only a model wrote: it must never reach the user through a failed turn."""
FOR_THE_MODEL = ("needs_disambiguation", "Value error", "output", "schema", "field", "validation", "Traceback", "Stopped:",
                 "{", "}", "step_complete", "tool_call", "plan_invalid", "invalid", MODEL_WORDS)


def act(decision: dict[str, Any]) -> dict[str, Any]:
    return {"decision": decision}


def tool(name: str, **arguments: Any) -> dict[str, Any]:
    return act({"action": "tool_call", "tool": name, "arguments": arguments})


COMPLETE = act({"action": "step_complete", "result_summary": MODEL_WORDS})
ADD_PLAN = {"goal": "Add eggs and milk", "decision": "plan_direct", "steps": [
    {"description": "Look at the list", "step_type": "read", "subdomain": "shopping"},
    {"description": "Add eggs and milk", "step_type": "write", "subdomain": "shopping"}]}
WRITE_PLAN = {"goal": "Add eggs", "decision": "plan_direct",
              "steps": [{"description": "Add eggs", "step_type": "write", "subdomain": "shopping"}]}
BAD_DELETE = tool("db_delete", table="recipes", filters=[{"field": "id", "op": "eq", "value": "recipe_99"}])
ADD_EGGS = tool("db_create", table="shopping_list", data={"name": "eggs", "quantity": 12})
REPLY = {"response": MODEL_WORDS}

SCRIPTS: dict[str, dict[str, list[Any]]] = {
    "understand unusable (needs_disambiguation without its question)":
        {"understand": [{"needs_disambiguation": True}] * 3, "reply": [REPLY]},
    "think unusable": {"understand": [{}], "think": [{"goal": "x", "decision": "propose"}] * 3, "reply": [REPLY]},
    "act unusable": {"understand": [{}], "think": [WRITE_PLAN], "act": [{"decision": {"action": "dance"}}] * 3, "reply": [REPLY]},
    "act blocked in its own words": {"understand": [{}], "think": [WRITE_PLAN],
                                     "act": [act({"action": "blocked", "reason_code": "insufficient_info", "reason": MODEL_WORDS})], "reply": [REPLY]},
    "the plan could not work, even re-planned": {
        "understand": [{}], "think": [WRITE_PLAN, WRITE_PLAN],
        "act": [act({"action": "blocked", "reason_code": "plan_invalid", "reason": MODEL_WORDS})] * 2, "reply": [REPLY]},
    "a tool failed twice": {"understand": [{}], "think": [WRITE_PLAN], "act": [BAD_DELETE, BAD_DELETE], "reply": [REPLY]},
    "a step went round in circles": {"understand": [{}], "think": [WRITE_PLAN],
                                     "act": [tool("recipe_import", url="x")] * (MAX_DECISIONS_PER_STEP + 1), "reply": [REPLY]},
    "a write step that wrote nothing ('add eggs and milk', two steps, no tool call)":
        {"understand": [{}], "think": [ADD_PLAN], "act": [COMPLETE, COMPLETE], "reply": [REPLY]},
    "the model server is unavailable": {"understand": [{}], "think": [ModelUnavailableError("server gone", hint="start it again")]},
    "the quick lookup named no column of its table, three times": {"understand": [{"quick_mode": True, "quick_mode_confidence": 1.0,
        "quick_read": {"table": "inventory", "filters": [{"field": "colour", "op": "eq", "value": "red"}]}}] * 3},
    "reply answers unusable after a write": {"understand": [{}], "think": [WRITE_PLAN], "act": [ADD_EGGS, COMPLETE],
                                             "reply": [ModelOutputError("not a JSON object")] * 3},
    "the model refuses the request": {"understand": [ModelError("refused the request (HTTP 400)", hint="check the model name")]},
    "every reply refused after a write": {"understand": [{}], "think": [WRITE_PLAN], "act": [ADD_EGGS, COMPLETE],
                                          "reply": [{"response": "I added arugula and pears to your pantry."}] * 3},
}
WRITTEN = {"every reply refused after a write"}
"""Cases whose turn did its work: the account says what was done and the turn is not blocked."""


async def drive(app: AlfredApp, outputs: dict[str, list[Any]], **options: Any) -> TurnState:
    async with app.work("chat") as work:
        return await run_turn(TurnMachine(work, tool_runner(app, work.session.name)), ScriptedLLM(outputs), "add eggs and milk",
                              **options)


def assert_the_state_speaks(state: TurnState, *, stopped: bool = True) -> None:
    reply = state.reply or ""
    assert state.stage == "done" and state.reply_source == "fallback", (state.stage, state.reply_source)
    lines = reply.splitlines()
    assert 1 <= len(lines) <= 2 and len(reply) <= 400, reply
    if stopped:
        assert state.outcome == "blocked" and lines[-1].startswith("I couldn't finish this: ") and reply.count("finish this") == 1
    for words in FOR_THE_MODEL:
        assert words not in reply, f"{words!r} reached the user: {reply}"


@pytest.mark.parametrize("case", sorted(SCRIPTS))
async def test_a_failed_turn_is_told_by_the_state_in_plain_words(app: AlfredApp, case: str) -> None:
    state = await drive(app, SCRIPTS[case])
    assert_the_state_speaks(state, stopped=case not in WRITTEN)
    if case in WRITTEN:
        assert state.reply == "Added eggs to your shopping list.", state.reply
    assert state.ledger is not None and state.ledger["outcome"] == state.outcome


async def test_a_write_step_that_wrote_nothing_does_not_end_completed(app: AlfredApp) -> None:
    state = await drive(app, SCRIPTS["a write step that wrote nothing ('add eggs and milk', two steps, no tool call)"])
    assert state.outcome == "blocked" and [step.status for step in state.steps] == ["completed", "blocked"]
    assert state.model_calls.get("reply") is None, "no model is asked to tell a blocked turn"
    assert state.blocked_reason == "Step 2 is a write step and completed without writing anything."
    assert "step 2 of 2 was to make the change you asked for, and ended without making it" in (state.reply or "")


Ender = Callable[[AlfredApp], Awaitable[TurnState]]


async def _out_of_calls(app: AlfredApp) -> TurnState:
    return await drive(app, {"understand": [{}], "think": [WRITE_PLAN], "act": [ADD_EGGS, COMPLETE]}, limits=TurnLimits(calls=3))


async def _interrupted(app: AlfredApp) -> TurnState:
    interrupt = Interrupt()
    interrupt.request("interrupted (Ctrl-C)")
    return await drive(app, {"understand": [{}]}, interrupt=interrupt)


async def _abandoned(app: AlfredApp) -> TurnState:
    async with app.work("chat") as work:
        machine = TurnMachine(work, tool_runner(app, work.session.name))
        await machine.begin("add eggs and milk")
        return await machine.abandon_current("abandoned by the client")


async def _left_by_a_dead_run(app: AlfredApp) -> TurnState:
    owner = TurnOwner(driver="headless", pid=2**22 + 7, host="elsewhere", started=0.0, deadline=1.0)
    async with app.work("chat") as work:
        machine = TurnMachine(work, tool_runner(app, work.session.name))
        await machine.begin("add eggs and milk", owner=owner)
        ended = await end_if_abandoned(machine)
    assert ended is not None
    return ended


ENDERS: dict[str, Ender] = {"out of model calls after a write": _out_of_calls, "interrupted": _interrupted,
                            "abandoned by its client": _abandoned, "left by a run that died": _left_by_a_dead_run}


@pytest.mark.parametrize("case", sorted(ENDERS))
async def test_a_turn_stopped_from_outside_is_told_by_the_state(app: AlfredApp, case: str) -> None:
    state = await ENDERS[case](app)
    assert_the_state_speaks(state)
    if case == "out of model calls after a write":
        assert state.reply is not None and state.reply.startswith("Added eggs to your shopping list.")


async def test_a_stage_client_whose_last_try_fails_is_told_the_turn_ended(client: Any) -> None:
    """Driven stage by stage: the third unusable plan ends the turn; the refusal says so, and the user's reply is the state's."""
    await call(client, "turn_start", message="add eggs and milk")
    await call(client, "turn_submit", role="understand", output={})
    for attempt in range(3):
        refused = await call_error(client, "turn_submit", role="think", output={"goal": "x", "decision": "propose"})
        assert refused["attempts_left"] == 2 - attempt
    assert "the turn ended blocked, and the state told the user" in refused["message"]
    state = (await call(client, "turn_status"))["state"]
    assert (state["stage"], state["outcome"], state["reply_source"]) == ("done", "blocked", "fallback")
    assert state["reply"] == ("Nothing was changed.\nI couldn't finish this: the model could not make a plan (3 tries); "
                              "try a larger model, or another ALFRED_MODEL_JSON_MODE for this server.")


ASK_MID_STEP = {"understand": [{}], "think": [ADD_PLAN], "act": [COMPLETE, act({"action": "ask_user", "question": "Which milk?"})]}


@pytest.mark.parametrize("case", [*sorted(SCRIPTS), *sorted(ENDERS), "act asked the user mid-step"])
async def test_no_step_is_left_running_once_its_turn_ended(app: AlfredApp, case: str) -> None:
    """Whichever way a turn ends (blocked, stopped from outside, Act asking the user), no step of it still says it runs."""
    state = await (ENDERS[case](app) if case in ENDERS else drive(app, SCRIPTS.get(case, ASK_MID_STEP)))
    assert state.stage == "done"
    statuses = [step.status for step in [*state.superseded_steps, *state.steps]]
    assert "running" not in statuses, statuses
    if case == "act asked the user mid-step":
        assert statuses == ["completed", "stopped"] and state.steps[1].result_summary == "stopped to ask the user"
