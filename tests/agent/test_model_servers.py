"""Whole turns through the real OpenAI-compatible provider against loopback servers that misbehave as real ones do.

Each test counts what the server received (requests, JSON modes, prompts) and reads the saved turn: how many
calls a bad model costs, what the user is told, and what later turns are shown.
"""

from __future__ import annotations

import itertools
import json
import logging
from typing import Any

import anyio
import pytest

from alfred_mcp.agent.interrupt import Interrupt
from alfred_mcp.agent.llm.openai_compat import OpenAICompatibleLLM
from alfred_mcp.agent.llm.transport import RetryPolicy
from alfred_mcp.agent.loop import TurnLimits, run_turn
from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.app import AlfredApp
from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.server.tools.runner import tool_runner
from alfred_mcp.state.agent_turn import TurnState

from .llm.fake_openai import (
    Action,
    Answer,
    FakeModelServer,
    Refuse,
    Request,
    Silent,
    always,
    by_role,
    dies_after,
    llama_cpp_python,
)

pytestmark = pytest.mark.anyio
FAST = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05)
QUICK_TASKS = {"quick_mode": True, "quick_mode_confidence": 0.9, "quick_read": {"table": "tasks", "limit": 3}}
FRIDGE = {
    "understand": [QUICK_TASKS, {"referenced_refs": ["task_1"]}],
    "think": [{"goal": "Check the fridge", "decision": "plan_direct",
               "steps": [{"description": "Read the fridge", "step_type": "read", "subdomain": "inventory"}]}],
    "act": [{"decision": {"action": "tool_call", "tool": "db_read", "arguments": {"table": "inventory"}}},
            {"decision": {"action": "step_complete", "result_summary": "read the fridge"}}],
    "reply": [{"response": "Your fridge is well stocked."}],
}
PROSE = "Lyon is a French city with a long history of cooking."
NAMES = itertools.count()


def model(server: FakeModelServer, **options: Any) -> OpenAICompatibleLLM:
    """A provider for `server`; its own model name, so no JSON mode settled by an earlier test (same port) applies."""
    options.setdefault("timeout", 5.0)
    return OpenAICompatibleLLM(f"fake-{next(NAMES)}", base_url=server.base_url, retry=FAST, **options)


async def turn(app: AlfredApp, llm: OpenAICompatibleLLM, message: str, **options: Any) -> TurnState:
    async with app.work("chat") as work:
        return await run_turn(TurnMachine(work, tool_runner(app, work.session.name)), llm, message, **options)


def prompt_of(request: Request) -> str:
    return "\n".join(m["content"] for m in request.body["messages"])


def max_lengths(schema: Any) -> list[int]:
    if isinstance(schema, dict):
        own = [schema["maxLength"]] if isinstance(schema.get("maxLength"), int) else []
        return own + [n for value in schema.values() for n in max_lengths(value)]
    return [n for item in schema for n in max_lengths(item)] if isinstance(schema, list) else []


def assert_one_plain_sentence(state: TurnState) -> None:
    """The reply of a failed turn: the state's account ending in one sentence, said once, no server internals."""
    reply = state.reply or ""
    assert reply.splitlines()[-1].startswith("I couldn't finish this: ") and reply.count("finish this") == 1
    assert state.reply_source == "fallback" and "Stopped:" not in reply
    for internal in ('File "', "site-packages", "validation error", "Traceback", "literal_error"):
        assert internal not in reply


async def test_a_model_that_answers_empty_objects_ends_its_turn_within_15_calls(app: AlfredApp) -> None:
    """`{}` passes Understand, fails Think three times: 4 calls, then the state replies (no model tells a blocked turn)."""
    with FakeModelServer(always(Answer("{}"))) as server:
        state = await turn(app, model(server), "plan dinners")
    assert len(server.requests) <= 15
    assert state.model_calls == {"understand": 1, "think": 3} and state.model_requests == len(server.requests) == 4
    assert state.outcome == "blocked" and state.blocked_reason and state.blocked_reason.startswith("think output was invalid 3 times")
    assert_one_plain_sentence(state)
    assert "the model could not make a plan (3 tries)" in (state.reply or "") and "schema" not in (state.reply or "")
    assert state.ledger is not None and state.ledger["model_requests"] == 4
    assert [e["role"] for e in state.ledger["errors"]] == ["think", "think", "think"]


async def test_a_silent_model_costs_one_timeout_per_turn(app: AlfredApp) -> None:
    """A server that never answers: one request per turn, cancelled at the timeout; no Reply call after it."""
    with FakeModelServer(always(Silent())) as server:
        llm = model(server, timeout=0.4)
        first = await turn(app, llm, "what are my tasks?")
        second = await turn(app, llm, "what is in the fridge?")
        await anyio.sleep(0.2)
        left = [r.ended is not None for r in server.requests]
    assert len(server.requests) == 2 and all(left), "each timed-out request was closed, and the server saw it"
    for state in (first, second):
        assert state.model_calls == {"understand": 1} and state.model_requests == 1
        assert state.blocked_reason == f"openai-compatible at {server.base_url} did not answer within 0.4 s"
        assert_one_plain_sentence(state)
        assert "raise ALFRED_MODEL_TIMEOUT" in (state.reply or "")
        assert state.ledger is not None and state.ledger["errors"][0]["code"] == "model_unavailable"


