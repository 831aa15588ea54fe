"""The Anthropic Messages provider over real HTTP, against the local replay server."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from alfred_mcp.agent.llm.anthropic import AnthropicLLM
from alfred_mcp.agent.llm.base import Message, ModelRequest, Usage
from alfred_mcp.agent.llm.transport import RetryPolicy
from alfred_mcp.errors import ModelError, ModelOutputError, ModelUnavailableError

from .replay_server import ReplayServer, Reply

KEY = "sk-ant-api03-test-0123456789abcdef"
SCHEMA = {"type": "object", "properties": {"goal": {"type": "string"}, "steps": {"type": "array"}}, "required": ["goal"]}
FAST = RetryPolicy(attempts=3, base_delay=0.001, max_delay=0.01)


def _request(**options: Any) -> ModelRequest:
    messages = (Message("user", "Plan dinners with recipe_1"), Message("assistant", "Which days?"), Message("user", "Mon and Wed"))
    return ModelRequest("think", "You plan kitchen work.", messages, SCHEMA, "think_output", **options)


def _llm(server: ReplayServer, **options: Any) -> AnthropicLLM:
    options.setdefault("retry", FAST)
    return AnthropicLLM("claude-sonnet-4-5", KEY, base_url=server.url, timeout=5.0, **options)


def _recorded_input() -> dict[str, Any]:
    recording = Reply.recording("anthropic_tool_use").body
    return recording["content"][0]["input"]


@pytest.mark.anyio
async def test_request_has_the_messages_api_shape() -> None:
    """POST /v1/messages with key, version and one forced tool whose input_schema is the output schema."""
    with ReplayServer(Reply.recording("anthropic_tool_use")) as server:
        async with httpx2.AsyncClient() as client:
            await _llm(server, http_client=client).complete(_request(max_tokens=1024, temperature=0.2))
    (received,) = server.received
    assert (received.method, received.path) == ("POST", "/v1/messages")
    assert received.headers["x-api-key"] == KEY
    assert received.headers["anthropic-version"] == "2023-06-01"
    assert received.headers["content-type"] == "application/json"
    assert received.body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": "You plan kitchen work.",
        "temperature": 0.2,
        "messages": [
            {"role": "user", "content": "Plan dinners with recipe_1"},
            {"role": "assistant", "content": "Which days?"},
            {"role": "user", "content": "Mon and Wed"},
        ],
        "tools": [{"name": "think_output", "description": "Record the think result. The input is the whole answer.", "input_schema": SCHEMA}],
        "tool_choice": {"type": "tool", "name": "think_output"},
    }


@pytest.mark.anyio
async def test_unset_system_and_temperature_are_left_out() -> None:
    """An empty system prompt and a default temperature are not sent at all."""
    request = ModelRequest.ask("reply", "", "Say hi", SCHEMA, "reply_output")
    with ReplayServer(Reply.recording("anthropic_tool_use")) as server:
        with pytest.raises(ModelOutputError):  # the recording calls think_output, not reply_output
            await _llm(server).complete(request)
    assert "system" not in server.received[0].body and "temperature" not in server.received[0].body


@pytest.mark.anyio
async def test_tool_use_input_is_the_answer() -> None:
    """The forced tool's input becomes `data`, with the answering model and token usage."""
    with ReplayServer(Reply.recording("anthropic_tool_use")) as server:
        response = await _llm(server).complete(_request())
    assert response.data == _recorded_input()
    assert json.loads(response.raw_text) == response.data
    assert response.model == "claude-sonnet-4-5-20250929"
    assert response.usage == Usage(input_tokens=1432, output_tokens=187)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("recording", "status", "api_message"),
    [
        pytest.param("anthropic_error_invalid_request", 400, "messages: text content blocks must be non-empty", id="400-invalid-request"),
        pytest.param("anthropic_error_authentication", 401, "invalid x-api-key", id="401-authentication"),
    ],
)
async def test_api_error_is_a_model_error_with_the_api_message(recording: str, status: int, api_message: str) -> None:
    """A 4xx is not retried; the error carries the API's message and status, never the key."""
    with ReplayServer(Reply.recording(recording)) as server:
        with pytest.raises(ModelError) as caught:
            await _llm(server).complete(_request())
    error = caught.value
    assert type(error) is ModelError
    assert api_message in error.message and error.fields["status"] == status
    assert KEY not in json.dumps(error.to_dict()) and KEY not in repr(_llm(server))
    assert len(server.received) == 1


@pytest.mark.anyio
async def test_rate_limit_is_retried_once_after_retry_after() -> None:
    """429 then 200: one retry, after the server's retry-after, and the answer comes through."""
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    retry = RetryPolicy(attempts=3, base_delay=0.5, max_delay=30.0)
    with ReplayServer(Reply.recording("anthropic_rate_limited"), Reply.recording("anthropic_tool_use")) as server:
        response = await _llm(server, retry=retry, sleep=sleep).complete(_request())
    assert response.data == _recorded_input()
    assert len(server.received) == 2 and server.received[0].body == server.received[1].body
    assert delays == [2.0]


@pytest.mark.anyio
async def test_overloaded_on_every_try_is_unavailable() -> None:
    """529 on each of the 3 tries: ModelUnavailableError naming the status and the API's message."""
    with ReplayServer(*[Reply.recording("anthropic_overloaded")] * 3) as server:
        with pytest.raises(ModelUnavailableError) as caught:
            await _llm(server).complete(_request())
    assert len(server.received) == 3
    assert caught.value.message == f"anthropic at {server.url} kept failing (HTTP 529: Overloaded) after 3 tries"
    assert caught.value.fields == {"provider": "anthropic", "status": 529, "attempts": 3, "requests": 3, "hint": "try again in a moment"}


@pytest.mark.anyio
async def test_slow_answer_times_out_as_unavailable() -> None:
    """No answer within the timeout: ModelUnavailableError at once, without a retry."""
    with ReplayServer(Reply.recording("anthropic_tool_use", delay=1.0)) as server:  # the timeout leaves a busy machine
        with pytest.raises(ModelUnavailableError, match=r"did not answer within 0\.3 s"):  # time to send the request
            await AnthropicLLM("claude-sonnet-4-5", KEY, base_url=server.url, timeout=0.3, retry=FAST).complete(_request())
    assert len(server.received) == 1


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("recording", "expected"),
    [
        pytest.param("anthropic_text_only", "without calling the think_output tool", id="text-instead-of-tool"),
        pytest.param("anthropic_max_tokens", "stopped at max_tokens=4096", id="cut-off"),
    ],
)
async def test_answer_without_a_complete_tool_call_is_an_output_error(recording: str, expected: str) -> None:
    """A text answer or one cut off at max_tokens is a ModelOutputError, not a half answer."""
    with ReplayServer(Reply.recording(recording)) as server:
        with pytest.raises(ModelOutputError, match=expected):
            await _llm(server).complete(_request())
