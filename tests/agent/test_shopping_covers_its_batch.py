"""A write step given a batch that shopping_list_from covers as a whole ('a shopping list for these dinners', its batch
the meals) counts the items handled: the meals of the days it listed, the recipes it listed; no batch_skip needed.
A meal outside the days listed stays pending."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected


async def _meals_with_recipes(client: Client) -> list[dict[str, Any]]:
    read = await call(client, "db_read", table="meal_plans", filters=[{"field": "recipe_id", "op": "is_null", "value": False}],
                      columns=["date", "recipe_id"], order_by=[{"field": "date"}], limit=4)
    assert len(read["rows"]) >= 3, "the demo kitchen plans meals with recipes"
    return list(read["rows"])


async def _shopping_step_over(client: Client, batch: list[str], arguments: dict[str, Any]) -> dict[str, Any]:
    await call(client, "turn_start", message="Make me a shopping list for them")
    await call(client, "turn_submit", role="understand", output={"referenced_refs": batch})
    await call(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct", "steps": [
        {"description": "list what they need", "step_type": "write", "subdomain": "shopping", "batch": [{"ref": ref} for ref in batch]}]})
    return await call(client, "turn_submit", role="act", output={"decision": {
        "action": "tool_call", "tool": "shopping_list_from", "arguments": arguments, "complete_step": True}})


async def test_the_meals_of_the_days_listed_are_handled_and_the_step_completes(client: Client) -> None:
    meals = (await _meals_with_recipes(client))[:3]
    answer = await _shopping_step_over(client, [m["id"] for m in meals],
                                       {"meal_plans": {"from": meals[0]["date"], "to": meals[-1]["date"]}})
    assert answer["stage"] == "answered", answer.get("notice")  # the step completed; the state's account tells the lines added


async def test_the_recipes_listed_are_handled_and_the_step_completes(client: Client) -> None:
    recipes = list(dict.fromkeys(m["recipe_id"] for m in await _meals_with_recipes(client)))[:2]
    answer = await _shopping_step_over(client, recipes, {"recipes": recipes})
    assert answer["stage"] == "answered", answer.get("notice")  # the step completed; the state's account tells the lines added


async def test_a_meal_outside_the_days_listed_stays_pending(client: Client) -> None:
    meals = await _meals_with_recipes(client)
    first, later = meals[0], next(m for m in meals if m["date"] != meals[0]["date"])
    answer = await _shopping_step_over(client, [first["id"], later["id"]], {"meal_plans": {"from": first["date"], "to": first["date"]}})
    assert answer["expected_role"] == "act" and later["id"] in answer["notice"] and "stays open" in answer["notice"], answer.get("notice")
