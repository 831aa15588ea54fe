"""A meal meal_cooked logged reads as done wherever the week is described: meal_plan_show's result and text, the
dashboard's next meals, and shopping_list_from over the week (nothing is bought for it again). Through the real client on the demo week."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from .helpers import call, call_error

pytestmark = pytest.mark.anyio
WEEK = {"from": "2026-01-12", "to": "2026-01-18"}
COOKED = {"none": lambda meals: [], "the first": lambda meals: meals[:1], "the last two": lambda meals: meals[-2:],
          "every other": lambda meals: meals[::2], "all": lambda meals: meals}
"""Which of the week's meals with a recipe are cooked, by the order they are planned in."""


async def _shown(client: Client) -> tuple[dict[str, Any], str]:
    result = await client.call_tool("meal_plan_show", WEEK)
    assert not result.is_error
    return dict(result.structured_content or {}), "".join(block.text for block in result.content if block.type == "text")


@pytest.mark.parametrize("which", list(COOKED))
async def test_a_cooked_meal_reads_as_done_in_the_plan_and_is_not_shopped_for(client: Client, which: str) -> None:
    plan, _ = await _shown(client)
    with_recipe = [meal["ref"] for meal in plan["meals"] if meal["recipe"]]
    cooked = COOKED[which](with_recipe)
    for ref in cooked:
        await call(client, "meal_cooked", meal=ref)
    plan, text = await _shown(client)
    assert [meal["ref"] for meal in plan["meals"] if meal.get("cooked")] == cooked
    assert all(meal.get("cooked") in (None, True) for meal in plan["meals"])
    lines = {meal["ref"]: next(line for line in text.splitlines() if f", {meal['ref']}" in line) for meal in plan["meals"]}
    assert [ref for ref, line in lines.items() if ", cooked" in line] == cooked, text
    head = text.splitlines()[0]
    assert head.endswith(f"({len(cooked)} cooked).") if cooked else not head.endswith("cooked)."), head
    dashboard = json.loads((await client.read_resource("alfred://kitchen/dashboard")).contents[0].text)  # type: ignore[union-attr]
    upcoming = dashboard["next_meals"]
    assert upcoming and [meal["ref"] for meal in upcoming if meal.get("cooked")] == [ref for ref in cooked if ref in
                                                                                     {meal["ref"] for meal in upcoming}]
    left = len(with_recipe) - len(cooked)
    if left:
        listed = await call(client, "shopping_list_from", meal_plans=WEEK, preview=True)
        assert listed["meals"] == left, listed
        assert (f"{len(cooked)} meal{'s' if len(cooked) > 1 else ''} cooked already" in listed.get("message", "")) == bool(cooked)
    else:
        refused = await call_error(client, "shopping_list_from", meal_plans=WEEK, preview=True)
        assert refused["field"] == "meal_plans" and "cooked already" in refused["message"], refused


@pytest.mark.parametrize(("quantity", "unit"), [(2.3333, "bag"), (1.8125, "box"), (3, "piece"), (0.9375, "bottle"), (1.3333, "bunch")])
async def test_what_meal_cooked_says_the_pantry_also_has_reads_as_a_cook_writes_it(client: Client, quantity: float, unit: str) -> None:
    """Short of a need, with a row in a unit that does not convert: the reason names that row's amount as the other
    tools write amounts (no '2.3333 bag', no bare '3')."""
    created = await call(client, "draft_create", entity_type="recipe", items=[{
        "name": "Test Quux Bake", "servings": 1, "ingredients": [{"name": "quuxmeal", "quantity": 500, "unit": "g"}],
        "instructions": ["Bake."]}])
    recipe = (await call(client, "draft_save", refs=[created["drafts"][0]["ref"]]))["items"][0]["saved_as"]
    await call(client, "db_create", table="inventory", data=[{"name": "quuxmeal", "quantity": 300, "unit": "g"},
                                                             {"name": "quuxmeal", "quantity": quantity, "unit": unit}])
    cooked = await call(client, "meal_cooked", recipe=recipe, servings=1)  # as written, not for the household
    (short,) = cooked["not_deducted"]
    reason = short["reason"]
    assert reason.startswith("200 g more than the pantry had; it also has "), reason
    also = reason.split("; it also has ")[1].split(", which does not convert")[0]
    assert "." not in also and any(char.isalpha() for char in also.replace("about", "")), reason


@pytest.mark.parametrize("cooked", [0, 1, 2])
async def test_understands_background_says_which_planned_meals_are_cooked(client: Client, cooked: int) -> None:
    """A new session's first turn lists the next planned meals as background: those cooked say so, no other does."""
    plan, _ = await _shown(client)
    done = [meal["ref"] for meal in plan["meals"] if meal["recipe"]][:cooked]
    for ref in done:
        await call(client, "meal_cooked", meal=ref)
    fresh = (await call(client, "session_start"))["session"]
    context = (await call(client, "turn_start", message="what is planned this week?", session=fresh))["next"]["context"]
    planned = [line for line in context.splitlines() if "— planned: " in line]
    assert planned and sum("(cooked)" in line for line in planned) == cooked, context  # the first meals are listed
    for line in planned:
        ref = line.removeprefix("- ").split(":")[0]
        assert ("(cooked)" in line) == (ref in done), line
