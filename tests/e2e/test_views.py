"""MCP Apps contract: the views are offered only to clients that declare the extension, each `ui://` view is a
self-contained `text/html;profile=mcp-app` document, every tool with a view answers in full without it, and
--no-ui leaves the extension out. Through the real client, in both protocol eras."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import date, timedelta
from typing import Any

import pytest
from mcp import Client
from mcp.client.extension import advertise
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID

from alfred_mcp.app import AlfredApp
from alfred_mcp.cli import build_parser
from alfred_mcp.config import Settings
from alfred_mcp.contracts import load_contracts
from alfred_mcp.kitchen.ingredient_match import is_disliked
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import SHOPPING_LIST
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.server.apps import MAX_VIEW_BYTES, VIEWS, render_view
from alfred_mcp.server.mcp_server import AlfredServer, build_server

from .helpers import call, call_error, eq

pytestmark = [pytest.mark.anyio, pytest.mark.both_eras]  # the subject is the protocol: both eras (tests/conftest.py)
MODES = pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["2026-07-28", "2025-11-25"])
VIEW_TOOLS = sorted(name for name, c in load_contracts().items() if (c.meta or {}).get("ui", {}).get("resourceUri"))
APP_ONLY = sorted(name for name, c in load_contracts().items() if c.app_only)
ARGUMENTS = {
    "recipe_show": {"recipe": "recipe_1"},
    "meal_plan_show": {"from": "2026-01-12", "to": "2026-01-18"},
    "shopping_list_show": {},
}
"""Arguments for each tool with a view (after a db_read of recipes gave recipe_1): a new view tool needs its own."""


def _apps(server: AlfredServer, mode: str = "auto", mime: str = APP_MIME_TYPE) -> Client:
    return Client(server, mode=mode, extensions=[advertise(EXTENSION_ID, {"mimeTypes": [mime]})])


def _served(app: AlfredApp, **settings: Any) -> AlfredServer:
    app.settings = replace(app.settings, **settings)
    return build_server(app)


async def _offer(client: Client) -> tuple[dict[str, Any], list[str]]:
    """Each listed tool's `_meta`, and the listed `ui://` resources."""
    tools = {tool.name: tool.meta for tool in (await client.list_tools()).tools}
    resources = [str(resource.uri) for resource in (await client.list_resources()).resources]
    return tools, [uri for uri in resources if uri.startswith("ui://")]


def test_the_views_and_the_view_only_tool_are_named_by_the_contracts() -> None:
    assert VIEW_TOOLS == ["meal_plan_show", "recipe_show", "shopping_list_show"] and APP_ONLY == ["shopping_list_check"]
    assert sorted(ARGUMENTS) == VIEW_TOOLS
    uris = {load_contracts()[name].meta["ui"]["resourceUri"] for name in VIEW_TOOLS}  # type: ignore[index]
    assert uris == {view.uri for view in VIEWS}


@MODES
async def test_a_client_that_declares_mcp_apps_is_offered_the_views(server: AlfredServer, mode: str) -> None:
    async with _apps(server, mode) as client:
        tools, views = await _offer(client)
    for name in VIEW_TOOLS + APP_ONLY:
        assert tools[name] == load_contracts()[name].meta
    assert tools["shopping_list_check"] == {"ui": {"visibility": ["app"]}}
    assert sorted(views) == sorted(view.uri for view in VIEWS)
    assert all(meta is None for name, meta in tools.items() if name not in VIEW_TOOLS + APP_ONLY)


@MODES
@pytest.mark.parametrize("declared", ["nothing", "another mime type"])
async def test_a_client_that_does_not_declare_mcp_apps_is_offered_no_view(server: AlfredServer, mode: str, declared: str) -> None:
    """No `_meta.ui`, no `ui://` resource, no view-only tool in tools/list; the view-only tool is still served by name
    (like the extras of the default list), through the same checks."""
    plain = Client(server, mode=mode) if declared == "nothing" else _apps(server, mode, mime="text/html")
    async with plain as client:
        tools, views = await _offer(client)
        listed = await call(client, "shopping_list_show")
        ref = listed["sections"][0]["lines"][0]["ref"]
        ticked = await call(client, "shopping_list_check", items=[ref], bought=True)
    assert views == [] and all(meta is None for meta in tools.values())
    assert set(VIEW_TOOLS) <= set(tools) and not set(APP_ONLY) & set(tools)
    assert ticked["lines"][0]["bought"] is True


