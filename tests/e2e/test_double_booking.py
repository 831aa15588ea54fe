"""A meal planned on a day that already has that meal is warned about (never refused), by every write that plans:
db_create and db_update on meal_plans, draft_create, draft_revise and draft_save of meal drafts. The warning names
the meal already there by ref and its recipe; a free slot, a snack or an 'other' meal is no double booking.
(Real client, real SQLite; the eras answer the same: test_era_parity.py.)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.agent import act_tools
from alfred_mcp.kitchen.schema import MEAL_TYPES
from alfred_mcp.operations.double_booking import SINGLE_MEALS

from .helpers import call, eq

pytestmark = pytest.mark.anyio
DAY = "2031-05-02"


async def _recipe(client: Client) -> tuple[str, str]:
    (row,) = (await call(client, "db_read", table="recipes", limit=1))["rows"]
    return row["id"], row["name"]


async def _plan_by_db_create(client: Client, meal_type: str, recipe: str) -> dict[str, Any]:
    return await call(client, "db_create", table="meal_plans", data={"date": DAY, "meal_type": meal_type, "recipe_id": recipe})


async def _plan_by_db_update(client: Client, meal_type: str, recipe: str) -> dict[str, Any]:
    (moved,) = (await call(client, "db_create", table="meal_plans",
                           data={"date": "2031-06-01", "meal_type": meal_type, "recipe_id": recipe}))["rows"]
    return await call(client, "db_update", table="meal_plans", filters=[eq("id", moved["id"])], data={"date": DAY})


async def _plan_by_draft_create(client: Client, meal_type: str, recipe: str) -> dict[str, Any]:
    return await call(client, "draft_create", entity_type="meal", items=[{"date": DAY, "meal_type": meal_type, "recipe": recipe}])


async def _plan_by_draft_revise(client: Client, meal_type: str, recipe: str) -> dict[str, Any]:
    (draft,) = (await call(client, "draft_create", entity_type="meal",
                           items=[{"date": "2031-06-01", "meal_type": meal_type, "recipe": recipe}]))["drafts"]
    return await call(client, "draft_revise", ref=draft["ref"], patch={"date": DAY})


async def _plan_by_draft_save(client: Client, meal_type: str, recipe: str) -> dict[str, Any]:
    (draft,) = (await call(client, "draft_create", entity_type="meal",
                           items=[{"date": DAY, "meal_type": meal_type, "recipe": recipe}]))["drafts"]
    return await call(client, "draft_save", refs=[draft["ref"]])


PLANNERS: dict[str, Callable[[Client, str, str], Awaitable[dict[str, Any]]]] = {
    "db_create": _plan_by_db_create, "db_update": _plan_by_db_update, "draft_create": _plan_by_draft_create,
    "draft_revise": _plan_by_draft_revise, "draft_save": _plan_by_draft_save,
}


@pytest.mark.parametrize("meal_type", MEAL_TYPES)
@pytest.mark.parametrize("planner", PLANNERS)
async def test_a_second_meal_of_a_day_is_warned_naming_the_first(client: Client, planner: str, meal_type: str) -> None:
    recipe, name = await _recipe(client)
    free = await PLANNERS[planner](client, meal_type, recipe)
    assert not [w for w in free.get("warnings", ()) if "already has" in w]  # the day had none
    if planner.startswith("draft_") and planner != "draft_save":
        await call(client, "draft_save", refs=[(free.get("drafts") or [free.get("draft")])[0]["ref"]])
    first = (await call(client, "db_read", table="meal_plans", filters=[eq("date", DAY), eq("meal_type", meal_type)]))["rows"][0]["id"]

    second = await PLANNERS[planner](client, meal_type, recipe)
    warned = [w for w in second.get("warnings", ()) if "already has" in w]
    if meal_type in SINGLE_MEALS:
        (warning,) = warned
        assert first in warning and recipe in warning and name in warning and meal_type in warning
        notice = act_tools.result_card(planner, {}, second)
        assert warning in notice
    else:
        assert warned == []  # snacks and 'other' meals may be many a day
