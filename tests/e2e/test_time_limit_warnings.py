"""A recipe that takes longer than the goal's time limit ('quick lunch ideas': 30 min) is warned about (never
refused) by every write that drafts, saves or plans one: draft_create, draft_revise and recipes_import of a recipe,
db_create and db_update of a recipe's times, db_create and db_update of a meal planning a saved recipe. Within the
limit, or with no limit stated, nothing is said. (Real client, real SQLite; the eras answer the same: test_era_parity.py.)
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from mcp import Client

from .helpers import call, eq

pytestmark = pytest.mark.anyio
QUICK = {"goal_update": "quick lunch ideas", "goal_subdomain": "recipes",
         "new_constraints": [{"type": "time_limit", "field": "max_minutes", "value": 30}]}


def _recipe(minutes: int) -> dict[str, Any]:
    return {"name": "Vegetable Lasagna", "servings": 4, "prep_time_minutes": 20, "cook_time_minutes": minutes - 20,
            "ingredients": [{"name": "lasagna sheets", "quantity": 12}], "instructions": ["Layer.", "Bake."]}


async def _by_draft_create(client: Client, minutes: int) -> dict[str, Any]:
    return await call(client, "draft_create", entity_type="recipe", items=[_recipe(minutes)])


async def _by_draft_revise(client: Client, minutes: int) -> dict[str, Any]:
    (draft,) = (await call(client, "draft_create", entity_type="recipe", items=[_recipe(25)]))["drafts"]
    return await call(client, "draft_revise", ref=draft["ref"], content=_recipe(minutes))


async def _by_import(client: Client, minutes: int) -> dict[str, Any]:
    page = {"@context": "https://schema.org", "@type": "Recipe", "name": "Vegetable Lasagna", "recipeYield": "4",
            "prepTime": "PT20M", "cookTime": f"PT{minutes - 20}M", "recipeIngredient": ["12 lasagna sheets"],
            "recipeInstructions": [{"@type": "HowToStep", "text": "Layer."}, {"@type": "HowToStep", "text": "Bake."}]}
    return await call(client, "recipes_import", source=json.dumps(page))


async def _by_db_create(client: Client, minutes: int) -> dict[str, Any]:
    recipe = {key: value for key, value in _recipe(minutes).items() if key != "ingredients"}
    return await call(client, "db_create", table="recipes", data=recipe)


async def _by_db_update(client: Client, minutes: int) -> dict[str, Any]:
    (row,) = (await call(client, "db_create", table="recipes", data={"name": "Vegetable Lasagna", "instructions": ["Bake."],
                                                                       "prep_time_minutes": 20, "cook_time_minutes": 5}))["rows"]
    return await call(client, "db_update", table="recipes", filters=[eq("id", row["id"])], data={"cook_time_minutes": minutes - 20})


async def _saved(client: Client, minutes: int) -> str:
    (draft,) = (await call(client, "draft_create", entity_type="recipe", items=[_recipe(minutes)]))["drafts"]
    return str((await call(client, "draft_save", refs=[draft["ref"]]))["items"][0]["saved_as"])


async def _by_planning(client: Client, minutes: int) -> dict[str, Any]:
    recipe = await _saved(client, minutes)
    return await call(client, "db_create", table="meal_plans", data={"date": "2031-05-05", "meal_type": "lunch", "recipe_id": recipe})


async def _by_replanning(client: Client, minutes: int) -> dict[str, Any]:
    recipe = await _saved(client, minutes)
    (meal,) = (await call(client, "db_create", table="meal_plans", data={"date": "2031-05-05", "meal_type": "lunch"}))["rows"]
    return await call(client, "db_update", table="meal_plans", filters=[eq("id", meal["id"])], data={"recipe_id": recipe})


WRITES: dict[str, Callable[[Client, int], Awaitable[dict[str, Any]]]] = {
    "draft_create": _by_draft_create, "draft_revise": _by_draft_revise, "recipes_import": _by_import,
    "db_create-recipe": _by_db_create, "db_update-recipe": _by_db_update, "db_create-meal": _by_planning,
    "db_update-meal": _by_replanning,
}


def _timed(answer: dict[str, Any]) -> list[str]:
    return [warning for warning in answer.get("warnings", []) if "time limit" in warning]


@pytest.mark.parametrize("write", WRITES)
async def test_a_recipe_longer_than_the_goals_time_limit_is_warned_about(client: Client, write: str) -> None:
    await call(client, "understanding_submit", message="quick lunch ideas", constraint_snapshot=QUICK)
    answer = await WRITES[write](client, 130)
    (warning,) = _timed(answer)
    named = answer["rows"][0]["id"] if write == "db_update-recipe" else "Vegetable Lasagna"  # an update names the row it changed
    assert named in warning and warning.endswith("takes 2 hr 10 min: the goal's time limit is 30 min")


@pytest.mark.parametrize("write", WRITES)
async def test_a_recipe_within_the_limit_or_with_no_limit_stated_is_not_warned_about(client: Client, write: str) -> None:
    assert _timed(await WRITES[write](client, 130)) == []
    await call(client, "understanding_submit", message="quick lunch ideas", constraint_snapshot=QUICK)
    assert _timed(await WRITES[write](client, 30)) == []