async def test_an_allow_list_that_names_the_view_only_tool_lists_it_to_any_client(app: AlfredApp) -> None:
    async with Client(_served(app, tools=("views",))) as client:
        tools, views = await _offer(client)
    assert set(tools) == set(VIEW_TOOLS + APP_ONLY) and views == [] and all(meta is None for meta in tools.values())


@pytest.mark.parametrize("declared", ["mcp apps", "nothing", "another mime type"])
async def test_the_extension_is_advertised_only_to_a_client_that_declares_it(server: AlfredServer, declared: str) -> None:
    """2026-07-28 server/discover answers each client with its own capabilities: the MCP Apps entry for a client
    that declared the extension with the view MIME type, none for any other (the rest of the capabilities alike)."""
    client = {"mcp apps": _apps(server), "nothing": Client(server),
              "another mime type": _apps(server, mime="text/html")}[declared]
    async with client as connected:
        capabilities, version = connected.server_capabilities, connected.protocol_version
    assert version == "2026-07-28"
    assert (EXTENSION_ID in (capabilities.extensions or {})) is (declared == "mcp apps")
    assert capabilities.tools is not None and capabilities.resources is not None and capabilities.prompts is not None


@pytest.mark.parametrize("view", VIEWS, ids=[view.file for view in VIEWS])
async def test_each_view_reads_as_a_self_contained_mcp_app_document(server: AlfredServer, view: Any) -> None:
    async with _apps(server) as client:
        (content,) = (await client.read_resource(view.uri)).contents
    html = content.text  # type: ignore[union-attr]
    assert content.mime_type == APP_MIME_TYPE == "text/html;profile=mcp-app"
    assert content.meta == {"ui": {"csp": {}, "prefersBorder": True}}
    assert html.startswith("<!doctype html>") and html.rstrip().endswith("</html>") and html == render_view(view.file)
    assert "/*INLINE:" not in html and "window.mcpApp" in html and "window.alfredView" in html
    assert len(html.encode()) < MAX_VIEW_BYTES
    assert not re.search(r"""(?:src|href|action)\s*=\s*["']?(?:https?:)?//|@import|url\(|https?://""", html, re.I)
    assert not re.search(r"\beval\(|new Function\(|localStorage|document\.cookie|\bfetch\(", html)


def _shown(structured: Any) -> Iterator[str]:
    """Every ref, name and line a view shows from a result."""
    if isinstance(structured, dict):
        for key, value in structured.items():
            if key in ("ref", "recipe", "name", "text", "allergen", "notes", "source") and isinstance(value, str):
                yield value
            elif key not in ("session",):
                yield from _shown(value)
    elif isinstance(structured, list):
        for item in structured:
            yield from ([item] if isinstance(item, str) else _shown(item))


@MODES
@pytest.mark.parametrize("tool", VIEW_TOOLS)
async def test_every_tool_with_a_view_answers_in_full_without_it(server: AlfredServer, mode: str, tool: str) -> None:
    """A client that renders no view gets readable text holding everything the view would show, refs included."""
    async with Client(server, mode=mode) as client:
        await call(client, "db_read", table="recipes", filters=[eq("name", "Greek Lemon Chicken and Potatoes")])
        result = await client.call_tool(tool, ARGUMENTS[tool])
    assert not result.is_error
    (block,) = result.content
    text = block.text  # type: ignore[union-attr]
    assert not text.lstrip().startswith("{") and len(text.splitlines()) >= 3
    shown = list(_shown(result.structured_content))
    assert len(shown) >= 5
    missing = [value for value in shown if value.lower() not in text.lower()]  # 'Kalamata olives' as a card spells it
    assert missing == [], f"{tool}'s text leaves out {missing}"


