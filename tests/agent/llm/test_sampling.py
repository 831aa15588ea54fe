"""The sampling provider end to end: a throwaway MCPServer asks a real in-memory Client's model.

Sampling is deprecated by the 2026-07-28 spec (SEP-2577); the push form emits MCPDeprecationWarning,
which the two push tests below ignore on purpose (and nothing else does).
"""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from mcp import Client
from mcp.server import MCPServer
from mcp.server.mcpserver import Context, Resolve, Sample
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CreateMessageRequestParams, CreateMessageResult, ImageContent, TextContent

from alfred_mcp.agent.llm.base import ModelRequest
from alfred_mcp.errors import ModelError, ModelOutputError
from alfred_mcp.server.sampling import SamplingLLM, from_sample_result, push_sampler, to_sample
from alfred_mcp.state.schema_text import schema_text

# The push tests use deprecated sampling on purpose; the warning is expected there and only there.
DEPRECATED_SAMPLING = pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
ANSWER = '```json\n{"name": "Shakshuka"}\n```'
ERAS = [pytest.param("auto", id="2026-07-28"), pytest.param("legacy", id="2025-11-25")]


def _request(ingredient: str) -> ModelRequest:
    return ModelRequest.ask("understand", "You name dishes.", f"Name a dish with {ingredient}.", SCHEMA, "dish_name", max_tokens=200)


def _ask_model(ingredient: str) -> Sample:
    return to_sample(_request(ingredient))


def _server() -> MCPServer:
    server = MCPServer("sampling-test", version="0")

    @server.tool()
    async def name_dish(ingredient: str, answer: Annotated[CreateMessageResult, Resolve(_ask_model)]) -> dict[str, Any]:
        """Era-portable: the SDK samples before the body runs."""
        try:
            return from_sample_result(_request(ingredient), answer).data
        except ModelError as exc:
            raise ToolError(exc.message) from exc

    @server.tool()
    async def name_dish_push(ingredient: str, ctx: Context) -> dict[str, Any]:
        """Push: the provider samples from inside the body."""
        try:
            return (await SamplingLLM(push_sampler(ctx)).complete(_request(ingredient))).data
        except ModelError as exc:
            raise ToolError(exc.message) from exc

    return server


def _client(mode: str, seen: list[CreateMessageRequestParams], answer: str = ANSWER) -> Client:
    async def sampling_callback(context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        seen.append(params)
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=answer), model="client-model")

    return Client(_server(), mode=mode, sampling_callback=sampling_callback)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ERAS)
async def test_resolve_sample_reaches_the_clients_model_in_both_eras(mode: str) -> None:
    """The Resolve(Sample) form works on both protocol eras and its answer parses as the schema'd JSON."""
    seen: list[CreateMessageRequestParams] = []
    async with _client(mode, seen) as client:
        result = await client.call_tool("name_dish", {"ingredient": "eggs"})
    assert not result.is_error and result.structured_content == {"name": "Shakshuka"}
    (params,) = seen
    assert params.system_prompt.startswith("You name dishes.\n\nAnswer with a single JSON object (dish_name)")
    assert params.system_prompt.endswith(schema_text(SCHEMA))
    assert [(m.role, m.content.text) for m in params.messages] == [("user", "Name a dish with eggs.")]
    assert params.max_tokens == 200


@DEPRECATED_SAMPLING
@pytest.mark.anyio
async def test_push_sampling_works_on_a_handshake_connection() -> None:
    """On 2025-11-25 the provider can sample from inside a tool body."""
    seen: list[CreateMessageRequestParams] = []
    async with _client("legacy", seen) as client:
        result = await client.call_tool("name_dish_push", {"ingredient": "leeks"})
    assert not result.is_error and result.structured_content == {"name": "Shakshuka"}
    assert seen[0].messages[0].content.text == "Name a dish with leeks."


@DEPRECATED_SAMPLING
@pytest.mark.anyio
async def test_push_sampling_on_2026_is_unavailable_with_a_reason() -> None:
    """On 2026-07-28 there is no back-channel: the provider says so instead of hanging or crashing."""
    seen: list[CreateMessageRequestParams] = []
    async with _client("auto", seen) as client:
        result = await client.call_tool("name_dish_push", {"ingredient": "leeks"})
    text = result.content[0].text
    assert result.is_error and "needs a 2025-11-25 connection" in text and "configure ALFRED_MODEL" in text
    assert seen == []


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ERAS)
async def test_prose_from_the_clients_model_is_an_output_error(mode: str) -> None:
    """A sampled answer that is not JSON raises ModelOutputError in the tool, reported as a tool error."""
    seen: list[CreateMessageRequestParams] = []
    async with _client(mode, seen, answer="How about an omelette?") as client:
        result = await client.call_tool("name_dish", {"ingredient": "eggs"})
    assert result.is_error and "not a JSON object: 'How about an omelette?'" in result.content[0].text
    assert len(seen) == 1


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        pytest.param(
            CreateMessageResult(role="assistant", content=TextContent(type="text", text='{"name": "Sh'), model="m", stop_reason="maxTokens"),
            "stopped at max_tokens=200",
            id="cut-off",
        ),
        pytest.param(
            CreateMessageResult(role="assistant", content=ImageContent(type="image", data="aGk=", mime_type="image/png"), model="m"),
            "with image content, not text",
            id="image",
        ),
        pytest.param(
            CreateMessageResult(role="assistant", content=TextContent(type="text", text="An omelette."), model="m"),
            "not a JSON object",
            id="prose",
        ),
    ],
)
def test_unusable_sample_result_is_an_output_error(result: CreateMessageResult, expected: str) -> None:
    """Cut-off, non-text and non-JSON answers are refused with the reason."""
    with pytest.raises(ModelOutputError, match=expected):
        from_sample_result(_request("eggs"), result)


def test_sample_carries_the_conversation_and_options() -> None:
    """to_sample keeps roles, order, max_tokens and temperature."""
    request = ModelRequest.ask("think", "", "Plan.", SCHEMA, "plan", max_tokens=64, temperature=0.1)
    params = to_sample(request).params
    assert params.system_prompt.startswith("Answer with a single JSON object (plan)")
    assert (params.max_tokens, params.temperature) == (64, 0.1)
    assert [(m.role, m.content.text) for m in params.messages] == [("user", "Plan.")]
