"""The kitchen tools and host controls over real streamable HTTP on PostgreSQL, in both protocol eras.

A server process (alfred-mcp serve --http) on a fresh PostgreSQL database imports from a loopback
recipe site (its host allows 127.0.0.0/8), saves, scales, exports, builds a shopping list, records a
cooked meal and walks it back with kitchen_undo; deletes ask for confirmation through elicitation.
A second server, with the default policy and an allow-list, refuses loopback addresses.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).parents[1]))
from e2e.helpers import call, call_error, eq  # noqa: E402
from http_harness import http_server  # noqa: E402
from recipe_site import recipe_site  # noqa: E402

pytestmark = pytest.mark.anyio
TOKENS = {"alice-token-0123456789": "alice", "bob-token-0123456789ab": "bob"}
MODES = {"auto": "alice-token-0123456789", "legacy": "bob-token-0123456789ab"}


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with recipe_site() as url:
        yield url


def _client(url: str, token: str, mode: str, **kwargs: Any) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    return Client(streamable_http_client(url, http_client=http), mode=mode, **kwargs)


async def test_import_save_scale_shop_cook_and_undo_over_http(pg_url: str, site: str) -> None:
    asked: list[str] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        """Yes to undoing the shopping list (it removes 5 lines), no to deleting the recipe."""
        asked.append(params.message)
        if params.message.startswith("Undo of"):
            return types.ElicitResult(action="accept", content={"confirm": True})
        return types.ElicitResult(action="decline")

    async with http_server(pg_url, TOKENS, {"ALFRED_IMPORT_ALLOW_NETWORKS": "127.0.0.0/8"}) as url:
        for mode, token in MODES.items():
            async with _client(url, token, mode, elicitation_callback=answer) as client:
                assert client.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
                imported = await call(client, "recipes_import", source=f"{site}/lemon-cod")
                saved = await call(client, "draft_save", refs=[imported["drafts"][0]["ref"]])
                recipe = saved["items"][0]["saved_as"]
                scaled = await call(client, "recipes_scale", recipe=recipe, servings=8)
                assert {i["name"]: i["text"] for i in scaled["ingredients"]}["olive oil"] == "3 tbsp olive oil"
                exported = await call(client, "recipes_export", recipe=recipe)
                again = await call(client, "recipes_import", source=json.dumps(exported["content"]))
                assert again["drafts"][0]["content"]["ingredients"] == imported["drafts"][0]["content"]["ingredients"]
                await call(client, "db_create", table="inventory", data=[{"name": "olive oil", "quantity": 500, "unit": "ml"},
                                                                         {"name": "cod fillets", "quantity": 2, "unit": "piece"}])
                shopping = await call(client, "shopping_list_from", recipes=[recipe])
                assert {line["name"]: line["quantity"] for line in shopping["lines"]}["cod fillets"] == 2
                cooked = await call(client, "meal_cooked", recipe=recipe)
                assert {line["name"] for line in cooked["deducted"]} >= {"olive oil", "cod fillets"}
                assert (await call(client, "kitchen_undo"))["undone"]["tool"] == "meal_cooked"
                assert (await call(client, "kitchen_undo"))["undone"]["tool"] == "shopping_list_from"
                oil = await call(client, "db_read", table="inventory", filters=[eq("name", "olive oil")])
                assert oil["rows"][0]["quantity"] == 500
                declined = await call_error(client, "db_delete", table="recipes", filters=[eq("id", recipe)])
                assert declined["code"] == "declined" and recipe in asked[-1]
                assert (await call(client, "db_read", table="recipes", filters=[eq("id", recipe)]))["count"] == 1
        assert len(asked) == 4 and sum(q.startswith("Undo of the shopping_list_from") for q in asked) == 2


async def test_a_multi_user_server_refuses_loopback_addresses_and_serves_its_allow_list(pg_url: str, site: str) -> None:
    async with http_server(pg_url, TOKENS, {"ALFRED_TOOLS": "kitchen,db_read"}) as url:
        for mode, token in MODES.items():
            async with _client(url, token, mode) as client:
                listed = {tool.name for tool in (await client.list_tools()).tools}
                assert "recipes_import" in listed and "db_delete" not in listed and "db_read" in listed
                error = await call_error(client, "recipes_import", source=f"{site}/lemon-cod")
                assert error["field"] == "source" and "private or loopback address" in error["message"]
                local = await call_error(client, "recipes_import", source="/tmp/export.paprikarecipes")
                assert "only when the server runs on stdio" in local["message"]
                assert (await call(client, "draft_read"))["count"] == 0 if "draft_read" in listed else True


async def test_a_read_only_http_server_serves_reads_only(pg_url: str) -> None:
    async with http_server(pg_url, TOKENS, {"ALFRED_READ_ONLY": "1"}) as url:
        for mode, token in MODES.items():
            async with _client(url, token, mode) as client:
                listed = {tool.name for tool in (await client.list_tools()).tools}
                assert {"db_read", "recipes_scale", "recipes_export"} <= listed and not listed & {"db_create", "kitchen_undo"}
                refused = await client.call_tool("db_create", {"table": "tasks", "data": {"title": "x"}})
                assert refused.is_error and "read-only" in refused.content[0].text