async def test_the_recipe_card_marks_allergens_and_conflicts_from_the_standing_constraints(client: Client) -> None:
    await call(client, "db_update", table="preferences", filters=[], all=True,
               data={"allergies": ["peanuts", "tree nuts"], "dietary_restrictions": ["vegetarian"]})
    consent = {"allergens": ["peanuts", "tree nuts"], "reason": "kept for a guest, with the user's consent"}
    recipe = (await call(client, "db_create", table="recipes", data={"name": "Satay Chicken", "servings": 2},
                         allergy_override=consent))["rows"][0]["id"]
    await call(client, "db_create", table="recipe_ingredients", allergy_override=consent, data=[
        {"recipe_id": recipe, "position": 1, "name": "chicken thighs", "quantity": 500, "unit": "g"},
        {"recipe_id": recipe, "position": 2, "name": "peanut butter", "quantity": 3, "unit": "tbsp"},
        {"recipe_id": recipe, "position": 3, "name": "cashews", "quantity": 30, "unit": "g", "is_optional": True},
    ])
    card = await call(client, "recipe_show", recipe=recipe)
    assert card["allergens"] == [{"allergen": "peanuts", "ingredients": ["peanut butter"]},
                                 {"allergen": "tree nuts", "ingredients": ["cashews"]}]
    assert [line.get("allergen") for line in card["ingredients"]] == [None, "peanuts", "tree nuts"]
    assert card["conflicts"] == ["not vegetarian: chicken thighs"]
    assert card["steps"] == [] and card["ingredients"][0]["text"] == "500 g chicken thighs"


async def test_the_shopping_list_is_grouped_by_store_section_in_walking_order(client: Client) -> None:
    await call(client, "db_create", table="shopping_list", data=[
        {"name": "chicken stock", "quantity": 1, "unit": "l"}, {"name": "fish sauce"}, {"name": "batteries", "category": "Household"},
    ])
    listed = await call(client, "shopping_list_show")
    sections = [section["section"] for section in listed["sections"]]
    assert sections == ["produce", "bakery", "meat", "dairy", "soups & broths", "condiments", "beverages", "household"]
    broths = next(section for section in listed["sections"] if section["section"] == "soups & broths")
    assert [line["text"] for line in broths["lines"]] == ["1 l chicken stock"]
    assert listed["open"] == 12 and listed["bought"] == 3 and listed["truncated"] is False


async def test_ticking_and_unticking_lines_changes_the_database_and_nothing_else(app: AlfredApp, server: AlfredServer) -> None:
    before = {row["id"]: row for row in await app.store.select(SHOPPING_LIST, Query(), user_id=app.user_id)}
    async with _apps(server) as client:
        listed = await call(client, "shopping_list_show")
        refs = [line["ref"] for section in listed["sections"] for line in section["lines"] if not line["bought"]][:2]
        ticked = await call(client, "shopping_list_check", items=refs, bought=True)
        assert [line["bought"] for line in ticked["lines"]] == [True, True]
        assert (ticked["open"], ticked["bought"]) == (listed["open"] - 2, listed["bought"] + 2)
        mid = {row["id"]: row for row in await app.store.select(SHOPPING_LIST, Query(), user_id=app.user_id)}
        assert sum(mid[i]["is_purchased"] != before[i]["is_purchased"] for i in before) == 2
        assert all({k: v for k, v in mid[i].items() if k != "is_purchased"} == {k: v for k, v in before[i].items() if k != "is_purchased"}
                   for i in before)
        unticked = await call(client, "shopping_list_check", items=refs, bought=False)
        assert [line["bought"] for line in unticked["lines"]] == [False, False]
    after = {row["id"]: row for row in await app.store.select(SHOPPING_LIST, Query(), user_id=app.user_id)}
    assert after == before


@pytest.mark.parametrize(("arguments", "field", "says"), [
    ({"items": ["shop_99"], "bought": True}, "items", "Unknown ref"),
    ({"items": ["recipe_1"], "bought": True}, "items[0]", "is a recipe"),
    ({"items": [], "bought": True}, "items", "must have at least 1 item"),
    ({"items": ["shop_1"]}, "bought", "bought is required"),
], ids=["unknown ref", "another table's ref", "no item", "no bought"])
async def test_a_bad_tick_names_the_field_and_changes_nothing(app: AlfredApp, server: AlfredServer, arguments: dict[str, Any],
                                                            field: str | None, says: str) -> None:
    before = await app.store.select(SHOPPING_LIST, Query(), user_id=app.user_id)
    async with _apps(server) as client:
        await call(client, "shopping_list_show")
        error = await call_error(client, "shopping_list_check", **arguments)
    assert says in error["message"] and (field is None or error.get("field", "").startswith(field.split("[")[0]))
    assert await app.store.select(SHOPPING_LIST, Query(), user_id=app.user_id) == before


