"""Every key a tool returns is declared in its outputSchema: every tool (the extras and `chat` too) is called on the
seeded kitchen through the real client, along the paths that add optional keys (warnings, double bookings, a delete
that unlinks and the undo that links again, a meal left out of a shopping list for an allergen, a line topped up),
and each structuredContent is walked against the schema: an object's keys against its `properties`, a list's items
against `items`. A schema that does not describe an object's keys (`{"type": "object"}`) declares none to check.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import load_contracts
from alfred_mcp.operations.recipe_card import DETAILS
from alfred_mcp.server.mcp_server import build_server

from .conftest import TODAY, SeededKitchens
from .helpers import call, eq

pytestmark = pytest.mark.anyio

PEANUT_NOODLES = {
    "name": "Peanut Noodles", "servings": 2, "instructions": ["Cook the noodles.", "Toss them in the peanut sauce."],
    "ingredients": [{"name": "rice noodles", "quantity": 200, "unit": "g"}, {"name": "peanut butter", "quantity": 3, "unit": "tbsp"}],
}
OLIVE_SALAD = {
    "name": "Olive Salad", "servings": 2, "instructions": ["Toss everything."],
    "ingredients": [{"name": "kalamata olives", "quantity": 1, "unit": "cup"}, {"name": "cucumber", "quantity": 1}],
}
CONSENT = {"allergens": ["peanuts"], "reason": "for a guest who eats them"}
WEEK = {"from": TODAY.isoformat(), "to": "2026-01-18"}
QUICK_READ = {"quick_mode": True, "quick_mode_confidence": 0.95, "processed_message": "list recipes",
              "quick_read": {"table": "recipes", "filters": []}}

Args = dict[str, Any] | Callable[[dict[str, dict[str, Any]]], dict[str, Any]]
CALLS: list[tuple[str, str, Args]] = [
    # (label, tool, arguments or a function of the earlier results by label)
    ("session", "session_start", {}),
    ("tables", "describe_table", {}),
    ("columns", "describe_table", {"table": "meal_plans"}),
    ("page", "db_read", {"table": "recipes", "limit": 2, "columns": ["name"]}),
    ("recipes", "db_read", {"table": "recipes", "columns": ["name"]}),
    ("meals", "db_read", {"table": "meal_plans", "columns": ["date"]}),
    ("next_page", "db_read", lambda done: {"table": "recipes", "limit": 2, "cursor": done["page"]["next_cursor"]}),
    ("double_booked", "db_create", {"table": "meal_plans", "data": {"date": TODAY.isoformat(), "meal_type": "dinner",
                                                                     "recipe_id": "recipe_1"}}),
    ("disliked", "db_create", {"table": "shopping_list", "data": {"name": "kalamata olives"}}),
    ("moved", "db_update", lambda done: {"table": "meal_plans", "filters": [eq("id", done["double_booked"]["rows"][0]["id"])],
                                          "data": {"date": "2026-01-13"}}),
    ("deleted", "db_delete", {"table": "recipes", "filters": [eq("id", "recipe_8")]}),
    ("undone", "kitchen_undo", {}),
    ("resolved", "entity_resolve", {"text": "the salmon one"}),
    ("understood", "understanding_submit", {"constraint_snapshot": {"new_constraints": [
        {"type": "ingredient_excluded", "field": "ingredient", "value": "mushrooms"}], "goal_update": "weeknight dinners"}}),
    ("constraints", "constraints_read", {}),
    ("searched", "recipes_search", {"category": "fish", "limit": 1}),
    ("makeable", "recipes_makeable", {"limit": 2}),
    ("scaled", "recipes_scale", {"recipe": "recipe_1", "servings": 7}),
    ("card", "recipe_show", {"recipe": "recipe_1"}),
    ("json_ld", "recipes_export", {"recipe": "recipe_1"}),
    ("markdown", "recipes_export", {"recipe": "recipe_1", "format": "markdown"}),
    ("imported", "recipes_import", {"source": "Toast\n\nIngredients\n2 slices bread\n1 tbsp butter\n\nMethod\n1. Toast the bread.\n2. Butter it."}),
    ("drafted", "draft_create", {"entity_type": "recipe", "items": [PEANUT_NOODLES, OLIVE_SALAD]}),
    ("meal_draft", "draft_create", {"entity_type": "meal", "items": [{"date": TODAY.isoformat(), "meal_type": "dinner",
                                                                       "recipe": "gen_recipe_2"}]}),
    ("revised", "draft_revise", {"ref": "gen_recipe_3", "patch": {"servings": 4}}),
    ("read_drafts", "draft_read", {}),
    ("batch", "batch_open", {"refs": ["gen_recipe_2", "gen_recipe_3"]}),
    ("skipped", "batch_skip", lambda done: {"batch": done["batch"]["batch"]["batch"], "refs": ["gen_recipe_3"], "reason": "not now"}),
    ("batch_status", "batch_status", lambda done: {"batch": done["batch"]["batch"]["batch"]}),
    ("saved", "draft_save", lambda done: {"refs": ["gen_recipe_2"], "batch": done["batch"]["batch"]["batch"],
                                          "allergy_override": CONSENT}),
    ("completed", "batch_complete", lambda done: {"batch": done["batch"]["batch"]["batch"]}),
    ("planned", "draft_save", {"refs": ["gen_meal_1"], "allergy_override": CONSENT}),
    ("discarded", "draft_discard", {"refs": ["gen_recipe_3"]}),
    ("preview", "shopping_list_from", {"meal_plans": WEEK, "preview": True}),
    ("listed", "shopping_list_from", {"meal_plans": WEEK}),
    ("topped_up", "shopping_list_from", {"recipes": ["recipe_1"], "servings": {"recipe_1": 12}}),
    ("again", "shopping_list_from", {"recipes": ["recipe_1"]}),
    ("shopping", "shopping_list_show", {}),
    ("checked", "shopping_list_check", lambda done: {"items": [done["listed"]["lines"][0]["ref"]], "bought": True}),
    ("week", "meal_plan_show", WEEK),
    ("cooked", "meal_cooked", {"meal": "meal_1", "rating": 4, "notes": "good"}),
    ("working_set", "show_working_set", {}),
    ("begun", "turn_begin", {"message": "what recipes do I have?"}),
    ("replied", "turn_reply", {"response": "You have eleven recipes."}),
    ("turn_status", "turn_status", {}),
    ("started", "turn_start", {"message": "what recipes do I have?"}),
    ("context", "turn_context", {}),
    ("submitted", "turn_submit", {"role": "understand", "output": QUICK_READ}),
    ("second", "turn_start", {"message": "plan something"}),
    ("abandoned", "turn_abandon", {}),
    ("chat", "chat", {"message": "what recipes do I have?"}),
]


ENVELOPE = frozenset({"session", "turn"})
"""What every session-scoped result carries (`server/tools/common.py` session_context): left undeclared, since
declaring them in every tool's outputSchema would cost tools/list about 1.5 KB of its 40 KB budget."""
OPTIONAL_KEYS = frozenset({"warnings", "relinked", "unlinked", "left_out", "already_listed", "was", "adds", "now", "next_cursor"})
"""Keys only some paths return: the calls above must reach every one of them."""


