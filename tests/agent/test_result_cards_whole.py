"""What a stage answer shows of a tool call (its card) is never longer than the plain tool's own text for the same
result (a view tool's card is that very text under the tool's name), and names every row the result holds (or the
cut says which rows it left out and how to get them).

Every tool Act may call runs once on the seeded demo kitchen through the real MCP client; the card is built from
the same call's structured result and compared with the text the plain call returned.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.agent import act_tools
from alfred_mcp.agent.act_tools import result_card
from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.kitchen.view_texts import TEXTS
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.state.refs import parse_ref

pytestmark = pytest.mark.anyio

Call = tuple[str, dict[str, Any]]
PASTED = ("Weeknight Lemon Pasta\nServes 2\nIngredients:\n- 8 oz spaghetti\n- 1 lemon, zested\n- 2 tbsp butter\n"
          "- 1/4 cup parmesan\nSteps:\n1. Boil the pasta.\n2. Toss with butter, lemon and parmesan.")
DRAFT = {"name": "Quick Tomato Soup", "servings": 2, "ingredients": [{"name": "tomatoes", "quantity": 4, "unit": "piece"}],
         "instructions": ["Simmer the tomatoes.", "Blend."]}
READ_RECIPES: Call = ("db_read", {"table": "recipes"})
CREATE_DRAFT: Call = ("draft_create", {"entity_type": "recipe", "items": [DRAFT]})
CASES: dict[str, list[Call]] = {
    "batch_status": [CREATE_DRAFT, ("batch_open", {"refs": ["gen_recipe_1"]}), ("batch_status", {})],
    "constraints_read": [("constraints_read", {})],
    "db_read": [("db_read", {"table": "inventory"})],
    "describe_table": [("describe_table", {})],
    "draft_read": [CREATE_DRAFT, ("draft_read", {"refs": ["gen_recipe_1"]})],
    "entity_resolve": [("entity_resolve", {"text": "the eggs in the fridge"})],
    "meal_plan_show": [("meal_plan_show", {})],
    "recipe_show": [READ_RECIPES, ("recipe_show", {"recipe": "recipe_1"})],
    "recipes_export": [READ_RECIPES, ("recipes_export", {"recipe": "recipe_1", "format": "markdown"})],
    "recipes_makeable": [("recipes_makeable", {})],
    "recipes_scale": [READ_RECIPES, ("recipes_scale", {"recipe": "recipe_1", "servings": 8})],
    "recipes_search": [("recipes_search", {})],
    "shopping_list_show": [("shopping_list_show", {})],
    "show_working_set": [("db_read", {"table": "inventory"}), ("show_working_set", {})],
    "draft_create": [CREATE_DRAFT],
    "draft_discard": [CREATE_DRAFT, ("draft_discard", {"refs": ["gen_recipe_1"]})],
    "draft_revise": [CREATE_DRAFT, ("draft_revise", {"ref": "gen_recipe_1", "patch": {"servings": 4}})],
    "recipes_import": [("recipes_import", {"source": PASTED})],
    "batch_skip": [CREATE_DRAFT, ("batch_open", {"refs": ["gen_recipe_1"]}),
                   ("batch_skip", {"batch": "batch_1", "refs": ["gen_recipe_1"], "reason": "the user chose another"})],
    "db_create": [("db_create", {"table": "shopping_list", "data": [{"name": "eggs", "quantity": 12}, {"name": "milk"}]})],
    "db_delete": [READ_RECIPES, ("db_delete", {"table": "recipes", "filters": [{"field": "id", "op": "eq", "value": "recipe_3"}]})],
    "db_update": [("db_update", {"table": "inventory", "filters": [{"field": "location", "op": "eq", "value": "fridge"}],
                                 "data": {"location": "freezer"}})],
    "draft_save": [CREATE_DRAFT, ("draft_save", {"refs": ["gen_recipe_1"]})],
    "kitchen_undo": [READ_RECIPES, ("db_delete", {"table": "recipes", "filters": [{"field": "id", "op": "eq", "value": "recipe_3"}]}),
                     ("kitchen_undo", {})],
    "meal_cooked": [READ_RECIPES, ("meal_cooked", {"recipe": "recipe_1"})],
    "shopping_list_from": [READ_RECIPES, ("shopping_list_from", {"recipes": ["recipe_1", "recipe_2", "recipe_3"]})],
    "shopping_list_check": [("db_read", {"table": "shopping_list"}), ("shopping_list_check", {"items": ["shop_1", "shop_2"], "bought": True})],
}
"""Per tool Act may call: the calls that set the kitchen up for it, then the call itself."""
ACT_TOOLS = act_tools.tools_for_step("write")


def test_every_tool_act_may_call_has_a_case() -> None:
    assert sorted(CASES) == sorted(ACT_TOOLS)


async def _run(app: AlfredApp, calls: list[Call]) -> tuple[str, dict[str, Any], str, dict[str, Any]]:
    async with Client(build_server(app)) as client:
        for tool, arguments in calls:
            result = await client.call_tool(tool, arguments)
            text = "".join(block.text for block in result.content if block.type == "text")
            assert not result.is_error, text
    assert result.structured_content is not None
    return tool, arguments, text, result.structured_content


@pytest.mark.parametrize("tool", ACT_TOOLS)
async def test_a_card_is_no_longer_than_the_plain_tools_text(app: AlfredApp, tool: str) -> None:
    name, arguments, plain, structured = await _run(app, CASES[tool])
    card = result_card(name, arguments, structured)
    if name in TEXTS:  # the same text, under the tool's name: what a card's head line is for
        assert card == f"{name}\n{plain}"
    else:
        assert len(card) <= len(plain), f"{tool}: card {len(card)} > plain text {len(plain)}\n{card}"


@pytest.mark.parametrize("tool", ACT_TOOLS)
async def test_a_card_names_every_row_of_the_result_or_says_how_to_get_it(app: AlfredApp, tool: str) -> None:
    name, arguments, _, structured = await _run(app, CASES[tool])
    card = result_card(name, arguments, structured)
    shown = _named_refs(card)
    missing = [ref for ref in _row_refs(structured) if ref not in shown]
    assert missing == [], f"{tool}: rows not named: {missing}\n{card}"
    written = {"content"} if name in ("draft_create", "draft_revise") else set()  # the model wrote a draft's content (or the change): its label is enough
    unnamed = [row for row in _rows(structured, skip=written)
               if not _ref_of(row) and (first := _first_text(row)) and first.lower() not in card.lower()]
    counted = any(how in card for how in act_tools.UNCHANGED_ROWS.values())  # rows the call did not change: counted, and how to list them
    assert unnamed == [] or " not shown" in card or counted, f"{tool}: rows not named: {unnamed}\n{card}"


def _rows(value: Any, skip: set[str] | None = None) -> Iterator[dict[str, Any]]:
    """Every row of the result: each object inside a list, at any depth (not under the keys in `skip`)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in (skip or set()):
                yield from _rows(item, skip)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                yield item
            yield from _rows(item, skip)


