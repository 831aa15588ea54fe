"""A write that plans several meals checks them for double bookings in a constant number of queries, on every
backend: the meals already planned on all its days are read at once (and their recipes' names at once), so a write
of six meals asks the store as often as a write of one, and warns about each taken slot as a write of one would.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import Table
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.store.base import Store

pytestmark = pytest.mark.anyio

TAKEN = [("2030-03-04", "dinner", True), ("2030-03-05", "breakfast", False)]
"""Meals already planned: (date, meal_type, with the recipe)."""
SIX = [("2030-03-04", "dinner"), ("2030-03-04", "lunch"), ("2030-03-05", "dinner"), ("2030-03-05", "breakfast"),
       ("2030-03-06", "snack"), ("2030-03-07", "dinner")]
"""The meals one write plans: two into taken slots (the dinner of the 4th, the breakfast of the 5th), four free."""


@pytest.fixture
def selects(store: Store, monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each table has been read, from now on."""
    counted: Counter[str] = Counter()
    select = store.select

    async def counting(table: Table, query: Query, *, user_id: str) -> list[dict[str, Any]]:
        counted[table.name] += 1
        return await select(table, query, user_id=user_id)

    monkeypatch.setattr(store, "select", counting)
    return counted


def _items(meals: list[tuple[str, str]], recipe: str) -> list[dict[str, Any]]:
    return [{"date": day, "meal_type": meal, "recipe": recipe} for day, meal in meals]


async def _by_db_create(client: Client, meals: list[tuple[str, str]], recipe: str) -> dict[str, Any]:
    rows = [{"date": day, "meal_type": meal, "recipe_id": recipe} for day, meal in meals]
    return await call(client, "db_create", table="meal_plans", data=rows)


async def _by_draft_create(client: Client, meals: list[tuple[str, str]], recipe: str) -> dict[str, Any]:
    return await call(client, "draft_create", entity_type="meal", items=_items(meals, recipe))


async def _by_draft_save(client: Client, meals: list[tuple[str, str]], recipe: str) -> dict[str, Any]:
    drafts = (await call(client, "draft_create", entity_type="meal", items=_items(meals, recipe)))["drafts"]
    return await call(client, "draft_save", refs=[draft["ref"] for draft in drafts])


Planner = Callable[[Client, list[tuple[str, str]], str], Awaitable[dict[str, Any]]]
PLANNERS: dict[str, Planner] = {"db_create": _by_db_create, "draft_create": _by_draft_create, "draft_save": _by_draft_save}


async def _kitchen(client: Client) -> tuple[str, dict[tuple[str, str], str]]:
    """A recipe, and the TAKEN meals planned: the recipe's ref and each taken slot's meal ref."""
    (recipe,) = (await call(client, "db_create", table="recipes", data={"name": "Fish Pie", "servings": 4}))["rows"]
    rows = [{"date": day, "meal_type": meal, **({"recipe_id": recipe["id"]} if with_recipe else {})} for day, meal, with_recipe in TAKEN]
    created = (await call(client, "db_create", table="meal_plans", data=rows))["rows"]
    return recipe["id"], {(row["date"], row["meal_type"]): row["id"] for row in created}


def _reads(planner: str, selects: Counter[str]) -> dict[str, int]:
    """The reads to compare: all of a direct write's; of a draft's, those of meal_plans (a meal draft's recipe is also
    read for the draft's own checks, once per draft)."""
    return dict(selects) if planner.startswith("db_") else {"meal_plans": selects["meal_plans"]}


def _warned(result: dict[str, Any]) -> list[str]:
    return [warning for warning in result.get("warnings", ()) if "already has" in warning]


@pytest.mark.parametrize("planner", PLANNERS)
async def test_six_meals_in_one_write_cost_the_queries_of_one_and_each_taken_slot_is_warned(
        app: AlfredApp, selects: Counter[str], planner: str) -> None:
    async with Client(build_server(app)) as client:
        recipe, taken = await _kitchen(client)
        selects.clear()
        one = await PLANNERS[planner](client, [SIX[0]], recipe)
        reads_of_one = _reads(planner, selects)
        selects.clear()
        six = await PLANNERS[planner](client, SIX, recipe)
        assert _reads(planner, selects) == reads_of_one
    (first,) = _warned(one)
    assert taken[SIX[0]] in first and "Fish Pie" in first and recipe in first
    warned = _warned(six)
    assert len(warned) == 2
    assert taken[SIX[0]] in warned[0] and "Fish Pie" in warned[0] and "second dinner" in warned[0]
    assert taken[SIX[3]] in warned[1] and "(no recipe)" in warned[1] and "second breakfast" in warned[1]
    assert warned[0].split(":")[0] != warned[1].split(":")[0], "each warning names its own meal of the write"


async def _moved(client: Client, meals: list[str], day: str, recipe: str) -> dict[str, Any]:
    """Meals of `recipe` planned on a free day, then moved onto `day` by one db_update."""
    rows = [{"date": "2031-01-01", "meal_type": meal, "recipe_id": recipe} for meal in meals]
    created = (await call(client, "db_create", table="meal_plans", data=rows))["rows"]
    moving = {"field": "id", "op": "in", "value": [row["id"] for row in created]}
    return await call(client, "db_update", table="meal_plans", filters=[moving], data={"date": day})


async def test_meals_moved_by_one_update_cost_the_queries_of_one_and_each_taken_slot_is_warned(
        app: AlfredApp, selects: Counter[str]) -> None:
    day = "2030-03-04"
    async with Client(build_server(app)) as client:
        recipe, taken = await _kitchen(client)
        await call(client, "db_create", table="meal_plans", data={"date": day, "meal_type": "breakfast"})
        selects.clear()
        one = await _moved(client, ["dinner"], day, recipe)
        reads_of_one = dict(selects)
        selects.clear()
        three = await _moved(client, ["dinner", "lunch", "breakfast"], day, recipe)
        assert dict(selects) == reads_of_one
    (first,) = _warned(one)
    assert taken[(day, "dinner")] in first and "Fish Pie" in first
    dinner, breakfast = _warned(three)
    assert taken[(day, "dinner")] in dinner and "second dinner" in dinner
    assert "(no recipe)" in breakfast and "second breakfast" in breakfast
