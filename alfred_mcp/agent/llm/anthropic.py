"""The Anthropic Messages API over plain HTTP; JSON output through one forced tool whose input is the answer."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import anyio
import httpx2

from alfred_mcp.agent.llm.base import ModelRequest, ModelResponse, Usage
from alfred_mcp.agent.llm.transport import ModelEndpoint, RetryPolicy, Sleep
from alfred_mcp.errors import ModelOutputError

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
PROVIDER = "anthropic"


class AnthropicLLM:
    """`LLM` backed by POST {base_url}/v1/messages with `tool_choice` forcing the schema tool."""

    def __init__(
        self,
        model: str,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
        http_client: httpx2.AsyncClient | None = None,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        self.model = model
        headers = {"x-api-key": api_key, "anthropic-version": API_VERSION, "content-type": "application/json"}
        url = f"{base_url.rstrip('/')}/v1/messages"
        self.endpoint = ModelEndpoint(
            PROVIDER, url, headers, secret=api_key, timeout=timeout, retry=retry or RetryPolicy(), client=http_client, sleep=sleep,
            where=f"{PROVIDER} at {base_url.rstrip('/')}",
        )

    def __repr__(self) -> str:
        return f"AnthropicLLM(model={self.model!r}, url={self.endpoint.url!r})"

    async def complete(self, request: ModelRequest) -> ModelResponse:
        delivered = await self.endpoint.post(request_body(self.model, request))
        return replace(parse_message(delivered.value, request, default_model=self.model), requests=delivered.requests)


def request_body(model: str, request: ModelRequest) -> dict[str, Any]:
    """The Messages API body: the conversation plus one tool whose `input_schema` is the output schema."""
    body: dict[str, Any] = {
        "model": model,
        "max_tokens": request.max_tokens,
        "messages": [{"role": message.role, "content": message.content} for message in request.messages],
        "tools": [
            {
                "name": request.schema_name,
                "description": f"Record the {request.role} result. The input is the whole answer.",
                "input_schema": dict(request.output_schema),
            }
        ],
        "tool_choice": {"type": "tool", "name": request.schema_name},
    }
    if request.system:
        body["system"] = request.system
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return body


def parse_message(payload: dict[str, Any], request: ModelRequest, *, default_model: str) -> ModelResponse:
    """The forced tool's `input` from a Messages API response.

    Raises:
        ModelOutputError: the answer was cut off at max_tokens or did not call the tool.
    """
    blocks = payload.get("content")
    stop_reason = payload.get("stop_reason")
    if stop_reason == "max_tokens":
        raise ModelOutputError(
            f"{PROVIDER} stopped at max_tokens={request.max_tokens} before finishing {request.schema_name}; raise max_tokens",
            provider=PROVIDER,
            stop_reason=stop_reason,
        )
    tool_input = _tool_input(blocks if isinstance(blocks, list) else [], request.schema_name)
    if tool_input is None:
        raise ModelOutputError(
            f"{PROVIDER} answered without calling the {request.schema_name} tool (stop_reason={stop_reason}): {_text(blocks)!r}",
            provider=PROVIDER,
            stop_reason=stop_reason,
        )
    usage: dict[str, Any] = payload["usage"] if isinstance(payload.get("usage"), dict) else {}
    return ModelResponse(
        data=tool_input,
        raw_text=json.dumps(tool_input),
        model=str(payload.get("model") or default_model),
        usage=Usage(usage.get("input_tokens"), usage.get("output_tokens")),
    )


def _tool_input(blocks: list[Any], name: str) -> dict[str, Any] | None:
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") == name:
            value = block.get("input")
            return value if isinstance(value, dict) else None
    return None


def _text(blocks: Any) -> str:
    if not isinstance(blocks, list):
        return ""
    return " ".join(str(block.get("text", "")) for block in blocks if isinstance(block, dict) and block.get("type") == "text")[:200]
