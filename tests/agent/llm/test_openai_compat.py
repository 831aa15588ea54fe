"""The OpenAI-compatible chat completions provider over real HTTP, against the local replay server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from alfred_mcp.agent.llm.base import Message, ModelRequest, Usage
from alfred_mcp.agent.llm.openai_compat import OpenAICompatibleLLM
from alfred_mcp.agent.llm.transport import RetryPolicy
from alfred_mcp.errors import ModelError, ModelOutputError, ModelUnavailableError
from alfred_mcp.state.schema_text import schema_text

from .replay_server import ReplayServer, Reply

KEY = "sk-test-abcdefghijklmnopqrstuvwxyz"
SCHEMA = {"type": "object", "properties": {"goal": {"type": "string"}, "steps": {"type": "array"}}, "required": ["goal"]}
FAST = RetryPolicy(attempts=3, base_delay=0.001, max_delay=0.01)


def _request(**options: Any) -> ModelRequest:
    messages = (Message("user", "Plan dinners with recipe_1"), Message("assistant", "Which days?"), Message("user", "Mon and Wed"))
    return ModelRequest("think", "You plan kitchen work.", messages, SCHEMA, "think_output", **options)


def _llm(server: ReplayServer, **options: Any) -> OpenAICompatibleLLM:
    options.setdefault("retry", FAST)
    options.setdefault("api_key", KEY)
    options.setdefault("stream", False)  # the replay server answers plain JSON; streaming is tested on the fake servers
    return OpenAICompatibleLLM("gpt-4.1-mini", base_url=f"{server.url}/v1", timeout=5.0, **options)


def _think() -> dict[str, Any]:
    return json.loads(Reply.recording("openai_json_schema").body["choices"][0]["message"]["content"])


@pytest.mark.anyio
async def test_request_has_the_chat_completions_shape() -> None:
    """POST {base}/chat/completions with a bearer key, the system message first and a json_schema response_format."""
    with ReplayServer(Reply.recording("openai_json_schema")) as server:
        await _llm(server).complete(_request(max_tokens=1024, temperature=0.2))
    (received,) = server.received
    assert (received.method, received.path) == ("POST", "/v1/chat/completions")
    assert received.headers["authorization"] == f"Bearer {KEY}"
    assert received.headers["content-type"] == "application/json"
    assert received.body == {
        "model": "gpt-4.1-mini",
        "messages": [
            {"role": "system", "content": "You plan kitchen work."},
            {"role": "user", "content": "Plan dinners with recipe_1"},
            {"role": "assistant", "content": "Which days?"},
            {"role": "user", "content": "Mon and Wed"},
        ],
        "max_tokens": 1024,
        "temperature": 0.2,
        "response_format": {"type": "json_schema", "json_schema": {"name": "think_output", "schema": SCHEMA, "strict": False}},
    }


@pytest.mark.anyio
async def test_local_server_gets_no_authorization_header_without_a_key() -> None:
    """A key is optional: without one, no Authorization header is sent."""
    with ReplayServer(Reply.recording("llamacpp_fenced_json")) as server:
        await _llm(server, api_key=None).complete(_request())
    assert "authorization" not in server.received[0].headers


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("json_mode", "response_format"),
    [
        pytest.param("json_object", {"type": "json_object", "schema": SCHEMA}, id="json_object"),
        pytest.param("prompt", None, id="prompt"),
    ],
)
async def test_fallback_modes_put_the_schema_in_the_system_message(json_mode: str, response_format: Any) -> None:
    """json_object and prompt modes send the schema as instructions after the role's system prompt, as a typed signature
    (json_object: the JSON Schema as a grammar too)."""
    with ReplayServer(Reply.recording("llamacpp_fenced_json")) as server:
        await _llm(server, json_mode=json_mode).complete(_request())
    body = server.received[0].body
    assert body.get("response_format") == response_format
    system = body["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You plan kitchen work.\n\nAnswer with a single JSON object")
    assert system["content"].endswith(schema_text(SCHEMA))


@pytest.mark.anyio
async def test_token_limit_field_is_configurable() -> None:
    """The official API takes max_completion_tokens; the field name is a setting."""
    with ReplayServer(Reply.recording("openai_json_schema")) as server:
        await _llm(server, token_limit_field="max_completion_tokens").complete(_request(max_tokens=900))
    body = server.received[0].body
    assert body["max_completion_tokens"] == 900 and "max_tokens" not in body


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("recording", "model", "usage"),
    [
        pytest.param("openai_json_schema", "gpt-4.1-mini-2025-04-14", Usage(1290, 96), id="openai-bare-json"),
        pytest.param("llamacpp_fenced_json", "llama3", Usage(1187, 141), id="llamacpp-fenced-json"),
    ],
)
async def test_content_json_is_the_answer(recording: str, model: str, usage: Usage) -> None:
    """choices[0].message.content parses as the JSON object, ``` fences or not."""
    with ReplayServer(Reply.recording(recording)) as server:
        response = await _llm(server).complete(_request())
    assert response.data == _think()
    assert response.model == model and response.usage == usage
    assert response.raw_text == Reply.recording(recording).body["choices"][0]["message"]["content"]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("recording", "status", "api_message"),
    [
        pytest.param("openai_error_unsupported_parameter", 400, "Unsupported parameter: 'max_tokens'", id="400-openai"),
        pytest.param("openai_error_invalid_api_key", 401, "Incorrect API key provided: [api key]. You can find", id="401-masked-key"),
        pytest.param("vllm_error_model_not_found", 404, "The model `llama3` does not exist.", id="404-vllm"),
    ],
)
async def test_api_error_is_a_model_error_with_the_api_message(recording: str, status: int, api_message: str) -> None:
    """A 4xx is not retried; the API's message comes through with any echoed key scrubbed."""
    with ReplayServer(Reply.recording(recording)) as server:
        with pytest.raises(ModelError) as caught:
            await _llm(server).complete(_request())
    error = caught.value
    assert type(error) is ModelError and error.fields["status"] == status
    assert api_message in error.message
    assert "sk-test" not in json.dumps(error.to_dict())
    assert len(server.received) == 1


@pytest.mark.anyio
async def test_rate_limit_is_retried_once_after_retry_after_ms() -> None:
    """429 then 200: one retry, after the server's retry-after-ms."""
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    with ReplayServer(Reply.recording("openai_rate_limited"), Reply.recording("openai_json_schema")) as server:
        response = await _llm(server, retry=RetryPolicy(attempts=2, base_delay=5.0), sleep=sleep).complete(_request())
    assert response.data == _think() and len(server.received) == 2
    assert delays == [pytest.approx(0.21)]


@pytest.mark.anyio
async def test_service_unavailable_on_every_try_is_unavailable() -> None:
    """503 on each try: ModelUnavailableError with the API's message."""
    with ReplayServer(*[Reply.recording("openai_service_unavailable")] * 3) as server:
        with pytest.raises(ModelUnavailableError, match="HTTP 503: The server is overloaded or not ready yet"):
            await _llm(server).complete(_request())
    assert len(server.received) == 3


@pytest.mark.anyio
async def test_slow_answer_times_out_as_unavailable() -> None:
    """No answer within the timeout: ModelUnavailableError, no retry."""
    with ReplayServer(Reply.recording("openai_json_schema", delay=1.0)) as server:  # the timeout leaves a busy machine
        llm = OpenAICompatibleLLM("gpt-4.1-mini", base_url=server.url, timeout=0.3, retry=FAST)  # time to send the request
        with pytest.raises(ModelUnavailableError, match="did not answer within"):
            await llm.complete(_request())
    assert len(server.received) == 1


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("recording", "expected"),
    [
        pytest.param("openai_not_json", "text that is not a JSON object: 'Sure! I would start", id="prose"),
        pytest.param("openai_refusal", "refused to answer think_output: I'm sorry", id="refusal"),
        pytest.param("openai_length", "stopped at max_tokens=4096", id="cut-off"),
    ],
)
async def test_malformed_answer_is_an_output_error(recording: str, expected: str) -> None:
    """Prose, a refusal or a cut-off answer is a ModelOutputError saying which."""
    with ReplayServer(Reply.recording(recording)) as server:
        with pytest.raises(ModelOutputError, match=expected):
            await _llm(server).complete(_request())


def test_unknown_json_mode_is_refused() -> None:
    """A typo in json_mode fails at construction, naming the valid modes."""
    with pytest.raises(ValueError, match="auto, json_schema, json_object, prompt"):
        OpenAICompatibleLLM("llama3", base_url="http://127.0.0.1:1", json_mode="json")  # type: ignore[arg-type]
