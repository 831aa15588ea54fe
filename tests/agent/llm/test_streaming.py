"""Streamed answers from OpenAI-compatible servers: assembled, cut at the token budget, cancelled at the timeout."""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
import pytest

from alfred_mcp.agent.llm.base import ModelRequest
from alfred_mcp.agent.llm.openai_compat import OpenAICompatibleLLM, grammar_safe
from alfred_mcp.agent.llm.transport import RetryPolicy
from alfred_mcp.errors import ModelError, ModelOutputError, ModelUnavailableError
from alfred_mcp.state.role_outputs import ROLE_OUTPUTS, output_schema

from .fake_openai import Answer, FakeModelServer, Refuse, Runaway, Silent, always
from .replay_server import ReplayServer, Reply

pytestmark = pytest.mark.anyio
FAST = RetryPolicy(attempts=3, base_delay=0.01, max_delay=0.05)
PLAN = {"goal": "Plan dinners", "decision": "plan_direct", "steps": []}


def _request(max_tokens: int = 256) -> ModelRequest:
    return ModelRequest.ask("think", "You plan.", "Plan dinners", output_schema("think"), "think_output", max_tokens=max_tokens)


def _llm(url: str, **options: Any) -> OpenAICompatibleLLM:
    options.setdefault("timeout", 5.0)
    return OpenAICompatibleLLM("fake", base_url=url, retry=FAST, **options)


async def test_a_streamed_answer_is_assembled_from_its_deltas() -> None:
    """llama-cpp-python's SSE framing (role chunk, content pieces, finish chunk, [DONE]) gives the JSON object."""
    with FakeModelServer(always(Answer(json.dumps(PLAN)))) as server:
        response = await _llm(server.base_url).complete(_request())
    assert response.data == PLAN and response.requests == 1
    assert server.requests[0].streamed and server.requests[0].body["max_tokens"] == 256


async def test_a_server_that_answers_plain_json_to_a_stream_request_is_understood() -> None:
    with ReplayServer(Reply.recording("openai_json_schema")) as server:
        response = await _llm(f"{server.url}/v1").complete(_request())
    assert response.data["goal"] and server.received[0].body["stream"] is True


async def test_a_runaway_stream_is_cut_at_the_token_budget_and_the_server_stops_generating() -> None:
    """A server that ignores max_tokens: alfred stops reading past the budget; the server sees it leave and stops."""
    with FakeModelServer(always(Runaway(tokens_per_second=2000, honours_max_tokens=False))) as server:
        started = time.monotonic()
        with pytest.raises(ModelOutputError, match="stopped at max_tokens=64 before finishing think_output") as caught:
            await _llm(server.base_url).complete(_request(max_tokens=64))
        spent = time.monotonic() - started
        await anyio.sleep(0.3)
        (request,) = server.requests
    assert caught.value.fields["hint"] == "answer more briefly, or raise ALFRED_MODEL_MAX_TOKENS"
    assert request.ended is not None, "the server stopped generating once alfred left"
    assert request.busy_seconds < spent + 0.3


async def test_a_timed_out_request_is_cancelled_and_not_retried() -> None:
    with FakeModelServer(always(Silent())) as server:
        with pytest.raises(ModelUnavailableError, match=r"did not answer within 0\.3 s") as caught:
            await _llm(server.base_url, timeout=0.3).complete(_request())
        await anyio.sleep(0.2)
        (request,) = server.requests
    assert request.ended is not None and caught.value.fields["requests"] == 1


async def test_a_runaway_without_streaming_keeps_the_server_busy_after_the_timeout() -> None:
    """Why alfred streams: a plain request that times out leaves the server generating (llama-cpp-python does)."""
    with FakeModelServer(always(Runaway(tokens_per_second=200, honours_max_tokens=True))) as server:
        with pytest.raises(ModelUnavailableError):
            await _llm(server.base_url, timeout=0.2, stream=False).complete(_request(max_tokens=120))
        await anyio.sleep(0.8)
        (request,) = server.requests
    assert request.outcome == "client left, still generating" and request.busy_seconds > 0.4


@pytest.mark.parametrize(
    ("status", "body", "retried"),
    [
        pytest.param(500, {"error": {"message": "1 validation error: Input should be 'text'", "type": "internal_server_error"}}, False,
                     id="500-invalid-request"),
        pytest.param(500, {"error": {"message": "CUDA out of memory", "type": "server_error"}}, True, id="500-server-trouble"),
        pytest.param(503, {"error": {"message": "Loading model", "type": "unavailable_error", "code": 503}}, True, id="503-loading"),
        pytest.param(429, {"error": {"message": "slow down"}}, True, id="429"),
        pytest.param(400, {"error": {"code": 400, "message": "'messages' is required", "type": "invalid_request_error"}}, False, id="400"),
        pytest.param(404, {"error": {"message": 'model "x" not found, try pulling it first', "type": "api_error"}}, False, id="404-ollama"),
    ],
)
async def test_error_classes_decide_what_is_retried(status: int, body: Any, retried: bool) -> None:
    """Connection trouble, 429, 503 and a 500 about the server are retried; a 4xx or a 500 about the request is not."""
    with FakeModelServer(always(Refuse(status, body))) as server:
        with pytest.raises(ModelError) as caught:
            await _llm(server.base_url, json_mode="prompt").complete(_request())
    assert len(server.requests) == (3 if retried else 1)
    assert isinstance(caught.value, ModelUnavailableError) is retried
    assert caught.value.fields["requests"] == len(server.requests) and caught.value.remote


async def test_a_long_error_body_stays_out_of_the_message_but_reaches_the_log(caplog: pytest.LogCaptureFixture) -> None:
    body = {"error": {"message": "7 validation errors:\n  File \"/srv/app.py\", line 376\n" + "x" * 400, "type": "internal_server_error"}}
    with caplog.at_level("INFO"), FakeModelServer(always(Refuse(500, body))) as server:
        with pytest.raises(ModelError) as caught:
            await _llm(server.base_url, json_mode="prompt").complete(_request())
    assert caught.value.message == f"openai-compatible at {server.base_url} refused the request (HTTP 500: internal_server_error)"
    assert any("/srv/app.py" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("role", sorted(ROLE_OUTPUTS))
def test_grammar_safe_schemas_drop_only_the_length_caps_a_grammar_cannot_hold(role: str) -> None:
    """Every role's schema, as sent in json_object mode: no maxLength above 1000, everything else as it was."""
    schema = output_schema(role)
    safe = grammar_safe(schema)

    def walk(original: Any, kept: Any) -> None:
        if isinstance(original, dict):
            expected = {k for k, v in original.items() if not (k == "maxLength" and v > 1000)}
            assert set(kept) == expected
            for key in expected:
                walk(original[key], kept[key])
        elif isinstance(original, list):
            assert len(kept) == len(original)
            for a, b in zip(original, kept):
                walk(a, b)
        else:
            assert kept == original

    walk(schema, safe)
