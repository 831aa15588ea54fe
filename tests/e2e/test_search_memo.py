"""The search memo never answers from a kitchen that changed: after every kind of write, the memoized
answer of every query equals one computed from scratch (the memo emptied)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from alfred_mcp.operations import recipe_index

from .helpers import call, eq
from .test_search import create_recipe

pytestmark = pytest.mark.anyio

QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("recipes_search", {"category": "fish"}),
    ("recipes_search", {"category": "fish", "honor_constraints": False}),
    ("recipes_search", {"ingredient": "garlic", "limit": 3}),
    ("recipes_search", {"cuisine": "italian", "max_minutes": 40}),
    ("recipes_makeable", {}),
    ("recipes_makeable", {"min_coverage": 0.5, "honor_constraints": False}),
]


async def _answers(client: Client) -> list[dict[str, Any]]:
    found = []
    for tool, arguments in QUERIES:
        result = await call(client, tool, **arguments)
        found.append({key: value for key, value in result.items() if key != "turn"})
    return found


async def _fresh_answers(client: Client) -> list[dict[str, Any]]:
    recipe_index._MEMO.clear()
    return await _answers(client)


async def test_memoized_answers_equal_fresh_ones_after_every_kind_of_write(client: Client) -> None:
    steps = [
        lambda: create_recipe(client, "Weeknight Cod Chowder", "cod fillets", "garlic", "potatoes", cuisine="italian"),
        lambda: call(client, "db_update", table="recipes", filters=[eq("name", "Weeknight Cod Chowder")], data={"name": "Cod Chowder"}),
        lambda: call(client, "db_create", table="inventory", data={"name": "potatoes", "quantity": 3, "unit": "whole"}),
        lambda: call(client, "db_update", table="recipe_ingredients", filters=[eq("name", "garlic")], data={"is_optional": True}),
        lambda: call(client, "db_delete", table="recipes", filters=[eq("name", "Cod Chowder")]),
        lambda: call(client, "db_delete", table="inventory", filters=[eq("name", "potatoes")]),
    ]
    await _answers(client)  # builds the memo
    for step in steps:
        await step()
        memoized = await _answers(client)
        assert memoized == await _fresh_answers(client)
        assert memoized == await _answers(client)  # and the rebuilt memo agrees with itself
