"""A meal planned with a recipe and no servings makes the recipe as written: its servings, never one serving (the
shopping list and the pantry scale by a meal's servings)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from e2e.helpers import call

pytestmark = pytest.mark.anyio


async def _recipes(client: Client) -> list[dict[str, Any]]:
    return (await call(client, "db_read", table="recipes", columns=["name", "servings"], order_by=[{"field": "name"}], limit=20))["rows"]


async def test_every_recipes_meal_without_servings_serves_what_the_recipe_serves(client: Client) -> None:
    recipes = await _recipes(client)
    data = [{"date": f"2099-02-{day + 1:02d}", "meal_type": "dinner", "recipe_id": recipe["id"]} for day, recipe in enumerate(recipes)]
    created = (await call(client, "db_create", table="meal_plans", data=data))["rows"]
    assert [meal["servings"] for meal in created] == [recipe["servings"] or 1 for recipe in recipes]


@pytest.mark.parametrize("servings", [1, 3, 12])
async def test_servings_given_are_kept(client: Client, servings: int) -> None:
    (recipe, *_) = await _recipes(client)
    meal = {"date": "2099-03-01", "meal_type": "lunch", "recipe_id": recipe["id"], "servings": servings}
    (created,) = (await call(client, "db_create", table="meal_plans", data=meal))["rows"]
    assert created["servings"] == servings


async def test_a_meal_without_a_recipe_keeps_one_serving(client: Client) -> None:
    (created,) = (await call(client, "db_create", table="meal_plans", data={"date": "2099-03-02", "meal_type": "dinner",
                                                                           "notes": "takeout night"}))["rows"]
    assert created["servings"] == 1


async def test_a_saved_meal_draft_serves_what_its_recipe_serves(client: Client) -> None:
    (recipe, *_) = await _recipes(client)
    await call(client, "draft_create", entity_type="meal", items=[{"date": "2099-03-03", "meal_type": "dinner", "recipe": recipe["id"]}])
    saved = await call(client, "draft_save", refs=["gen_meal_1"])
    meal_ref = saved["items"][0]["saved_as"]
    (row,) = (await call(client, "db_read", table="meal_plans", filters=[{"field": "id", "op": "eq", "value": meal_ref}]))["rows"]
    assert row["servings"] == recipe["servings"]
