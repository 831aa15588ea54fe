"""Understand drops one constraint by name through the real server: the rest of the goal stays, the answer says what
went, and a name that drops nothing is refused naming the argument, changing nothing."""

from __future__ import annotations

import pytest
from mcp import Client

from .helpers import call, call_error

pytestmark = pytest.mark.anyio

GOAL = {"goal_update": "gluten-free thai dinner", "new_constraints": [
    {"type": "ingredient_excluded", "field": "gluten", "value": "gluten"},
    {"type": "cuisine", "field": "cuisine", "value": "thai"},
    {"type": "time_limit", "field": "max_minutes", "value": 30},
]}


@pytest.mark.parametrize("name", ["gluten", "exclude gluten", "goal:gluten", "Gluten"])
async def test_forgetting_one_constraint_keeps_the_others_and_the_goal(client: Client, name: str) -> None:
    await call(client, "understanding_submit", message="gluten-free thai, 30 minutes", constraint_snapshot=GOAL)
    dropped = await call(client, "understanding_submit", message="forget the gluten thing", constraint_snapshot={"drop": [name]})
    compiled = dropped["constraints"]
    assert compiled["dropped"] == ["exclude gluten"]
    assert "gluten" not in [item["value"] for item in compiled["must_exclude"]]
    assert (compiled["goal"], compiled["cuisine"], compiled["max_minutes"]) == ("gluten-free thai dinner", ["thai"], 30)
    read = await call(client, "constraints_read")
    assert "- Dropped: exclude gluten" in read["markdown"]


async def test_a_drop_naming_nothing_in_force_is_refused_naming_it_and_changes_nothing(client: Client) -> None:
    await call(client, "understanding_submit", message="gluten-free thai", constraint_snapshot=GOAL)
    before = await call(client, "constraints_read")
    error = await call_error(client, "understanding_submit", message="forget the nuts",
                             constraint_snapshot={"drop": ["gluten", "nuts"]})
    assert error["field"] == "constraint_snapshot.drop[1]" and error["value"] == "nuts"
    assert "exclude gluten" in error["message"] and "cuisine: thai" in error["message"]
    assert await call(client, "constraints_read") == before