def undeclared(value: Any, schema: dict[str, Any], where: str = "") -> Iterator[str]:
    """The paths of keys in `value` that `schema` does not name (in `properties` or `required`), where it names an
    object's keys; the session envelope of a result is left out."""
    if isinstance(value, dict) and ("properties" in schema or "required" in schema):
        declared = schema.get("properties", {})
        for key, item in value.items():
            path = f"{where}.{key}" if where else key
            if key in declared:
                yield from undeclared(item, declared[key], path)
            elif key not in schema.get("required", ()) and not (where == "" and key in ENVELOPE):
                yield path
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            yield from undeclared(item, schema["items"], f"{where}[]")


def keys_anywhere(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from keys_anywhere(item)
    elif isinstance(value, list):
        for item in value:
            yield from keys_anywhere(item)


async def results(app: AlfredApp) -> list[tuple[str, dict[str, Any]]]:
    """(tool, structuredContent) of every call of CALLS, in order, through the real client."""
    done: dict[str, dict[str, Any]] = {}
    out: list[tuple[str, dict[str, Any]]] = []
    async with Client(build_server(app)) as client:
        for label, tool, arguments in CALLS:
            done[label] = await call(client, tool, **(arguments(done) if callable(arguments) else arguments))
            out.append((tool, done[label]))
    return out


@pytest.fixture
async def kitchen(tmp_path: Path, seeded_kitchens: SeededKitchens) -> AsyncIterator[AlfredApp]:
    """The seeded demo kitchen, with a scripted model for `chat` (a quick read); the extra tools are served by name."""
    async with seeded_kitchens.copy(tmp_path, TODAY) as app:
        app.llm = ScriptedLLM({"understand": [QUICK_READ]})
        yield app


def test_the_calls_reach_every_tool() -> None:
    assert {tool for _, tool, _ in CALLS} == set(load_contracts())


async def test_the_calls_reach_every_optional_key(kitchen: AlfredApp) -> None:
    seen = {key for _, result in await results(kitchen) for key in keys_anywhere(result)}
    assert OPTIONAL_KEYS - seen == set()


async def test_every_key_a_tool_returns_is_declared_in_its_output_schema(kitchen: AlfredApp) -> None:
    contracts = load_contracts()
    found: dict[str, set[str]] = {}
    for tool, result in await results(kitchen):
        found.setdefault(tool, set()).update(undeclared(result, contracts[tool].output_schema))
    assert {tool: sorted(keys) for tool, keys in found.items() if keys} == {}


def test_a_recipe_cards_details_are_declared() -> None:
    """recipe_show returns each detail a recipe has (operations/recipe_card.py DETAILS), so each is declared."""
    assert set(DETAILS) <= set(load_contracts()["recipe_show"].output_schema["properties"])
