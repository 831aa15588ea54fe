"""Small helpers for driving tools through the real client."""

from __future__ import annotations

from typing import Any

from mcp import Client

from alfred_mcp.server.leak_guard import find_uuid


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; return its structured content (checked for UUIDs)."""
    result = await client.call_tool(tool, arguments)
    text = "".join(block.text for block in result.content if block.type == "text")
    assert not result.is_error, text
    assert find_uuid(text) is None and find_uuid(result.structured_content) is None
    return result.structured_content


async def call_error(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must fail; return the error's structured fields (checked for UUIDs)."""
    result = await client.call_tool(tool, arguments)
    text = "".join(block.text for block in result.content if block.type == "text")
    assert result.is_error, f"{tool} unexpectedly succeeded: {text}"
    assert find_uuid(text) is None and find_uuid(result.structured_content) is None
    return result.structured_content["error"] if result.structured_content else {"message": text}


def eq(field: str, value: Any) -> dict[str, Any]:
    return {"field": field, "op": "eq", "value": value}


def among(field: str, values: list[Any]) -> dict[str, Any]:
    return {"field": field, "op": "in", "value": values}
