"""Building the configured provider from ALFRED_MODEL & co (flags first, then environment)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from alfred_mcp.agent.llm.anthropic import AnthropicLLM
from alfred_mcp.agent.llm.base import ModelRequest
from alfred_mcp.agent.llm.factory import llm_from_settings
from alfred_mcp.agent.llm.openai_compat import OpenAICompatibleLLM
from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.errors import ConfigError

from .replay_server import ReplayServer, Reply

ANTHROPIC_KEY = "sk-ant-api03-secret-value"
OPENAI_KEY = "sk-proj-secret-value"


def test_anthropic_from_env_uses_the_fallback_key() -> None:
    """anthropic:<model> takes ANTHROPIC_API_KEY when ALFRED_MODEL_API_KEY is unset."""
    llm = llm_from_settings(env={"ALFRED_MODEL": "anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY": ANTHROPIC_KEY})
    assert isinstance(llm, AnthropicLLM) and llm.model == "claude-sonnet-4-5"
    assert llm.endpoint.url == "https://api.anthropic.com/v1/messages" and llm.endpoint.timeout == 120.0
    assert ANTHROPIC_KEY not in repr(llm)


def test_flags_win_over_env() -> None:
    """Arguments override ALFRED_MODEL, ALFRED_MODEL_BASE_URL, ALFRED_MODEL_API_KEY and the timeout."""
    env = {"ALFRED_MODEL": "scripted:x.json", "ALFRED_MODEL_BASE_URL": "http://env.invalid", "ALFRED_MODEL_TIMEOUT": "9"}
    llm = llm_from_settings("anthropic:claude-haiku-4-5", "http://127.0.0.1:9/", "flag-key", timeout=3, env=env)
    assert isinstance(llm, AnthropicLLM) and llm.model == "claude-haiku-4-5"
    assert (llm.endpoint.url, llm.endpoint.timeout) == ("http://127.0.0.1:9/v1/messages", 3.0)


def test_openai_uses_the_official_api_and_token_field() -> None:
    """openai:<model> defaults to api.openai.com, OPENAI_API_KEY, the auto JSON mode and max_completion_tokens."""
    env = {"ALFRED_MODEL": "openai:gpt-4.1-mini", "OPENAI_API_KEY": OPENAI_KEY, "ALFRED_MODEL_TIMEOUT": "30"}
    llm = llm_from_settings(env=env)
    assert isinstance(llm, OpenAICompatibleLLM)
    assert (llm.model, llm.endpoint.url, llm.endpoint.provider) == ("gpt-4.1-mini", "https://api.openai.com/v1/chat/completions", "openai")
    assert (llm.json_mode, llm.wire_mode, llm.token_limit_field, llm.endpoint.timeout) == ("auto", "json_schema", "max_completion_tokens", 30.0)
    assert OPENAI_KEY not in repr(llm)


@pytest.mark.anyio
async def test_openai_compatible_spec_reaches_a_local_server_without_a_key() -> None:
    """openai-compatible:<model>@<url> talks to that server, never with OPENAI_API_KEY, in the chosen JSON mode."""
    with ReplayServer(Reply.recording("llamacpp_fenced_json")) as server:
        env = {"ALFRED_MODEL": f"openai-compatible:llama3@{server.url}/v1", "OPENAI_API_KEY": OPENAI_KEY, "ALFRED_MODEL_JSON_MODE": "json_object"}
        llm = llm_from_settings(env=env)
        request = ModelRequest.ask("think", "Plan.", "Plan dinners", {"type": "object"}, "think_output")
        response = await llm.complete(request)
    (received,) = server.received
    assert received.path == "/v1/chat/completions" and "authorization" not in received.headers
    assert received.body["model"] == "llama3" and received.body["response_format"] == {"type": "json_object", "schema": {"type": "object"}}
    assert response.data["decision"] == "plan_direct"


def test_openai_compatible_takes_the_base_url_from_env() -> None:
    """Without @url the base URL comes from ALFRED_MODEL_BASE_URL; ALFRED_MODEL_API_KEY is sent when set."""
    env = {"ALFRED_MODEL_BASE_URL": "http://127.0.0.1:11434/v1", "ALFRED_MODEL_API_KEY": "local-key"}
    llm = llm_from_settings("openai-compatible:qwen2.5", env=env)
    assert isinstance(llm, OpenAICompatibleLLM)
    assert (llm.model, llm.endpoint.url, llm.token_limit_field) == ("qwen2.5", "http://127.0.0.1:11434/v1/chat/completions", "max_tokens")


@pytest.mark.anyio
async def test_scripted_spec_loads_the_file(tmp_path: Path) -> None:
    """scripted:<path> replays that file."""
    path = tmp_path / "turn.json"
    path.write_text(json.dumps({"reply": [{"text": "Saved recipe_1."}]}))
    llm = llm_from_settings(f"scripted:{path}", env={})
    assert isinstance(llm, ScriptedLLM)
    response = await llm.complete(ModelRequest.ask("reply", "", "Report.", {"type": "object"}, "reply_output"))
    assert response.data == {"text": "Saved recipe_1."}


@pytest.mark.parametrize(
    ("model", "env", "expected"),
    [
        pytest.param(None, {}, "No model configured: set ALFRED_MODEL to one of anthropic:<model>", id="nothing"),
        pytest.param("claude-sonnet-4-5", {}, "'claude-sonnet-4-5' is not a model: use one of", id="no-provider"),
        pytest.param("gemini:pro", {}, "'gemini:pro' is not a model", id="unknown-provider"),
        pytest.param("anthropic:", {}, "'anthropic:' is not a model", id="no-model-name"),
        pytest.param("anthropic:claude-sonnet-4-5", {}, "needs an API key: set ALFRED_MODEL_API_KEY or ANTHROPIC_API_KEY", id="anthropic-no-key"),
        pytest.param("openai:gpt-4.1-mini", {"ANTHROPIC_API_KEY": "x"}, "set ALFRED_MODEL_API_KEY or OPENAI_API_KEY", id="openai-no-key"),
        pytest.param("openai-compatible:llama3", {}, "needs a model and a base URL", id="compatible-no-url"),
        pytest.param("openai-compatible:llama3@127.0.0.1:8080", {}, "must start with http:// or https://", id="compatible-bad-url"),
        pytest.param("openai-compatible:llama3@http://h/v1", {"ALFRED_MODEL_JSON_MODE": "json"}, "'json' is not a JSON mode: use one of auto, json_schema, json_object, prompt", id="bad-json-mode"),
        pytest.param("openai-compatible:llama3@http://h/v1", {"ALFRED_MODEL_TIMEOUT": "soon"}, "'soon' must be a positive number", id="bad-timeout"),
        pytest.param("openai-compatible:llama3@http://h/v1", {"ALFRED_MODEL_TIMEOUT": "0"}, "'0' must be a positive number", id="zero-timeout"),
        pytest.param("scripted:/nonexistent/turn.json", {}, "Cannot read the model script /nonexistent/turn.json", id="scripted-missing"),
    ],
)
def test_bad_settings_are_a_config_error(model: str | None, env: dict[str, str], expected: str) -> None:
    """Every missing or malformed setting is a ConfigError that says what to set."""
    with pytest.raises(ConfigError, match=re.escape(expected)):
        llm_from_settings(model, env=env)