async def test_a_line_deleted_since_it_was_shown_refuses_the_whole_tick(app: AlfredApp, server: AlfredServer) -> None:
    async with _apps(server) as client:
        listed = await call(client, "shopping_list_show")
        kept, gone = [line for section in listed["sections"] for line in section["lines"] if not line["bought"]][:2]
        await app.store.delete(SHOPPING_LIST, Where(all_of=(Filter("name", "eq", gone["name"]),)), user_id=app.user_id)
        error = await call_error(client, "shopping_list_check", items=[kept["ref"], gone["ref"]], bought=True)
        assert error["field"] == "items" and gone["ref"] in error["message"] and "nothing was changed" in error["message"]
        again = await call(client, "shopping_list_show")
    assert (again["open"], again["bought"]) == (listed["open"] - 1, listed["bought"])


@pytest.mark.parametrize(("arguments", "field"), [
    ({"from": "2026-01-18", "to": "2026-01-12"}, "to"),
    ({"from": "2026-01-01", "to": "2026-03-01"}, "to"),
    ({"from": "12/01/2026"}, "from"),
], ids=["backwards", "too long", "not a date"])
async def test_a_bad_plan_range_names_the_field(client: Client, arguments: dict[str, str], field: str) -> None:
    assert (await call_error(client, "meal_plan_show", **arguments))["field"] == field


async def test_the_plan_defaults_to_a_week_from_today(client: Client) -> None:
    plan = await call(client, "meal_plan_show")
    today = date.today()
    assert plan["from"] == today.isoformat() and plan["to"] == (today + timedelta(days=6)).isoformat() and len(plan["days"]) == 7


@MODES
async def test_no_ui_leaves_the_extension_out(app: AlfredApp, mode: str) -> None:
    async with _apps(_served(app, ui=False), mode) as client:
        tools, views = await _offer(client)
        refused = await client.call_tool("shopping_list_check", {"items": ["shop_1"], "bought": True})
        shown = await call(client, "shopping_list_show")
        with pytest.raises(Exception, match="(?i)unknown resource|not found"):
            await client.read_resource(VIEWS[0].uri)
        if mode == "auto":
            assert EXTENSION_ID not in (client.server_capabilities.extensions or {})
    assert views == [] and all(meta is None for meta in tools.values()) and "shopping_list_check" not in tools
    assert set(VIEW_TOOLS) <= set(tools) and shown["open"] == 9
    assert refused.is_error and "(--no-ui)" in refused.content[0].text


@pytest.mark.parametrize(("env", "flag", "ui"), [(None, True, True), ("0", True, False), ("off", True, False),
                                                 ("1", True, True), (None, False, False)])
def test_alfred_ui_and_no_ui_turn_the_views_off(monkeypatch: pytest.MonkeyPatch, env: str | None, flag: bool, ui: bool) -> None:
    if env is None:
        monkeypatch.delenv("ALFRED_UI", raising=False)
    else:
        monkeypatch.setenv("ALFRED_UI", env)
    assert Settings.from_env(db="kitchen.db", ui=flag).ui is ui


def test_the_cli_flag_no_ui_reaches_the_settings() -> None:
    assert build_parser().parse_args(["--no-ui"]).no_ui is True


async def test_the_view_tools_cost_a_plain_client_under_2_kb_of_tools_list(server: AlfredServer) -> None:
    """The default tools/list must stay under 40 KB (issue 14, `python -m benchmarks` tools_list_bytes): the three
    tools with a view add under 1.8 KB to it; the view-only tool and `_meta` add nothing for a client without views."""
    async with Client(server) as client:
        listed = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in (await client.list_tools()).tools]
    size = sum(len(json.dumps(tool, separators=(",", ":"), ensure_ascii=False).encode()) for tool in listed
               if tool["name"] in VIEW_TOOLS)
    assert size < 1_800, size


async def test_every_recipe_card_marks_the_disliked_thing_and_not_a_product_made_from_it(client: Client) -> None:
    """The demo user dislikes olives and blue cheese: 'kalamata olives' is marked on every card that has it,
    'olive oil' on none, and every card's marks are the dislike rule's (`kitchen/ingredient_match.py`)."""
    dislikes = tuple((await call(client, "db_read", table="preferences"))["rows"][0]["disliked_ingredients"])
    recipes = (await call(client, "db_read", table="recipes", limit=100))["rows"]
    marked: dict[str, set[str]] = {}
    for recipe in recipes:
        card = await call(client, "recipe_show", recipe=recipe["id"])
        for line in card["ingredients"]:
            assert line.get("disliked") == is_disliked(line["name"], dislikes, default_taxonomy()), line
            marked.setdefault(line["name"].lower(), set()).add(line.get("disliked"))
    assert marked["olive oil"] == {None} and marked["kalamata olives"] == {"olives"}
