"""Every tool that reports a recipe's conflicts applies the same constraints: the allergies (the user's and the
guests'), the dislikes and the session's goal-wide exclusions. recipes_search and recipes_makeable exclude the
recipe, and recipe_show and meal_plan_show mark it, whichever rule holds; a clean recipe is marked by none."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from mcp import Client

from .helpers import call

pytestmark = pytest.mark.anyio
DAY = "2031-06-07"


async def _goal(client: Client, word: str) -> None:
    await call(client, "understanding_submit", message=f"no {word} this week", constraint_snapshot={
        "goal_update": "dinners this week", "goal_subdomain": "recipes",
        "new_constraints": [{"type": "ingredient_excluded", "field": "diet", "value": word}]})


async def _guests(client: Client, word: str) -> None:
    await call(client, "understanding_submit", message=f"a guest is allergic to {word}", constraint_snapshot={
        "occasion_update": "Saturday dinner", "goal_update": "a menu for Saturday", "goal_subdomain": "recipes",
        "new_constraints": [{"type": "allergy", "field": "guests", "value": [word], "lifetime": "occasion"}]})


async def _dislike(client: Client, word: str) -> None:
    await call(client, "db_update", table="preferences", all=True, data={"disliked_ingredients": [word]})


RULES: dict[str, Callable[[Client, str], Awaitable[None]]] = {"goal exclusion": _goal, "guest allergy": _guests, "dislike": _dislike}
WORDS = {"goal exclusion": "quuxcapers", "guest allergy": "sesame", "dislike": "quuxcapers"}


async def _recipe(client: Client, name: str, ingredient: str) -> str:
    (recipe,) = (await call(client, "db_create", table="recipes", data={"name": name, "servings": 2}))["rows"]
    await call(client, "db_create", table="recipe_ingredients", data=[
        {"recipe_id": recipe["id"], "position": 1, "name": ingredient, "quantity": 1, "unit": "tbsp"},
        {"recipe_id": recipe["id"], "position": 2, "name": "quuxrice", "quantity": 200, "unit": "g"}])
    await call(client, "db_create", table="meal_plans", data={"date": DAY, "meal_type": "dinner", "recipe_id": recipe["id"]})
    await call(client, "db_create", table="inventory", data={"name": ingredient, "quantity": 1, "unit": "jar"})
    return str(recipe["id"])


def _marked(result: dict[str, Any], ref: str) -> bool:
    return ref in str(result.get("excluded", []))


@pytest.mark.parametrize("rule", list(RULES))
async def test_every_conflict_reporting_tool_applies_the_same_rule(client: Client, rule: str) -> None:
    word = WORDS[rule]
    await call(client, "turn_begin", message="what can I cook?")
    held = await _recipe(client, "Quux Bowl", f"{word} oil" if rule == "guest allergy" else word)
    clean = await _recipe(client, "Quux Plain", "quuxbeans")
    await RULES[rule](client, word)
    search = await call(client, "recipes_search", ingredient="quuxrice")
    makeable = await call(client, "recipes_makeable", min_coverage=0, limit=50)
    week = await call(client, "meal_plan_show", **{"from": DAY, "to": DAY})
    meals = {meal["recipe"]: meal for meal in week["meals"] if meal.get("recipe")}
    for ref, conflicting in ((held, True), (clean, False)):
        card = await call(client, "recipe_show", recipe=ref)
        said = {
            "recipes_search": _marked(search, ref), "recipes_makeable": _marked(makeable, ref),
            "recipe_show": bool(card["conflicts"] or card["allergens"]),
            "meal_plan_show": bool(meals[ref]["conflicts"]),
        }
        assert said == dict.fromkeys(said, conflicting), (rule, ref, said)


@pytest.mark.parametrize("optional", [True, False])
@pytest.mark.parametrize("disliked", [True, False])
async def test_the_plan_says_what_the_card_says_about_a_disliked_ingredient(client: Client, optional: bool, disliked: bool) -> None:
    """A disliked ingredient is a conflict; an optional one is the card's note to leave it out: the week's plan says
    the same lines as the card, in either case, and nothing when the user likes it."""
    await call(client, "turn_begin", message="what is planned?")
    (recipe,) = (await call(client, "db_create", table="recipes", data={"name": "Quux Salad", "servings": 2}))["rows"]
    await call(client, "db_create", table="recipe_ingredients", data=[
        {"recipe_id": recipe["id"], "position": 1, "name": "quuxrice", "quantity": 200, "unit": "g"},
        {"recipe_id": recipe["id"], "position": 2, "name": "quuxcapers", "quantity": 1, "unit": "tbsp", "is_optional": optional}])
    await call(client, "db_create", table="meal_plans", data={"date": DAY, "meal_type": "dinner", "recipe_id": recipe["id"]})
    if disliked:
        await _dislike(client, "quuxcapers")
    card = await call(client, "recipe_show", recipe=recipe["id"])
    (meal,) = (await call(client, "meal_plan_show", **{"from": DAY, "to": DAY}))["meals"]
    assert meal["conflicts"] == card["conflicts"]
    assert bool(meal["conflicts"]) is disliked
    assert all(reason.startswith("leave out the optional") is optional for reason in meal["conflicts"])
