"""A meal planned on the occasion's day ('6 guests on Saturday') for other servings than the occasion is for is warned
about (never refused) by every write that plans: db_create and db_update on meal_plans, draft_create, draft_revise and
draft_save of meal drafts. The servings judged are those the meal names, else the household's; a meal for the
occasion's number, one on another day, or any meal when no occasion states its days and number, is not warned about.
(Real client, real SQLite; the eras answer the same: test_era_parity.py.)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from mcp import Client

from .helpers import call, eq

pytestmark = pytest.mark.anyio
SATURDAY = "2031-05-03"
OTHER_DAY = "2031-05-06"
GUESTS = {"occasion_update": "Saturday dinner, 6 guests", "new_constraints": [
    {"type": "servings", "field": "people", "value": 6, "lifetime": "occasion"},
    {"type": "days", "field": "days", "value": SATURDAY, "lifetime": "occasion"}]}


def _meal(day: str, servings: int | None) -> dict[str, Any]:
    return {"date": day, "meal_type": "dinner", **({"servings": servings} if servings is not None else {})}


async def _by_db_create(client: Client, day: str, recipe: str, servings: int | None) -> dict[str, Any]:
    return await call(client, "db_create", table="meal_plans", data={**_meal(day, servings), "recipe_id": recipe})


async def _by_db_update(client: Client, day: str, recipe: str, servings: int | None) -> dict[str, Any]:
    (meal,) = (await call(client, "db_create", table="meal_plans", data={**_meal("2031-06-01", servings), "recipe_id": recipe}))["rows"]
    return await call(client, "db_update", table="meal_plans", filters=[eq("id", meal["id"])], data={"date": day})


async def _by_draft_create(client: Client, day: str, recipe: str, servings: int | None) -> dict[str, Any]:
    return await call(client, "draft_create", entity_type="meal", items=[{**_meal(day, servings), "recipe": recipe}])


async def _by_draft_revise(client: Client, day: str, recipe: str, servings: int | None) -> dict[str, Any]:
    (draft,) = (await call(client, "draft_create", entity_type="meal", items=[{**_meal("2031-06-01", servings), "recipe": recipe}]))["drafts"]
    return await call(client, "draft_revise", ref=draft["ref"], patch={"date": day})


async def _by_draft_save(client: Client, day: str, recipe: str, servings: int | None) -> dict[str, Any]:
    (draft,) = (await call(client, "draft_create", entity_type="meal", items=[{**_meal(day, servings), "recipe": recipe}]))["drafts"]
    return await call(client, "draft_save", refs=[draft["ref"]])


PLANNERS: dict[str, Callable[[Client, str, str, int | None], Awaitable[dict[str, Any]]]] = {
    "db_create": _by_db_create, "db_update": _by_db_update, "draft_create": _by_draft_create,
    "draft_revise": _by_draft_revise, "draft_save": _by_draft_save,
}


async def _recipe(client: Client) -> tuple[str, int]:
    """A recipe that does not serve 6 on its own, and its servings."""
    rows = (await call(client, "db_read", table="recipes", columns=["id", "servings"]))["rows"]
    row = next(row for row in rows if row["servings"] not in (None, 6))
    return row["id"], row["servings"]


def _occasion_warnings(answer: dict[str, Any]) -> list[str]:
    return [warning for warning in answer.get("warnings", []) if "the occasion" in warning]


@pytest.mark.parametrize("planner", PLANNERS)
@pytest.mark.parametrize("servings", [4, None], ids=["named", "the-household's"])
async def test_a_meal_on_the_occasions_day_for_other_servings_is_warned_about(client: Client, planner: str, servings: int | None) -> None:
    recipe, _ = await _recipe(client)
    (profile,) = (await call(client, "db_read", table="preferences"))["rows"]
    await call(client, "understanding_submit", message="6 guests on Saturday", constraint_snapshot=GUESTS)
    answer = await PLANNERS[planner](client, SATURDAY, recipe, servings)
    (warning,) = _occasion_warnings(answer)
    made = servings if servings is not None else profile["household_adults"] + profile["household_kids"]
    assert f"makes {made} servings; the occasion (Saturday dinner, 6 guests) is for 6" in warning


@pytest.mark.parametrize("planner", PLANNERS)
async def test_a_meal_for_the_occasions_number_or_on_another_day_or_with_no_occasion_is_not_warned_about(client: Client, planner: str) -> None:
    recipe, _ = await _recipe(client)
    assert _occasion_warnings(await PLANNERS[planner](client, SATURDAY, recipe, 4)) == []
    await call(client, "understanding_submit", message="6 guests on Saturday", constraint_snapshot=GUESTS)
    assert _occasion_warnings(await PLANNERS[planner](client, SATURDAY, recipe, 6)) == []
    assert _occasion_warnings(await PLANNERS[planner](client, OTHER_DAY, recipe, 4)) == []
