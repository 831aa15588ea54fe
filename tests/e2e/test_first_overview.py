"""A session's first turn_start answer that passes Think's context over (Understand's and Think's outputs sent ahead)
carries the kitchen's overview (the household and the meals planned next, by ref) under `kitchen`, once a session;
not while Understand or Think is next (Think's context carries the dashboard), nor once the client was sent it.
(Real client, real SQLite, the demo kitchen.)"""

from __future__ import annotations

import re
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.state.context import LIMITS, limits_line

from .helpers import call, eq

pytestmark = pytest.mark.anyio
HEAD = "Your kitchen (sent once a session):"
UNDERSTAND = {"role": "understand", "output": {"processed_message": "list my recipes"}}
THINK = {"role": "think", "output": {"goal": "list recipes", "decision": "plan_direct", "steps": [
    {"description": "Read recipes", "step_type": "read", "subdomain": "recipes",
     "call": {"tool": "db_read", "arguments": {"table": "recipes", "columns": ["name"]}}}]}}
AHEAD: dict[str, list[dict[str, Any]]] = {"nothing": [], "understand": [UNDERSTAND], "understand+think": [UNDERSTAND, THINK]}


def _overview(answer: dict[str, Any]) -> str | None:
    kitchen = answer.get("kitchen")
    assert kitchen is None or kitchen.startswith(HEAD)
    return kitchen


@pytest.mark.parametrize("ahead", AHEAD)
async def test_the_first_answer_of_a_session_carries_the_week_once(client: Client, ahead: str) -> None:
    session = (await call(client, "session_start"))["session"]
    first = await call(client, "turn_start", message="what recipes do I have?", session=session, then=AHEAD[ahead])
    overview = _overview(first)
    if ahead != "understand+think":
        assert overview is None and first["expected_role"] in ("understand", "think")
        return
    assert overview is not None, first
    assert "- Household: 2 adults, 1 kid (meals default to 3 servings)" in overview
    (meals,) = [line for line in overview.splitlines() if line.startswith("- Next meals (")]
    assert re.search(r"meal_\d+ \w{3} \w{3} \d+ \[dinner\] → recipe_\d+ ", meals), meals
    await call(client, "turn_abandon", session=session)
    again = await call(client, "turn_start", message="and my pantry?", session=session, then=AHEAD[ahead])
    assert _overview(again) is None


async def test_a_client_sent_the_dashboard_gets_no_overview(client: Client) -> None:
    session = (await call(client, "session_start"))["session"]
    await call(client, "turn_start", message="plan dinners", session=session, then=[UNDERSTAND])  # Think's context: the dashboard
    await call(client, "turn_abandon", session=session)
    assert _overview(await call(client, "turn_start", message="and lunch?", session=session, then=[UNDERSTAND, THINK])) is None


GENERATE = {"role": "think", "output": {"goal": "draft a recipe", "decision": "plan_direct", "steps": [
    {"description": "Draft a dinner recipe", "step_type": "generate", "subdomain": "recipes"}]}}
PROFILES = {"allergy only": {"allergies": ["peanuts"], "disliked_ingredients": [], "dietary_restrictions": []},
            "all three": {"allergies": ["shellfish", "sesame"], "disliked_ingredients": ["olives"], "dietary_restrictions": ["halal"]},
            "none": {column: [] for column, _ in LIMITS}}


async def _with_profile(client: Client, values: dict[str, list[str]]) -> str | None:
    (profile,) = (await call(client, "db_read", table="preferences"))["rows"]
    await call(client, "db_update", table="preferences", filters=[eq("id", profile["id"])], data=values, confirm_allergy_removal=True)
    return limits_line(values)


@pytest.mark.parametrize("profile", PROFILES)
async def test_the_first_overview_carries_the_allergies_dislikes_and_diet(client: Client, profile: str) -> None:
    limits = await _with_profile(client, PROFILES[profile])
    session = (await call(client, "session_start"))["session"]
    overview = _overview(await call(client, "turn_start", message="draft me a dinner", session=session, then=[UNDERSTAND, GENERATE]))
    assert overview is not None
    assert (f"- {limits}" in overview.splitlines()) if limits else not any(
        line.startswith(f"- {word}:") for line in overview.splitlines() for _, word in LIMITS)


