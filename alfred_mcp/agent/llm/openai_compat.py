"""Any OpenAI-compatible chat completions endpoint (OpenAI, llama.cpp, vLLM, Ollama, LM Studio...).

JSON output, by `json_mode`:
- "json_schema": `response_format` carries the schema (OpenAI, llama-server, vLLM, Ollama);
- "json_object": `response_format={"type": "json_object", "schema": ...}` (llama.cpp servers turn the schema
  into a grammar; others ignore it) and the schema in the system message;
- "prompt": no `response_format` at all, the schema in the system message (servers that reject both);
- "auto" (the default): json_schema; when a server refuses a `response_format`, the next mode down, once.
  The mode that worked is remembered per endpoint for the process and logged once.

Answers are streamed unless `stream=False`: past the role's token budget or the timeout alfred stops reading,
which closes the connection, and servers that stop generating for a client that left (llama.cpp's) stop.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Literal, get_args

import anyio
import httpx2

from alfred_mcp.agent.llm.base import ModelRequest, ModelResponse, Usage
from alfred_mcp.agent.llm.output import parse_json_object, schema_instructions
from alfred_mcp.agent.llm.transport import ModelEndpoint, RetryPolicy, Sleep
from alfred_mcp.config import JSON_MODE_ENV, JSON_MODES, MAX_TOKENS_ENV
from alfred_mcp.errors import ModelError, ModelOutputError

logger = logging.getLogger(__name__)
JsonMode = Literal["json_schema", "json_object", "prompt"]
WIRE_MODES: tuple[str, ...] = get_args(JsonMode)
FALLBACK: dict[str, JsonMode] = {"json_schema": "json_object", "json_object": "prompt"}
FORMAT_REFUSAL = re.compile(r"response_format|json_schema|json_object|schema|grammar|structured", re.IGNORECASE)
OPENAI_BASE_URL = "https://api.openai.com/v1"
GRAMMAR_MAX_LENGTH = 1000
"""llama-cpp-python builds a grammar from the schema and crashes (SIGSEGV) on a string maxLength above about 1000."""
OVERRUN_TOKENS = 16
CHARS_PER_TOKEN = 8
"""A streamed answer longer than max_tokens deltas (or 8 characters a token) is cut by alfred: the server ignored the cap."""
_negotiated: dict[str, JsonMode] = {}
"""The JSON mode each endpoint settled on in "auto", for the life of the process."""


class OpenAICompatibleLLM:
    """`LLM` backed by POST {base_url}/chat/completions; the key is optional (local servers need none)."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OPENAI_BASE_URL,
        api_key: str | None = None,
        json_mode: str = "auto",
        token_limit_field: str = "max_tokens",
        provider: str = "openai-compatible",
        timeout: float = 120.0,
        stream: bool = True,
        retry: RetryPolicy | None = None,
        http_client: httpx2.AsyncClient | None = None,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        if json_mode not in JSON_MODES:
            raise ValueError(f"json_mode must be one of {', '.join(JSON_MODES)}, got {json_mode!r}")
        self.model = model
        self.json_mode = json_mode
        self.token_limit_field = token_limit_field
        self.stream = stream
        headers = {"content-type": "application/json"}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        base_url = base_url.rstrip("/")
        self.endpoint = ModelEndpoint(
            provider, f"{base_url}/chat/completions", headers, secret=api_key, timeout=timeout, retry=retry or RetryPolicy(),
            client=http_client, sleep=sleep, where=f"{provider} at {base_url}",
        )

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM(model={self.model!r}, url={self.endpoint.url!r}, json_mode={self.json_mode!r})"

    @property
    def wire_mode(self) -> JsonMode:
        """The JSON mode the next request uses: the pinned one, or what "auto" settled on so far."""
        if self.json_mode != "auto":
            return self.json_mode  # type: ignore[return-value]
        return _negotiated.get(self._key, "json_schema")

    @property
    def _key(self) -> str:
        return f"{self.endpoint.url} {self.model}"

    async def complete(self, request: ModelRequest) -> ModelResponse:
        mode, spent = self.wire_mode, 0
        while True:
            body = request_body(self.model, request, json_mode=mode, token_limit_field=self.token_limit_field, stream=self.stream)
            try:
                delivered = await self.endpoint.send(body, lambda response: self._read(response, request))
            except ModelError as error:
                spent += int(error.fields.get("requests", 1))
                fallback = self._fallback(mode, error)
                if fallback is None:
                    error.fields["requests"] = spent
                    raise
                mode = fallback
                continue
            response = parse_completion(delivered.value, request, provider=self.endpoint.where, default_model=self.model)
            return replace(response, requests=spent + delivered.requests)

    def _fallback(self, mode: JsonMode, error: ModelError) -> JsonMode | None:
        """In "auto", the next mode down when the server refused this one's response_format (remembered, logged once)."""
        if self.json_mode != "auto" or type(error) is not ModelError or not FORMAT_REFUSAL.search(error.remote):
            return None
        fallback = FALLBACK.get(mode)
        if fallback is not None:
            _negotiated[self._key] = fallback
            logger.warning(
                "%s refused response_format %s; using %s from now on (set %s=%s to skip this check)",
                self.endpoint.where, mode, fallback, JSON_MODE_ENV, fallback,
            )
        return fallback

    async def _read(self, response: httpx2.Response, request: ModelRequest) -> dict[str, Any]:
        if "text/event-stream" not in response.headers.get("content-type", ""):
            await response.aread()
            try:
                payload = response.json()
            except ValueError:
                payload = None
            if not isinstance(payload, dict):
                raise ModelOutputError(f"{self.endpoint.where} answered with a body that is not a JSON object", provider=self.endpoint.provider)
            return payload
        return await read_stream(response, request, where=self.endpoint.where)


