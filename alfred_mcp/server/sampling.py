"""The MCP client's own model through sampling: optional, isolated, and deprecated in the 2026-07-28 spec.

Two ways to reach the client, both built from the same `Sample` (`to_sample`) and parser (`from_sample_result`):

- Era-portable: a tool parameter `Annotated[CreateMessageResult, Resolve(resolver)]` whose resolver returns
  `to_sample(request)`; the SDK delivers it on 2025-11-25 (a mid-call request) and on 2026-07-28
  (input_required round trip). One model call per tool call.
- Push (`push_sampler(ctx)`), for a loop that needs several calls inside one tool call: works only on
  handshake-era connections; on 2026-07-28 it fails with `ModelUnavailableError` saying so.

The schema travels as text in the system prompt: sampling has no structured-output parameter.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

from mcp import MCPError
from mcp.server.mcpserver import Context, Sample
from mcp.types import CreateMessageResult, SamplingMessage, TextContent

from alfred_mcp.agent.llm.base import ModelRequest, ModelResponse, note_request_sent
from alfred_mcp.agent.llm.output import parse_json_object, schema_instructions
from alfred_mcp.errors import ModelOutputError, ModelUnavailableError

SampleFn = Callable[[Sample], Awaitable[CreateMessageResult]]
"""Asks the client's model once; `push_sampler` builds one from a tool's Context."""
PROVIDER = "sampling"


def to_sample(request: ModelRequest) -> Sample:
    """The era-portable sampling request for `request` (return it from a `Resolve` resolver)."""
    system = "\n\n".join(part for part in (request.system, schema_instructions(request.output_schema, request.schema_name)) if part)
    messages = [SamplingMessage(role=m.role, content=TextContent(type="text", text=m.content)) for m in request.messages]
    return Sample(messages, max_tokens=request.max_tokens, system_prompt=system, temperature=request.temperature)


def from_sample_result(request: ModelRequest, result: CreateMessageResult) -> ModelResponse:
    """The JSON object in the client's answer.

    Raises:
        ModelOutputError: the answer was cut off, is not text, or is not a JSON object.
    """
    if result.stop_reason == "maxTokens":
        raise ModelOutputError(
            f"The client's model stopped at max_tokens={request.max_tokens} before finishing {request.schema_name}",
            provider=PROVIDER,
        )
    if not isinstance(result.content, TextContent):
        raise ModelOutputError(
            f"The client's model answered {request.schema_name} with {result.content.type} content, not text", provider=PROVIDER
        )
    text = result.content.text
    return ModelResponse(data=parse_json_object(text, source=f"the client's model ({result.model})"), raw_text=text, model=result.model)


class SamplingLLM:
    """`LLM` that asks the MCP client's model through `ask` (see `push_sampler`)."""

    def __init__(self, ask: SampleFn) -> None:
        self._ask = ask

    async def complete(self, request: ModelRequest) -> ModelResponse:
        note_request_sent()
        return from_sample_result(request, await self._ask(to_sample(request)))


def push_sampler(ctx: Context[Any, Any]) -> SampleFn:
    """A `SampleFn` that sends `sampling/createMessage` mid-call (handshake-era connections only)."""

    async def ask(sample: Sample) -> CreateMessageResult:
        params = sample.params
        try:
            # Emits MCPDeprecationWarning (SEP-2577): left visible on purpose, sampling is opt-in.
            result = await ctx.session.create_message(
                params.messages,
                max_tokens=params.max_tokens,
                system_prompt=params.system_prompt,
                temperature=params.temperature,
                related_request_id=ctx.request_id,
            )
        except MCPError as exc:
            raise ModelUnavailableError(
                f"The client's model could not be sampled ({exc.message}); sampling inside a call needs a "
                "2025-11-25 connection with the sampling capability, so configure ALFRED_MODEL instead",
                provider=PROVIDER,
            ) from exc
        return cast(CreateMessageResult, result)  # no tools offered, so never the with-tools variant

    return ask
