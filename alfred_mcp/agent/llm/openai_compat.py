"""Any OpenAI-compatible chat completions endpoint (OpenAI, llama.cpp, vLLM, Ollama, LM Studio...).

JSON output, by `json_mode`:
- "json_schema": `response_format` carries the schema (OpenAI, recent llama.cpp / vLLM / Ollama);
- "json_object": `response_format={"type": "json_object"}` and the schema in the system message;
- "prompt": no `response_format` at all, the schema in the system message (servers that reject both).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

import anyio
import httpx2

from alfred_mcp.agent.llm.base import ModelRequest, ModelResponse, Usage
from alfred_mcp.agent.llm.output import parse_json_object, schema_instructions
from alfred_mcp.agent.llm.transport import ModelEndpoint, RetryPolicy, Sleep
from alfred_mcp.errors import ModelOutputError

JsonMode = Literal["json_schema", "json_object", "prompt"]
JSON_MODES: tuple[str, ...] = get_args(JsonMode)
OPENAI_BASE_URL = "https://api.openai.com/v1"


class OpenAICompatibleLLM:
    """`LLM` backed by POST {base_url}/chat/completions; the key is optional (local servers need none)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OPENAI_BASE_URL,
        api_key: str | None = None,
        json_mode: JsonMode = "json_schema",
        token_limit_field: str = "max_tokens",
        provider: str = "openai-compatible",
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        http_client: httpx2.AsyncClient | None = None,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        if json_mode not in JSON_MODES:
            raise ValueError(f"json_mode must be one of {', '.join(JSON_MODES)}, got {json_mode!r}")
        self.model = model
        self.json_mode = json_mode
        self.token_limit_field = token_limit_field
        headers = {"content-type": "application/json"}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        url = f"{base_url.rstrip('/')}/chat/completions"
        self.endpoint = ModelEndpoint(
            provider, url, headers, secret=api_key, timeout=timeout, retry=retry or RetryPolicy(), client=http_client, sleep=sleep
        )

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM(model={self.model!r}, url={self.endpoint.url!r}, json_mode={self.json_mode!r})"

    async def complete(self, request: ModelRequest) -> ModelResponse:
        body = request_body(self.model, request, json_mode=self.json_mode, token_limit_field=self.token_limit_field)
        payload = await self.endpoint.post(body)
        return parse_completion(payload, request, provider=self.endpoint.provider, default_model=self.model)


def request_body(model: str, request: ModelRequest, *, json_mode: JsonMode, token_limit_field: str = "max_tokens") -> dict[str, Any]:
    """The chat completions body: system message first, then the conversation, then the JSON constraint."""
    system = request.system
    if json_mode != "json_schema":
        system = "\n\n".join(part for part in (system, schema_instructions(request.output_schema, request.schema_name)) if part)
    messages = [{"role": "system", "content": system}] if system else []
    messages += [{"role": message.role, "content": message.content} for message in request.messages]
    body: dict[str, Any] = {"model": model, "messages": messages, token_limit_field: request.max_tokens}
    if json_mode == "json_schema":
        schema = {"name": request.schema_name, "schema": dict(request.output_schema), "strict": False}
        body["response_format"] = {"type": "json_schema", "json_schema": schema}
    elif json_mode == "json_object":
        body["response_format"] = {"type": "json_object"}
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def parse_completion(payload: dict[str, Any], request: ModelRequest, *, provider: str, default_model: str) -> ModelResponse:
    """The JSON object in `choices[0].message.content` (``` fences tolerated).

    Raises:
        ModelOutputError: no choice, a refusal, a cut-off answer, or content that is not a JSON object.
    """
    choice = _first_choice(payload, provider)
    message: dict[str, Any] = choice["message"] if isinstance(choice.get("message"), dict) else {}
    if message.get("refusal"):
        raise ModelOutputError(f"{provider} refused to answer {request.schema_name}: {message['refusal']}", provider=provider)
    if choice.get("finish_reason") == "length":
        raise ModelOutputError(
            f"{provider} stopped at max_tokens={request.max_tokens} before finishing {request.schema_name}; raise max_tokens",
            provider=provider,
            finish_reason="length",
        )
    text = _content_text(message.get("content"))
    if not text.strip():
        raise ModelOutputError(f"{provider} answered {request.schema_name} with empty content", provider=provider)
    usage: dict[str, Any] = payload["usage"] if isinstance(payload.get("usage"), dict) else {}
    return ModelResponse(
        data=parse_json_object(text, source=provider),
        raw_text=text,
        model=str(payload.get("model") or default_model),
        usage=Usage(usage.get("prompt_tokens"), usage.get("completion_tokens")),
    )


def _first_choice(payload: dict[str, Any], provider: str) -> dict[str, Any]:
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ModelOutputError(f"{provider} answered without any choices", provider=provider)
    first: dict[str, Any] = choices[0]
    return first


def _content_text(content: Any) -> str:
    """`content` is a string; some servers send a list of {"type": "text", "text": ...} parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict) and part.get("type") == "text")
    return ""
