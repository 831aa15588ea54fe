"""A planned meal is told wherever a summary names it: its note in the next meals line (the first answer's kitchen
overview, Think's dashboard), so a lunch planned as 'leftover Greek chicken' never reads as a free slot; and "what can
I cook tonight" (recipes_makeable) says what today already has planned, before any suggestion. (Real client, real
SQLite, the demo kitchen, the clock on its day.)"""

from __future__ import annotations

from datetime import date

import pytest
from mcp import Client

from alfred_mcp.agent.act_tools import result_card

from .helpers import call
from .test_first_overview import UNDERSTAND

pytestmark = pytest.mark.anyio
NOTE = "leftover Greek chicken and potatoes"
THINK = {"role": "think", "output": {"goal": "list recipes", "decision": "plan_direct", "steps": [
    {"description": "Read recipes", "step_type": "read", "subdomain": "recipes",
     "call": {"tool": "db_read", "arguments": {"table": "recipes", "columns": ["name"]}}}]}}


async def _noted_breakfast(client: Client, note: str = NOTE) -> str:
    """A breakfast planned today with `note` and no recipe (the day's first meal): its ref."""
    created = await call(client, "db_create", table="meal_plans", data={"date": date.today().isoformat(), "meal_type": "breakfast", "notes": note})
    return str(created["rows"][0]["id"])


@pytest.mark.parametrize("note", [NOTE, "  use   the salmon\nbefore it turns  ", "x" * 200])
async def test_the_first_overview_shows_a_planned_meals_note(client: Client, note: str) -> None:
    meal = await _noted_breakfast(client, note)
    session = (await call(client, "session_start"))["session"]
    first = await call(client, "turn_start", message="what recipes do I have?", session=session, then=[UNDERSTAND, THINK])
    (meals,) = [line for line in first["kitchen"].splitlines() if line.startswith("- Next meals")]
    said = " ".join(note.split())
    shown = said if len(said) <= 60 else said[:59] + "…"
    assert f'{meal} ' in meals and f'"{shown}"' in meals, meals


async def test_what_can_i_cook_says_what_today_already_has(client: Client) -> None:
    meal = await _noted_breakfast(client)
    found = await call(client, "recipes_makeable")
    assert f'breakfast: {meal} "{NOTE}"' in found["planned_today"], found["planned_today"]
    assert all(line.split(": ", 1)[0] in ("breakfast", "lunch", "dinner", "snack", "other") for line in found["planned_today"])
    card = result_card("recipes_makeable", {}, found)
    assert "Planned today already: " in card and meal in card


async def test_nothing_planned_today_adds_nothing(client: Client) -> None:
    planned = await call(client, "db_read", table="meal_plans", filters=[{"field": "date", "op": "eq", "value": "today"}])
    for row in planned["rows"]:
        await call(client, "db_delete", table="meal_plans", filters=[{"field": "id", "op": "eq", "value": row["id"]}])
    found = await call(client, "recipes_makeable")
    assert "planned_today" not in found and "Planned today" not in result_card("recipes_makeable", {}, found)
