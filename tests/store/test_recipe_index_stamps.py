"""The recipe index on every backend: kept whole across writes to tables it does not read (a shopping line,
a meal plan), its pantry alone reloaded by a pantry write, rebuilt by a write to recipes or their ingredient
lines, and always holding what a freshly loaded index holds."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from alfred_mcp.kitchen.schema import INVENTORY, RECIPE_INGREDIENTS, RECIPES, TABLES
from alfred_mcp.operations import recipe_index as memo
from alfred_mcp.operations.recipe_index import PANTRY_TABLES, RECIPE_TABLES, RecipeIndex, recipe_index
from alfred_mcp.store.base import Store

pytestmark = pytest.mark.anyio

ROWS: dict[str, dict[str, Any]] = {
    "recipes": {"name": "Plain Rice", "instructions": ["Boil."]}, "recipe_ingredients": {"name": "salt", "position": 2},
    "inventory": {"name": "salt", "quantity": 1, "unit": "kg"}, "shopping_list": {"name": "milk"},
    "meal_plans": {"date": "2026-02-01", "meal_type": "dinner"}, "tasks": {"title": "wash up"},
    "preferences": {"cooking_skill_level": "beginner"}, "cooking_log": {"notes": "good"},
}
"""A valid row of every user-owned table (an ingredient line gets its recipe's id)."""
UNREAD = [name for name, table in TABLES.items() if table.user_owned and name not in (*RECIPE_TABLES, *PANTRY_TABLES)]


def test_every_user_owned_table_has_a_row_here() -> None:
    assert set(ROWS) == {name for name, table in TABLES.items() if table.user_owned}


async def _kitchen(store: Store, user: str) -> tuple[SimpleNamespace, str]:
    """One recipe with one ingredient line and one pantry item; the unit of work's view (store, user) and the recipe id."""
    (recipe,) = await store.insert(RECIPES, [{"name": "Rice", "instructions": ["Boil."]}], user_id=user)
    await store.insert(RECIPE_INGREDIENTS, [{"recipe_id": recipe["id"], "name": "rice", "position": 1}], user_id=user)
    await store.insert(INVENTORY, [{"name": "rice", "quantity": 1, "unit": "kg"}], user_id=user)
    memo._MEMO.clear()
    return SimpleNamespace(store=store, user_id=user), recipe["id"]


async def _write(store: Store, user: str, table: str, recipe_id: str) -> None:
    row = {**ROWS[table], **({"recipe_id": recipe_id} if table == "recipe_ingredients" else {})}
    await store.insert(TABLES[table], [row], user_id=user)


def _held(index: RecipeIndex) -> tuple[Any, ...]:
    recipes = [(row["name"], [part["name"] for part in parts]) for row, parts in index.recipes]
    return recipes, sorted(item["name"] for item in index.pantry or [])


async def _fresh(work: SimpleNamespace) -> RecipeIndex:
    memo._MEMO.clear()
    return await recipe_index(work, pantry=True)  # type: ignore[arg-type]


@pytest.mark.parametrize("table", UNREAD)
async def test_a_write_to_a_table_the_index_does_not_read_keeps_the_whole_index(store: Store, user: str, table: str) -> None:
    work, recipe_id = await _kitchen(store, user)
    index = await recipe_index(work, pantry=True)  # type: ignore[arg-type]
    index.outcome("probe", lambda: "kept")
    await _write(store, user, table, recipe_id)
    again = await recipe_index(work, pantry=True)  # type: ignore[arg-type]
    assert again is index and again.outcome("probe", lambda: "recomputed") == "kept"
    assert _held(again) == _held(await _fresh(work))


async def test_a_pantry_write_reloads_the_pantry_and_keeps_the_recipes_and_what_was_worked_out_from_them(
    store: Store, user: str
) -> None:
    work, recipe_id = await _kitchen(store, user)
    index = await recipe_index(work, pantry=True)  # type: ignore[arg-type]
    index.outcome("recipes only", lambda: "kept")
    index.outcome("with the pantry", lambda: "stale", pantry=True)
    await _write(store, user, "inventory", recipe_id)
    again = await recipe_index(work, pantry=True)  # type: ignore[arg-type]
    assert again.recipes is index.recipes and again.names is index.names
    assert again.outcome("recipes only", lambda: "recomputed") == "kept"
    assert again.outcome("with the pantry", lambda: "recomputed", pantry=True) == "recomputed"
    assert _held(again) == _held(await _fresh(work)) and len(again.pantry or []) == 2


@pytest.mark.parametrize("table", RECIPE_TABLES)
async def test_a_write_to_recipes_or_their_ingredient_lines_rebuilds_the_index(store: Store, user: str, table: str) -> None:
    work, recipe_id = await _kitchen(store, user)
    index = await recipe_index(work, pantry=True)  # type: ignore[arg-type]
    await _write(store, user, table, recipe_id)
    again = await recipe_index(work, pantry=True)  # type: ignore[arg-type]
    assert again.recipes is not index.recipes
    assert _held(again) == _held(await _fresh(work)) != _held(index)