async def test_prose_is_retried_and_the_refusal_note_goes_only_to_that_roles_next_request(app: AlfredApp) -> None:
    answers = by_role(FRIDGE)
    prose_left = [2]

    def behave(request: Request) -> Answer:
        if request.role == "understand" and prose_left[0]:
            prose_left[0] -= 1
            return Answer(PROSE)
        return answers(request)  # type: ignore[return-value]

    with FakeModelServer(behave) as server:
        state = await turn(app, model(server), "what is in the fridge?")
    understands = server.calls("understand")
    assert len(understands) == 3 and state.outcome == "quick"
    assert "Your previous understand answer was refused" not in prompt_of(understands[0])
    for retried in understands[1:]:
        assert "Your previous understand answer was refused" in prompt_of(retried) and "not a JSON object" in prompt_of(retried)
    assert state.model_calls == {"understand": 3} and [e["code"] for e in state.errors] == ["unusable_output"] * 2


async def test_a_refusal_note_never_reaches_another_role(app: AlfredApp) -> None:
    """Think refused once: its next request carries the note; Act and Reply never do."""
    bad_plan = {"goal": "x", "decision": "propose"}
    outputs = {**FRIDGE, "understand": [{}], "think": [bad_plan, *FRIDGE["think"]]}
    with FakeModelServer(by_role(outputs)) as server:
        state = await turn(app, model(server), "what is in the fridge?")
    assert state.outcome == "completed"
    assert "Your previous think answer was refused" in prompt_of(server.calls("think")[1])
    for other in server.calls("act") + server.calls("reply"):
        assert "was refused" not in prompt_of(other)


async def test_a_failed_turn_is_not_fed_back_as_conversation(app: AlfredApp) -> None:
    """Turn 1 fails (prose only): its fallback reply and its message are absent from turn 2's prompts."""
    with FakeModelServer(always(Answer(PROSE))) as server:
        failed = await turn(app, model(server), "make me a zanzibar pizza")
    assert failed.outcome == "blocked" and failed.model_calls == {"understand": 3}
    assert_one_plain_sentence(failed)
    assert "try a larger model" in (failed.reply or "")
    with FakeModelServer(by_role(FRIDGE)) as server:
        answered = await turn(app, model(server), "what are my tasks?")
    assert answered.outcome == "quick"
    shown = prompt_of(server.calls("understand")[0])
    assert "zanzibar" not in shown and "could not finish" not in shown


async def test_a_refused_json_schema_falls_back_once_and_is_remembered(app: AlfredApp, caplog: pytest.LogCaptureFixture) -> None:
    """llama-cpp-python's 500 for json_schema: one refused request, then json_object with the schema, for good."""
    with caplog.at_level(logging.WARNING), FakeModelServer(llama_cpp_python(by_role(FRIDGE))) as server:
        llm = model(server)
        first = await turn(app, llm, "what are my tasks?")
        second = await turn(app, llm, "what is in the fridge?")
    modes = [r.json_mode for r in server.requests]
    assert modes == ["json_schema"] + ["json_object+schema"] * (len(modes) - 1)
    assert (first.outcome, second.outcome) == ("quick", "completed")
    assert first.model_calls == {"understand": 1} and first.model_requests == 2
    assert second.model_requests == sum(second.model_calls.values()) == 5
    warnings = [r.getMessage() for r in caplog.records if "refused response_format" in r.getMessage()]
    assert len(warnings) == 1 and "set ALFRED_MODEL_JSON_MODE=json_object to skip this check" in warnings[0]
    for request in server.requests[1:]:
        assert max(max_lengths(request.body["response_format"]["schema"]), default=0) <= 1000, "llama-cpp-python crashes above ~1000"


async def test_a_pinned_json_mode_the_server_refuses_is_not_retried(app: AlfredApp) -> None:
    """json_schema pinned against llama-cpp-python: one request, and the reply names the setting to change."""
    with FakeModelServer(llama_cpp_python(by_role(FRIDGE))) as server:
        state = await turn(app, model(server, json_mode="json_schema"), "what are my tasks?")
    assert len(server.requests) == 1 and state.model_calls == {"understand": 1}
    assert state.blocked_reason == f"openai-compatible at {server.base_url} refused the request (HTTP 500: internal_server_error)"
    assert_one_plain_sentence(state)
    assert "set ALFRED_MODEL_JSON_MODE=auto" in (state.reply or "")


async def test_a_server_that_dies_mid_turn_blocks_it_without_another_call(app: AlfredApp) -> None:
    """The server answers Understand, then crashes: the turn says so, once, and calls nothing more."""
    outputs = {**FRIDGE, "understand": [{}]}
    with FakeModelServer(dies_after(1, by_role(outputs))) as server:
        state = await turn(app, model(server), "what is in the fridge?")
    assert len(server.requests) == 2 and state.model_calls == {"understand": 1, "think": 1}
    assert state.model_requests == 4, "the crashed request and two refused reconnections"
    assert "closed the connection without a complete answer, then could not be reached" in (state.blocked_reason or "")
    assert_one_plain_sentence(state)


