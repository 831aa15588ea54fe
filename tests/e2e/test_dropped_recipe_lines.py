"""A meal whose recipe is swapped (db_update recipe_id) or which is deleted (db_delete) points out, in its result's
notes by ref, the unbought shopping lines listed only for the dropped recipe when no meal plans it any more; it
removes nothing. A line also listed for a recipe still planned, a bought line, or a recipe still planned on another
day is not pointed out. (Real client, real SQLite.)"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from mcp import Client

from .helpers import call, eq

pytestmark = pytest.mark.anyio
DAY, OTHER_DAY = "2031-06-03", "2031-06-05"


async def _recipe(client: Client, name: str, ingredients: list[str]) -> str:
    created = await call(client, "db_create", table="recipes", data={"name": name, "servings": 2, "instructions": ["Cook."]})
    ref = str(created["rows"][0]["id"])
    await call(client, "db_create", table="recipe_ingredients",
               data=[{"recipe_id": ref, "position": i + 1, "name": item, "quantity": 1, "unit": "cup"} for i, item in enumerate(ingredients)])
    return ref


async def _plan(client: Client, day: str, recipe: str) -> str:
    return str((await call(client, "db_create", table="meal_plans", data={"date": day, "meal_type": "dinner", "recipe_id": recipe,
                                                                          "servings": 2}))["rows"][0]["id"])


async def _line_refs(client: Client, names: list[str]) -> dict[str, str]:
    rows = (await call(client, "db_read", table="shopping_list", filters=[{"field": "name", "op": "in", "value": names}]))["rows"]
    return {row["name"]: row["id"] for row in rows}


async def _swap(client: Client, meal: str, other: str) -> dict[str, Any]:
    return await call(client, "db_update", table="meal_plans", filters=[eq("id", meal)], data={"recipe_id": other})


async def _delete(client: Client, meal: str, other: str) -> dict[str, Any]:
    return await call(client, "db_delete", table="meal_plans", filters=[eq("id", meal)])


DROPS: dict[str, Callable[[Client, str, str], Awaitable[dict[str, Any]]]] = {"swap": _swap, "delete": _delete}
OWN = ["yuzu kosho", "black garlic", "pandan leaves"]


async def _kitchen(client: Client) -> tuple[str, str, str]:
    """A meal of a recipe whose own ingredients are listed for it, and another recipe."""
    dropped = await _recipe(client, "Yuzu Black Garlic Noodles", [*OWN, "soba noodles"])
    kept = await _recipe(client, "Soba Salad", ["soba noodles", "cucumber"])
    meal = await _plan(client, DAY, dropped)
    await call(client, "shopping_list_from", meal_plans={"from": DAY, "to": DAY})
    return meal, dropped, kept


@pytest.mark.parametrize("drop", DROPS)
@pytest.mark.parametrize("bought", [0, 1, 3])
async def test_the_lines_listed_only_for_the_dropped_recipe_are_named_by_ref(client: Client, drop: str, bought: int) -> None:
    meal, _, kept = await _kitchen(client)
    await _plan(client, OTHER_DAY, kept)
    await call(client, "shopping_list_from", meal_plans={"from": OTHER_DAY, "to": OTHER_DAY})
    refs = await _line_refs(client, [*OWN, "soba noodles"])
    for name in OWN[:bought]:
        await call(client, "db_update", table="shopping_list", filters=[eq("id", refs[name])], data={"is_purchased": True})
    answer = await DROPS[drop](client, meal, kept)
    left = OWN[bought:]
    if not left:
        assert "notes" not in answer
        return
    (note,) = answer["notes"]
    named, _, why = note.partition(" listed for ")
    assert set(named.removesuffix(" were").removesuffix(" was").split(", ")) == {f"{refs[name]} {name}" for name in left}
    assert why.startswith("Yuzu Black Garlic Noodles, no longer planned")
    assert refs["soba noodles"] not in note  # also listed for the meal still planned
    assert set(await _line_refs(client, [*OWN, "soba noodles"])) == {*OWN, "soba noodles"}  # nothing removed


@pytest.mark.parametrize("drop", DROPS)
async def test_a_recipe_still_planned_on_another_day_points_out_nothing(client: Client, drop: str) -> None:
    meal, dropped, kept = await _kitchen(client)
    await _plan(client, OTHER_DAY, dropped)
    assert "notes" not in await DROPS[drop](client, meal, kept)


async def test_a_swap_to_the_same_recipe_or_another_column_points_out_nothing(client: Client) -> None:
    meal, dropped, _ = await _kitchen(client)
    assert "notes" not in await _swap(client, meal, dropped)
    assert "notes" not in await call(client, "db_update", table="meal_plans", filters=[eq("id", meal)], data={"servings": 4})
