"""A meal planned without servings is made for the household (the profile's adults and kids), on every path that
plans (db_create on meal_plans, draft_save of a meal draft), and the result's note says the number it took; servings
given are kept; with nobody in the profile, a meal with a recipe makes the recipe as written."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from e2e.helpers import call, eq

pytestmark = pytest.mark.anyio


async def _recipes(client: Client) -> list[dict[str, Any]]:
    return (await call(client, "db_read", table="recipes", columns=["name", "servings"], order_by=[{"field": "name"}], limit=20))["rows"]


async def _household(client: Client) -> int:
    (profile,) = (await call(client, "db_read", table="preferences"))["rows"]
    return int(profile["household_adults"]) + int(profile["household_kids"])


async def _by_db_create(client: Client, meals: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    answer = await call(client, "db_create", table="meal_plans", data=meals)
    return answer["rows"], answer


async def _by_draft_save(client: Client, meals: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    items = [{**{k: v for k, v in meal.items() if k != "recipe_id"}, **({"recipe": meal["recipe_id"]} if "recipe_id" in meal else {})}
             for meal in meals]
    drafts = (await call(client, "draft_create", entity_type="meal", items=items))["drafts"]
    answer = await call(client, "draft_save", refs=[draft["ref"] for draft in drafts])
    refs = [item["saved_as"] for item in answer["items"]]
    rows = (await call(client, "db_read", table="meal_plans", filters=[{"field": "id", "op": "in", "value": refs}]))["rows"]
    by_ref = {row["id"]: row for row in rows}
    return [by_ref[ref] for ref in refs], answer


PLANNERS = {"db_create": _by_db_create, "draft_save": _by_draft_save}


@pytest.mark.parametrize("planner", PLANNERS)
async def test_every_meal_without_servings_is_made_for_the_household_and_says_so(client: Client, planner: str) -> None:
    recipes, people = await _recipes(client), await _household(client)
    meals = [{"date": f"2099-02-{day + 1:02d}", "meal_type": "dinner", "recipe_id": recipe["id"]} for day, recipe in enumerate(recipes)]
    meals.append({"date": "2099-03-02", "meal_type": "dinner", "notes": "takeout night"})
    rows, answer = await PLANNERS[planner](client, meals)
    assert [meal["servings"] for meal in rows] == [people] * len(meals)
    (note,) = answer["notes"]
    assert note.startswith(f"{', '.join(row['id'] for row in rows)}: made for {people} (the household: ")


@pytest.mark.parametrize("planner", PLANNERS)
@pytest.mark.parametrize("servings", [1, 3, 12])
async def test_servings_given_are_kept_and_need_no_note(client: Client, planner: str, servings: int) -> None:
    (recipe, *_) = await _recipes(client)
    rows, answer = await PLANNERS[planner](client, [{"date": "2099-03-01", "meal_type": "lunch", "recipe_id": recipe["id"], "servings": servings}])
    assert [row["servings"] for row in rows] == [servings]
    assert "notes" not in answer


@pytest.mark.parametrize("planner", PLANNERS)
async def test_only_the_meals_that_gave_no_servings_are_named(client: Client, planner: str) -> None:
    (recipe, *_) = await _recipes(client)
    rows, answer = await PLANNERS[planner](client, [{"date": "2099-04-01", "meal_type": "lunch", "recipe_id": recipe["id"], "servings": 5},
                                                    {"date": "2099-04-02", "meal_type": "lunch", "recipe_id": recipe["id"]}])
    assert [row["servings"] for row in rows] == [5, await _household(client)]
    (note,) = answer["notes"]
    assert note.startswith(f"{rows[1]['id']}: made for ")


@pytest.mark.parametrize("kids", [0, 2])
async def test_the_household_counts_adults_and_kids_not_babies(client: Client, kids: int) -> None:
    (profile,) = (await call(client, "db_read", table="preferences"))["rows"]
    await call(client, "db_update", table="preferences", filters=[eq("id", profile["id"])],
               data={"household_adults": 2, "household_kids": kids, "household_babies": 1})
    rows, answer = await _by_db_create(client, [{"date": "2099-05-01", "meal_type": "dinner"}])
    assert rows[0]["servings"] == 2 + kids
    assert ("2 adults, 2 kids" if kids else "(the household: 2 adults)") in answer["notes"][0]


async def test_with_nobody_in_the_profile_a_meal_makes_its_recipe_as_written(client: Client) -> None:
    (profile,) = (await call(client, "db_read", table="preferences"))["rows"]
    await call(client, "db_update", table="preferences", filters=[eq("id", profile["id"])], data={"household_adults": 0, "household_kids": 0})
    recipes = await _recipes(client)
    rows, answer = await _by_db_create(client, [{"date": f"2099-06-{day + 1:02d}", "meal_type": "dinner", "recipe_id": recipe["id"]}
                                                for day, recipe in enumerate(recipes)])
    assert [row["servings"] for row in rows] == [recipe["servings"] or 1 for recipe in recipes]
    assert "notes" not in answer