async def test_the_call_budget_ends_a_turn_with_what_to_raise(app: AlfredApp) -> None:
    with FakeModelServer(always(Answer(PROSE))) as server:
        state = await turn(app, model(server), "plan dinners", limits=TurnLimits(calls=2))
    assert len(server.requests) == 2 and state.outcome == "blocked"
    assert state.blocked_reason == "it used all 2 model calls a turn may make"
    assert "raise ALFRED_TURN_MAX_CALLS" in (state.reply or "")


async def test_the_wall_clock_budget_cancels_the_call_in_flight(app: AlfredApp) -> None:
    with FakeModelServer(always(Silent())) as server:
        state = await turn(app, model(server, timeout=30), "plan dinners", limits=TurnLimits(seconds=0.5))
    assert len(server.requests) == 1 and state.blocked_reason == "it ran out of the 0.5 s a turn may take"
    assert "raise ALFRED_TURN_MAX_SECONDS" in (state.reply or "") and state.errors[0]["code"] == "turn_budget"


async def test_an_interrupt_cancels_the_model_call_and_keeps_the_turn(app: AlfredApp) -> None:
    interrupt = Interrupt()
    events: list[str] = []

    async def observe(event: Any) -> None:
        events.append(event.kind)
        if event.kind == "call":
            interrupt.request("interrupted (Ctrl-C)")

    with FakeModelServer(always(Silent())) as server:
        state = await turn(app, model(server, timeout=30), "plan dinners", observe=observe, interrupt=interrupt)
    assert state.stage == "done" and state.blocked_reason == "interrupted (Ctrl-C)"
    assert state.reply == "Nothing was changed.\nI couldn't finish this: interrupted (Ctrl-C)." and events[-1] == "done"
    async with app.work("status") as work:
        saved = TurnMachine(work, tool_runner(app, work.session.name)).current()
    assert saved is not None and saved.stage == "done" and saved.errors[0]["code"] == "interrupted"
    with FakeModelServer(by_role(FRIDGE)) as server:
        assert (await turn(app, model(server), "what are my tasks?")).outcome == "quick"


async def test_waits_for_a_slow_model_are_reported(app: AlfredApp) -> None:
    """A heartbeat event per interval while one call runs, so clients with short timeouts keep waiting."""
    kinds: list[str] = []

    async def observe(event: Any) -> None:
        kinds.append(event.kind)

    slow = by_role({"understand": [QUICK_TASKS]})
    with FakeModelServer(lambda r: Answer(slow(r).content, delay=0.35)) as server:  # type: ignore[union-attr]
        state = await turn(app, model(server), "tasks?", observe=observe, limits=TurnLimits(heartbeat=0.1))
    assert state.outcome == "quick" and kinds[0] == "call" and kinds.count("waiting") >= 2 and kinds[-1] == "done"
    assert find_uuid(json.dumps(state.model_dump(mode="json"))) is None


def _stalls_after(answers: int) -> Any:
    """Answer Understand (a plan follows) for the first `answers` requests, then a 503 once, then never answer."""
    seen = [0]
    plan = by_role({**FRIDGE, "understand": [{}]})

    def behave(request: Request) -> Action:
        seen[0] += 1
        if seen[0] <= answers:
            return plan(request)
        return Refuse(503, {"error": {"message": "busy"}}) if seen[0] == answers + 1 else Silent()

    return behave


STALLS = {
    "interrupted at once": (always(Silent()), {"timeout": 30}, "interrupt", {}),
    "interrupted after a retried 503": (_stalls_after(0), {"timeout": 30}, "interrupt", {}),
    "interrupted mid-plan": (_stalls_after(2), {"timeout": 30}, "interrupt", {}),
    "out of wall-clock time": (always(Silent()), {"timeout": 30}, "", {"limits": TurnLimits(seconds=0.5)}),
    "timed out": (always(Silent()), {"timeout": 0.3}, "", {}),
}


@pytest.mark.parametrize("case", sorted(STALLS))
async def test_every_request_a_stalled_turn_sent_is_counted_however_it_ended(app: AlfredApp, case: str) -> None:
    """Cancelled, interrupted or timed out: model_requests (state and ledger) equals what the server received."""
    behaviour, provider, stop, options = STALLS[case]
    interrupt = Interrupt()

    async def observe(event: Any) -> None:
        if stop and event.kind == "waiting":  # the request is on the wire and stalled: cancel it
            interrupt.request("interrupted (Ctrl-C)")

    with FakeModelServer(behaviour) as server:
        state = await turn(app, model(server, **provider), "what is in the fridge?", observe=observe, interrupt=interrupt,
                           **{"limits": TurnLimits(heartbeat=0.2), **options})
        await anyio.sleep(0.1)
    assert state.outcome == "blocked" and len(server.requests) >= 1
    assert state.model_requests == len(server.requests), [r.outcome for r in server.requests]
    assert state.ledger is not None and state.ledger["model_requests"] == len(server.requests)