@pytest.mark.parametrize("profile", PROFILES)
async def test_every_generate_step_view_carries_the_limits_its_context_leaves_out(client: Client, profile: str) -> None:
    """Each turn's generate step: the context has the constraints section whole, or the view's `limits` line says them."""
    limits = await _with_profile(client, PROFILES[profile])
    session = (await call(client, "session_start"))["session"]
    for message in ("draft me a dinner", "draft me a lunch", "and a soup"):
        view = (await call(client, "turn_start", message=message, session=session, then=[UNDERSTAND, GENERATE]))["next"]
        assert view["role"] == "act"
        whole = "## Constraints\n" in view["context"]
        assert view.get("limits") == (None if whole else limits), view
        if whole and limits:
            assert all(value in view["context"] for values in PROFILES[profile].values() for value in values)
        await call(client, "turn_abandon", session=session)


async def test_a_meal_plan_longer_than_the_overview_says_how_a_turn_shows_the_rest(client: Client) -> None:
    session = (await call(client, "session_start"))["session"]
    total = len((await call(client, "db_read", table="meal_plans", columns=["date"]))["rows"])
    overview = _overview(await call(client, "turn_start", message="what recipes do I have?", session=session, then=[UNDERSTAND, THINK]))
    assert overview is not None
    (meals,) = [line for line in overview.splitlines() if line.startswith("- Next meals (")]
    shown = int(re.search(r"\((\d+) of (\d+) planned", meals).group(1))  # type: ignore[union-attr]
    planned = int(re.search(r"of (\d+) planned", meals).group(1))  # type: ignore[union-attr]
    assert planned <= total
    if planned > shown:
        assert f"(+{planned - shown} more: a turn's read step shows them" in meals and "read meal_plans" not in meals
    assert planned > shown, "the demo kitchen plans more meals than the overview names"


def _think_reading(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"role": "think", "output": {"goal": "look it up", "decision": "plan_direct", "steps": [
        {"description": "Read it", "step_type": "read", "subdomain": "recipes", "call": {"tool": tool, "arguments": arguments}}]}}


READS = {"recipe names": ("db_read", {"table": "recipes", "columns": ["name"]}),
         "the meal plan": ("meal_plan_show", {}),
         "the pantry": ("db_read", {"table": "inventory", "columns": ["name"], "limit": 5}),
         "fish recipes": ("recipes_search", {"category": "fish"})}


def _line(overview: str, start: str) -> str | None:
    return next((line for line in overview.splitlines() if line.startswith(start)), None)


@pytest.mark.parametrize("read", READS)
async def test_the_overview_carries_what_a_plan_decides_from_without_repeating_the_notice(client: Client, read: str) -> None:
    """What to use soon by name and day, and every saved recipe by name, besides what the same answer's notice shows:
    a meal the notice shows is named by its ref only, a recipe it names (or the meals line names) is left out."""
    recipes = [row["name"] for row in (await call(client, "db_read", table="recipes", columns=["name"]))["rows"]]
    session = (await call(client, "session_start"))["session"]
    first = await call(client, "turn_start", message=f"show me {read}", session=session, then=[UNDERSTAND, _think_reading(*READS[read])])
    overview, notice = _overview(first), first.get("notice") or ""
    assert overview is not None and notice, first
    meals = _line(overview, "- Next meals (")
    assert meals is not None
    for ref in re.findall(r"\bmeal_\d+\b", meals):
        assert (f"{ref} (in the notice)" in meals) == (re.search(rf"\b{ref}\b", notice) is not None), (ref, meals)
    soon = _line(overview, "- Use soon: ")
    assert soon is not None and re.search(r"\w+ [A-Z][a-z]{2} \d{1,2}\b", soon), overview
    named = _line(overview, "- Recipes besides those above: ")
    besides = "\n".join([notice, meals])
    expected = [name for name in sorted(recipes) if name not in besides]
    if not expected:
        assert named is None, named
        return
    assert named is not None and named.startswith("- Recipes besides those above: "), overview
    assert named.split(": ", 1)[1].split(", ") == expected