async def read_stream(response: httpx2.Response, request: ModelRequest, *, where: str) -> dict[str, Any]:
    """A streamed completion gathered into the shape of a plain one; reading stops past the token budget."""
    parts: list[str] = []
    refusal: list[str] = []
    finish: str | None = None
    model: Any = None
    usage: Any = None
    async for line in response.aiter_lines():
        if not line.startswith("data:"):
            continue  # comments (": ping"), event names, blank separators
        data = line[5:].strip()
        if data == "[DONE]":
            break
        chunk = _json_or_none(data)
        if not isinstance(chunk, dict):
            continue
        if chunk.get("error"):
            raise ModelOutputError(f"{where} failed mid-answer: {_chunk_error(chunk['error'])}", provider=where)
        model, usage = chunk.get("model") or model, chunk.get("usage") or usage
        choices = chunk.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
        delta: dict[str, Any] = choice["delta"] if isinstance(choice.get("delta"), dict) else {}
        if isinstance(delta.get("content"), str):
            parts.append(delta["content"])
        if isinstance(delta.get("refusal"), str):
            refusal.append(delta["refusal"])
        finish = choice.get("finish_reason") or finish
        if len(parts) > request.max_tokens + OVERRUN_TOKENS or sum(map(len, parts)) > request.max_tokens * CHARS_PER_TOKEN:
            finish = "length"
            break
    message = {"role": "assistant", "content": "".join(parts), "refusal": "".join(refusal) or None}
    return {"model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}


def request_body(
    model: str, request: ModelRequest, *, json_mode: JsonMode, token_limit_field: str = "max_tokens", stream: bool = False
) -> dict[str, Any]:
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
        body["response_format"] = {"type": "json_object", "schema": grammar_safe(request.output_schema)}
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if stream:
        body["stream"] = True
    return body


def grammar_safe(schema: Any) -> Any:
    """The schema without the string length caps a grammar cannot hold (llama-cpp-python crashes above ~1000)."""
    if isinstance(schema, Mapping):
        return {
            key: grammar_safe(value) for key, value in schema.items()
            if not (key == "maxLength" and isinstance(value, int) and value > GRAMMAR_MAX_LENGTH)
        }
    if isinstance(schema, list):
        return [grammar_safe(item) for item in schema]
    return schema


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
            f"{provider} stopped at max_tokens={request.max_tokens} before finishing {request.schema_name}",
            provider=provider, finish_reason="length", hint=f"answer more briefly, or raise {MAX_TOKENS_ENV}",
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


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _chunk_error(error: Any) -> str:
    message = error.get("message") if isinstance(error, dict) else error
    return str(message)[:160] if message else "an error event"
