"""A meal's line in a role's context names its recipe (ref and name) or says it has none, so "delete the recipe
planned for Saturday" can be acted on from the context alone."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.kitchen.dates import day_text
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPES
from alfred_mcp.server.mcp_server import build_server

pytestmark = pytest.mark.anyio
MEAL_TYPES = ("breakfast", "lunch", "dinner")


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    app = AlfredApp.from_settings(Settings(db=str(tmp_path / "kitchen.db"), seed_demo=False, check_results=True))
    await app.open()
    async with Client(build_server(app)) as connected:
        yield connected
    await app.close()


@pytest.mark.parametrize("planned", [(True,), (False,), (True, False, True), (False, False, True)],
                         ids=lambda planned: "-".join("recipe" if p else "empty" for p in planned))
async def test_every_meal_line_names_its_recipe_or_says_it_has_none(client: Client, planned: tuple[bool, ...]) -> None:
    expected: dict[str, str | None] = {}
    for day, has_recipe in enumerate(planned, start=1):
        recipe = None
        if has_recipe:
            (row,) = (await call(client, "db_create", table="recipes", data={"name": f"Dish number {day}", "servings": 2}))["rows"]
            recipe = row["id"]
        (meal,) = (await call(client, "db_create", table="meal_plans", data={
            "date": f"2030-01-0{day}", "meal_type": MEAL_TYPES[day % 3], "recipe_id": recipe}))["rows"]
        expected[meal["id"]] = f"{recipe} Dish number {day}" if recipe else None
    await call(client, "db_read", table="meal_plans")
    for role in ("understand", "think", "reply"):
        context = (await call(client, "turn_context", role=role, full=True))["context"] if role != "understand" else (
            await call(client, "turn_start", message="delete the recipe planned for Saturday"))["next"]["context"]
        for meal, recipe in expected.items():
            (line,) = [text for text in context.splitlines() if re.match(rf"- {meal}\b", text)]
            assert (f"→ {recipe}" in line) if recipe else ("(no recipe)" in line), (role, line)
        if role == "understand":
            await call(client, "turn_submit", role="understand", output={})
            await call(client, "turn_submit", role="think", output={
                "goal": "Answer", "decision": "plan_direct", "steps": [{"description": "Read meals", "step_type": "read",
                                                                        "subdomain": "meal_plans"}]})



@pytest.fixture
async def kitchen(tmp_path: Path) -> AsyncIterator[tuple[AlfredApp, Client]]:
    app = AlfredApp.from_settings(Settings(db=str(tmp_path / "kitchen.db"), seed_demo=False, check_results=True))
    await app.open()
    async with Client(build_server(app)) as connected:
        yield app, connected
    await app.close()


@pytest.mark.parametrize("planned", [(True,), (False, True), (True, False, True)],
                         ids=lambda planned: "-".join("recipe" if p else "empty" for p in planned))
async def test_a_meal_planned_ahead_names_its_recipe_in_understands_background(kitchen: tuple[AlfredApp, Client],
                                                                                planned: tuple[bool, ...]) -> None:
    """Meals not yet in view are listed in Understand's background as planned, with their recipe's name (or none), so
    'what can I cook tonight?' sees that tonight's dinner is already planned, and what it is."""
    app, client = kitchen
    expected: dict[str, str] = {}
    for offset, has_recipe in enumerate(planned):
        recipe = None
        if has_recipe:
            (row,) = await app.store.insert(RECIPES, [{"name": f"Dish number {offset}", "servings": 2}], user_id=app.user_id)
            recipe = row["id"]
        day = date.today() + timedelta(days=offset)
        await app.store.insert(MEAL_PLANS, [{"date": day.isoformat(), "meal_type": "dinner", "recipe_id": recipe}], user_id=app.user_id)
        expected[f"{day_text(day)} [dinner]"] = f"planned: Dish number {offset}" if recipe else "planned: no recipe"
    context = (await call(client, "turn_start", message="what can I cook tonight?"))["next"]["context"]
    for label, said in expected.items():
        lines = [text for text in context.splitlines() if f": {label} — " in text]
        assert lines and all(line.endswith(said) for line in lines), (label, said, lines)


@pytest.mark.parametrize("note", ["leftover Greek chicken and potatoes", "takeout  night", "y" * 90])
async def test_a_meal_planned_as_a_note_says_its_note_in_every_roles_line(client: Client, note: str) -> None:
    (meal,) = (await call(client, "db_create", table="meal_plans", data={"date": "2030-01-06", "meal_type": "lunch", "notes": note}))["rows"]
    await call(client, "db_read", table="meal_plans")
    said = " ".join(note.split())
    shown = said if len(said) <= 60 else said[:59] + "…"
    context = (await call(client, "turn_start", message="what is planned for lunch?"))["next"]["context"]
    (line,) = [text for text in context.splitlines() if re.match(rf"- {meal['id']}\b", text)]
    assert f'(no recipe, planned as "{shown}")' in line, line
