"""A client's protocol mistakes are JSON-RPC invalid params (-32602) naming what exists, in both eras."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client, MCPError
from mcp.types import INVALID_PARAMS, PromptReference, ResourceTemplateReference

from alfred_mcp.contracts import load_contracts

pytestmark = [pytest.mark.anyio, pytest.mark.both_eras]  # the subject is the protocol: both eras (tests/conftest.py)
REF_TEMPLATE = ResourceTemplateReference(uri="alfred://session/{session}/ref/{ref}")


async def invalid_params(call: Any) -> MCPError:
    with pytest.raises(MCPError) as raised:
        await call
    assert raised.value.error.code == INVALID_PARAMS, raised.value.error
    return raised.value


async def test_an_unknown_tool_is_invalid_params_naming_the_tools(client: Client) -> None:
    error = await invalid_params(client.call_tool("no_such_tool", {}))
    assert error.error.message.startswith("Unknown tool: no_such_tool. Tools: ")
    assert all(name in error.error.message for name in load_contracts())
    assert error.error.data == {"name": "no_such_tool"}


@pytest.mark.parametrize(
    ("name", "arguments", "words"),
    [
        pytest.param("no_such_prompt", {}, "Unknown prompt: no_such_prompt. Prompts: understand, think, act, reply.", id="unknown"),
        pytest.param("act", {}, "Prompt act needs the argument: step_type.", id="missing-required"),
        pytest.param("think", {"colour": "red"}, "Prompt think has no argument colour; it takes: message, session.", id="unknown-arg"),
    ],
)
async def test_a_bad_prompt_request_is_invalid_params_naming_it(client: Client, name: str, arguments: dict[str, str], words: str) -> None:
    error = await invalid_params(client.get_prompt(name, arguments))
    assert error.error.message == words


@pytest.mark.parametrize(
    ("ref", "argument", "words"),
    [
        pytest.param(PromptReference(name="no_such_prompt"), "session", "Unknown prompt: no_such_prompt.", id="unknown-prompt"),
        pytest.param(PromptReference(name="act"), "bogus_arg", "Prompt act has no argument 'bogus_arg'; it takes: step_type,", id="unknown-arg"),
        pytest.param(ResourceTemplateReference(uri="alfred://nowhere/{x}"), "x", "Unknown resource template: alfred://nowhere/{x}.", id="unknown-template"),
        pytest.param(REF_TEMPLATE, "table", "Template alfred://session/{session}/ref/{ref} has no argument 'table'; it takes: session, ref.",
                     id="template-arg"),
    ],
)
async def test_a_completion_for_something_the_server_lacks_is_invalid_params(
    client: Client, ref: PromptReference | ResourceTemplateReference, argument: str, words: str
) -> None:
    error = await invalid_params(client.complete(ref, {"name": argument, "value": ""}))
    assert error.error.message.startswith(words)


async def test_a_free_text_argument_completes_to_nothing(client: Client) -> None:
    """`message` is the user's own text: there is nothing to offer, and that is not an error."""
    completion = (await client.complete(PromptReference(name="think"), {"name": "message", "value": "fi"})).completion
    assert completion.values == []
