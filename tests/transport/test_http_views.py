"""MCP Apps over real streamable HTTP, in both protocol eras: a server process offers the views to the client
that declares the extension and not to the one beside it that does not (2025-11-25: declared at the handshake
of its HTTP session; 2026-07-28: on every request)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.extension import advertise
from mcp.client.streamable_http import streamable_http_client
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID

sys.path.insert(0, str(Path(__file__).parents[1]))
from e2e.helpers import call  # noqa: E402
from http_harness import http_server  # noqa: E402

pytestmark = pytest.mark.anyio
TOKEN = "carol-token-0123456789"


def _client(url: str, mode: str, apps: bool) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
    extensions: Any = [advertise(EXTENSION_ID, {"mimeTypes": [APP_MIME_TYPE]})] if apps else None
    return Client(streamable_http_client(url, http_client=http), mode=mode, extensions=extensions)


async def _offer(client: Client) -> tuple[dict[str, Any], list[str]]:
    tools = {tool.name: tool.meta for tool in (await client.list_tools()).tools}
    views = [str(r.uri) for r in (await client.list_resources()).resources if str(r.uri).startswith("ui://")]
    return tools, views


async def test_views_are_offered_per_client_over_http_in_both_eras(tmp_path: Path) -> None:
    async with http_server(str(tmp_path / "kitchen.db"), {TOKEN: "carol"}) as url:
        for mode in ("auto", "legacy"):
            async with _client(url, mode, apps=True) as apps, _client(url, mode, apps=False) as plain:
                with_views, views = await _offer(apps)
                without, none = await _offer(plain)
                (content,) = (await apps.read_resource("ui://alfred/shopping-list.html")).contents
                shown = await call(plain, "shopping_list_show")
            assert with_views["recipe_show"] == {"ui": {"resourceUri": "ui://alfred/recipe.html"}}, mode
            assert "shopping_list_check" in with_views and len(views) == 3, mode
            assert without["recipe_show"] is None and "shopping_list_check" not in without and none == [], mode
            assert content.mime_type == APP_MIME_TYPE and shown["sections"] == []
