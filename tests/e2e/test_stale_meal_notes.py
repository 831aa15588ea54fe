"""A meal given another recipe keeps the notes written for the one before: db_update says so in a warning, naming the
note and both recipes (or, when the meal had none left, that the note came before its recipe), never changing the note
itself. An update that also sets the notes, keeps the recipe, or a meal without notes says nothing of them.
(Real client, real SQLite; the eras answer the same: test_era_parity.py.)
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from .helpers import call, eq

pytestmark = pytest.mark.anyio
DAY = "2031-05-02"
NOTE = "double the potatoes for lunch leftovers"


async def _recipes(client: Client) -> list[dict[str, Any]]:
    return list((await call(client, "db_read", table="recipes", columns=["name"], limit=3))["rows"])


async def _meal(client: Client, recipe: str | None, notes: str | None) -> dict[str, Any]:
    data = {"date": DAY, "meal_type": "dinner", **({"recipe_id": recipe} if recipe else {}), **({"notes": notes} if notes else {})}
    (meal,) = (await call(client, "db_create", table="meal_plans", data=data))["rows"]
    return dict(meal)


def _noted(result: dict[str, Any], meal: str) -> list[str]:
    return [warning for warning in result.get("warnings", []) if warning.startswith(f"{meal}:") and "keeps its note" in warning]


@pytest.mark.parametrize("had_recipe", [True, False], ids=["its recipe replaced", "a recipe set where none was left"])
async def test_a_meal_given_another_recipe_is_warned_its_note_was_written_for_the_one_before(client: Client, had_recipe: bool) -> None:
    old, new, _ = await _recipes(client)
    meal = await _meal(client, old["id"] if had_recipe else None, NOTE)
    result = await call(client, "db_update", table="meal_plans", filters=[eq("id", meal["id"])], data={"recipe_id": new["id"]})
    (warning,) = _noted(result, meal["id"])
    assert f"'{NOTE}'" in warning and new["name"] in warning and (old["name"] in warning) == had_recipe, warning
    (row,) = (await call(client, "db_read", table="meal_plans", filters=[eq("id", meal["id"])]))["rows"]
    assert row["notes"] == NOTE and row["recipe_id"] == new["id"]


UNTOLD: dict[str, tuple[str | None, dict[str, Any]]] = {
    "the note set too": (NOTE, {"notes": "make it spicy"}),
    "the note cleared too": (NOTE, {"notes": None}),
    "the same recipe": (NOTE, {}),
    "a meal without notes": (None, {}),
}


@pytest.mark.parametrize("case", UNTOLD.values(), ids=list(UNTOLD))
async def test_an_update_that_leaves_no_note_behind_its_recipe_says_nothing_of_notes(
        client: Client, case: tuple[str | None, dict[str, Any]]) -> None:
    notes, more = case
    old, new, _ = await _recipes(client)
    meal = await _meal(client, old["id"], notes)
    recipe = old["id"] if case is UNTOLD["the same recipe"] else new["id"]
    result = await call(client, "db_update", table="meal_plans", filters=[eq("id", meal["id"])], data={"recipe_id": recipe, **more})
    assert _noted(result, meal["id"]) == [], result
