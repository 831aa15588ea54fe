"""A recipe put on a meal planned only as a note (a lunch of 'leftover Greek chicken and potatoes') is told: the write
answers with a warning naming the note the meal was planned with, on db_update, and a second meal planned into its
slot by db_create is warned naming the meal by its note (never a bare "no recipe", which reads as a free slot). (Real client, real SQLite, the demo kitchen.)"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from alfred_mcp.state.warning_words import person_sentence

from .helpers import call, eq

pytestmark = pytest.mark.anyio


async def _noted_meal(client: Client) -> dict[str, Any]:
    noted = [{"field": "recipe_id", "op": "is_null", "value": True}, {"field": "notes", "op": "is_null", "value": False}]
    rows = (await call(client, "db_read", table="meal_plans", filters=noted))["rows"]
    return next(row for row in rows if row["meal_type"] == "lunch")


async def _a_recipe(client: Client) -> str:
    return str((await call(client, "db_read", table="recipes", columns=["name"], limit=1))["rows"][0]["id"])


async def test_a_recipe_put_on_a_noted_meal_is_warned_naming_the_note(client: Client) -> None:
    meal, recipe = await _noted_meal(client), await _a_recipe(client)
    answer = await call(client, "db_update", table="meal_plans", filters=[eq("id", meal["id"])], data={"recipe_id": recipe})
    assert any(meal["notes"] in warning for warning in answer.get("warnings", ())), answer


async def test_a_meal_planned_into_a_noted_slot_is_warned_naming_the_note(client: Client) -> None:
    meal, recipe = await _noted_meal(client), await _a_recipe(client)
    answer = await call(client, "db_create", table="meal_plans", data={"date": meal["date"], "meal_type": "lunch", "recipe_id": recipe})
    assert any(f'{meal["id"]} (no recipe, planned as "{meal["notes"]}")' in warning for warning in answer.get("warnings", ())), answer


async def test_the_person_reads_the_note_of_the_meal_already_there(client: Client) -> None:
    meal, recipe = await _noted_meal(client), await _a_recipe(client)
    answer = await call(client, "db_create", table="meal_plans", data={"date": meal["date"], "meal_type": "lunch", "recipe_id": recipe})
    (warning,) = [warning for warning in answer["warnings"] if "already has" in warning]
    said = person_sentence(warning, lambda ref: None)
    assert said is not None and f'already had a meal planned as "{meal["notes"]}"; both are planned now.' in said, said