def _ref_of(row: dict[str, Any]) -> str | None:
    ref = row.get("ref") or row.get("id")
    return ref if isinstance(ref, str) and parse_ref(ref) is not None else None


def _row_refs(result: dict[str, Any]) -> list[str]:
    return [ref for row in _rows(result) if (ref := _ref_of(row)) is not None]


def _first_text(row: dict[str, Any]) -> str | None:
    return next((value for value in row.values() if isinstance(value, str) and "\n" not in value), None)


_RANGE = re.compile(r"\b([a-z_]+)_(\d+)\.\.\1_(\d+)\b")
_REF = re.compile(r"\b[a-z]+(?:_[a-z]+)*_\d+\b")


def _named_refs(card: str) -> set[str]:
    """The refs a card names, one by one or in a range of a cut ('inv_15..inv_49')."""
    named = set(_REF.findall(card))
    for prefix, low, high in _RANGE.findall(card):
        named |= {f"{prefix}_{number}" for number in range(int(low), int(high) + 1)}
    return named


@pytest.mark.parametrize("table", sorted(name for name, table in TABLES.items() if table.user_owned))
async def test_a_read_card_of_every_table_is_no_longer_than_its_plain_text_and_names_every_row(app: AlfredApp, table: str) -> None:
    name, arguments, plain, structured = await _run(app, [("db_read", {"table": table, "limit": 200})])
    card = result_card(name, arguments, structured)
    assert len(card) <= len(plain)
    assert [ref for ref in _row_refs(structured) if ref not in _named_refs(card)] == []


async def test_an_undone_removal_names_each_row_it_linked_again_once(app: AlfredApp) -> None:
    """Undoing the delete of a planned recipe links its meals again: the card says so once per meal, not as JSON too."""
    async with Client(build_server(app)) as client:
        meals = (await client.call_tool("db_read", {"table": "meal_plans"})).structured_content
        assert meals is not None
        planned = next(row["recipe_id"] for row in meals["rows"] if row.get("recipe_id"))
        await client.call_tool("db_delete", {"table": "recipes", "filters": [{"field": "id", "op": "eq", "value": planned}]})
        undone = (await client.call_tool("kitchen_undo", {})).structured_content
    assert undone is not None and undone["relinked"], undone
    card = result_card("kitchen_undo", {}, undone)
    for entry in undone["relinked"]:
        assert len(re.findall(rf"\b{entry['ref']}\b", card)) == 1, card
