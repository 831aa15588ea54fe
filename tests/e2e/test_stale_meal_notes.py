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


@pytest.mark.parametrize("others", [0, 1, 2, 3])
async def test_every_other_meal_to_come_whose_note_names_the_recipe_replaced_is_named(client: Client, others: int) -> None:
    """Saturday dinner's recipe swapped: Sunday lunch's 'leftover <recipe>' (and every such meal to come) is named, each
    once; a meal whose note names another recipe, or one already past, is not."""
    from datetime import date, timedelta

    old, new, other = await _recipes(client)
    swapped = await _meal(client, old["id"], NOTE)
    day = date.today() + timedelta(days=400)
    noting = [dict((await call(client, "db_create", table="meal_plans", data={
        "date": (day + timedelta(days=i)).isoformat(), "meal_type": "lunch", "notes": f"leftover {old['name'].lower()}"}))["rows"][0])
        for i in range(others)]
    unrelated = (await call(client, "db_create", table="meal_plans", data={
        "date": day.isoformat(), "meal_type": "breakfast", "notes": f"leftover {other['name'].lower()}"}))["rows"][0]
    past = (await call(client, "db_create", table="meal_plans", data={
        "date": "2020-01-05", "meal_type": "lunch", "notes": f"leftover {old['name'].lower()}"}))["rows"][0]
    result = await call(client, "db_update", table="meal_plans", filters=[eq("id", swapped["id"])], data={"recipe_id": new["id"]})
    named = [w for w in result.get("warnings", []) if "'s note 'leftover" in w and f"names {old['name']}, replaced in {swapped['id']}" in w]
    assert sorted(w.split(":")[0] for w in named) == sorted(meal["id"] for meal in noting), result.get("warnings")
    assert not [w for w in result.get("warnings", []) if w.startswith((f"{unrelated['id']}:", f"{past['id']}:"))]
