"""meal_cooked names the recipe's other meals not logged cooked ('meal_3 Sat Dec 5 [dinner]': later or earlier), so
the model can ask whether they still stand; not the meal it cooked, not a meal already logged cooked, and nothing
for a recipe no other meal plans. It changes no meal. (Real client, real SQLite.)"""

from __future__ import annotations

import pytest
from mcp import Client

from .helpers import call, eq

pytestmark = pytest.mark.anyio
DAYS = ["2031-06-02", "2031-06-04", "2031-06-09"]


async def _recipe_and_meals(client: Client, count: int) -> tuple[str, list[str]]:
    recipe = str((await call(client, "db_create", table="recipes", data={"name": "Chickpea Tacos", "servings": 2, "instructions": ["Cook."]}))["rows"][0]["id"])
    rows = (await call(client, "db_create", table="meal_plans", data=[{"date": day, "meal_type": "dinner", "recipe_id": recipe, "servings": 2}
                                                                       for day in DAYS[:count]]))["rows"] if count else []
    return recipe, [row["id"] for row in rows]


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("by", ["recipe", "meal"])
async def test_every_other_meal_of_the_recipe_is_named_by_ref_and_day(client: Client, count: int, by: str) -> None:
    recipe, meals = await _recipe_and_meals(client, count)
    answer = await call(client, "meal_cooked", **({"meal": meals[0]} if by == "meal" else {"recipe": recipe}))
    expected = meals[1:] if by == "meal" else meals
    assert [line.split(" ")[0] for line in answer.get("still_planned", [])] == expected
    assert all(line.endswith("[dinner]") for line in answer.get("still_planned", []))
    rows = (await call(client, "db_read", table="meal_plans", filters=[eq("recipe_id", recipe)]))["rows"]
    assert sorted(row["id"] for row in rows) == sorted(meals)  # nothing removed


async def test_a_meal_already_logged_cooked_is_not_named_again(client: Client) -> None:
    recipe, meals = await _recipe_and_meals(client, 3)
    await call(client, "meal_cooked", meal=meals[1])
    answer = await call(client, "meal_cooked", meal=meals[0])
    assert [line.split(" ")[0] for line in answer["still_planned"]] == [meals[2]]


async def test_a_recipe_no_meal_plans_names_nothing(client: Client) -> None:
    recipe, _ = await _recipe_and_meals(client, 0)
    assert "still_planned" not in await call(client, "meal_cooked", recipe=recipe)
