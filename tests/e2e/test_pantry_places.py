"""The pantry as a cook keeps it, through the real client on the demo kitchen: a bought line stocked where the thing
keeps (onions on the counter, spinach in the fridge, a can in the pantry, frozen corn in the freezer), and a row past
its use-by date covering nothing on the shopping list, which says why."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.kitchen.dates import day_text

from .helpers import call, eq

pytestmark = pytest.mark.anyio
BOUGHT = [  # names the demo pantry holds no row of: where a new row goes is the rules', not an old row's
    ({"name": "shallots", "quantity": 4, "category": "produce"}, "counter"),
    ({"name": "butternut squash", "quantity": 1}, "counter"),
    ({"name": "mangoes", "quantity": 2, "category": "produce"}, "counter"),
    ({"name": "cherry tomatoes", "quantity": 1, "unit": "lb"}, "counter"),
    ({"name": "kale", "quantity": 1, "unit": "bunch", "category": "produce"}, "fridge"),
    ({"name": "scallions", "quantity": 1, "unit": "bunch"}, "fridge"),
    ({"name": "chickpeas", "quantity": 2, "unit": "can", "category": "produce"}, "pantry"),
    ({"name": "frozen corn", "quantity": 1, "unit": "bag", "category": "produce"}, "freezer"),
]


@pytest.mark.parametrize(("line", "place"), BOUGHT, ids=[line["name"] for line, _ in BOUGHT])
async def test_a_bought_line_is_stocked_where_the_thing_keeps(client: Client, line: dict[str, Any], place: str) -> None:
    (row,) = (await call(client, "db_create", table="shopping_list", data=[line]))["rows"]
    ticked = await call(client, "shopping_list_check", items=[row["id"]], bought=True)
    (stocked,) = ticked["stocked"]
    assert stocked["new"], stocked
    (item,) = (await call(client, "db_read", table="inventory", filters=[eq("id", stocked["ref"])]))["rows"]
    assert item["location"] == place, item


USE_BY = {"a month ago": -30, "yesterday": -1, "today": 0, "none": None}
"""A pantry row's use-by date, from the day the list is made: past it (the first two) or not (on the day itself, or
undated)."""


async def _recipe(client: Client, need: float) -> str:
    created = await call(client, "draft_create", entity_type="recipe", items=[{
        "name": "Test Quux Stew", "servings": 2, "ingredients": [{"name": "quuxkraut", "quantity": need, "unit": "cup"}],
        "instructions": ["Stew."]}])
    return str((await call(client, "draft_save", refs=[created["drafts"][0]["ref"]]))["items"][0]["saved_as"])


@pytest.mark.parametrize("preview", [True, False])
@pytest.mark.parametrize("fresh", [0, 1, 3], ids=["no good row", "a good cup", "three good cups"])
@pytest.mark.parametrize("use_by", list(USE_BY))
async def test_a_pantry_row_past_its_use_by_date_covers_nothing_and_the_line_says_why(
    client: Client, use_by: str, fresh: int, preview: bool,
) -> None:
    today = date.today()
    offset = USE_BY[use_by]
    past = offset is not None and offset < 0
    recipe = await _recipe(client, 2)
    rows = [{"name": "quuxkraut", "quantity": 4, "unit": "cup",
             **({"expiry_date": (today + timedelta(days=offset)).isoformat()} if offset is not None else {})}]
    rows += [{"name": "quuxkraut", "quantity": fresh, "unit": "cup"}] if fresh else []
    await call(client, "db_create", table="inventory", data=rows)
    listed = await call(client, "shopping_list_from", recipes=[recipe], preview=preview)
    usable = fresh + (0 if past else 4)
    if usable >= 2:
        assert listed["lines"] == [] and [item["name"] for item in listed["covered"]] == ["quuxkraut"], listed
        return
    (line,) = listed["lines"]
    assert line["text"].startswith(f"{2 - usable} cup"), line
    said = f"the one in the pantry is past its date, {day_text(today + timedelta(days=offset or 0), today=today)}"
    assert line.get("note") == said, line
    if not preview:
        (stored,) = (await call(client, "db_read", table="shopping_list", filters=[eq("name", "quuxkraut")]))["rows"]
        assert said in stored["notes"], stored
        again = await call(client, "shopping_list_from", recipes=[recipe])
        assert again["lines"] == [], again
        (stored_again,) = (await call(client, "db_read", table="shopping_list", filters=[eq("name", "quuxkraut")]))["rows"]
        assert stored_again["notes"].count(said) == 1, stored_again


@pytest.mark.parametrize("use_by", list(USE_BY))
async def test_a_pantry_row_past_its_use_by_date_does_not_make_a_recipe_makeable(client: Client, use_by: str) -> None:
    """recipes_makeable counts what the shopping list counts: a row past its date is missing, whatever else it holds;
    moving its date on (a pantry write) counts it again."""
    today = date.today()
    offset = USE_BY[use_by]
    created = await call(client, "draft_create", entity_type="recipe", items=[{
        "name": "Test Quux Salad", "servings": 2, "ingredients": [{"name": "quuxleaf", "quantity": 1, "unit": "cup"},
                                                                  {"name": "quuxseed", "quantity": 1, "unit": "tbsp"}],
        "instructions": ["Toss."]}])
    recipe = (await call(client, "draft_save", refs=[created["drafts"][0]["ref"]]))["items"][0]["saved_as"]
    leaf, _ = [row["id"] for row in (await call(client, "db_create", table="inventory", data=[
        {"name": "quuxleaf", "quantity": 2, "unit": "cup",
         **({"expiry_date": (today + timedelta(days=offset)).isoformat()} if offset is not None else {})},
        {"name": "quuxseed", "quantity": 1, "unit": "cup"}]))["rows"]]

    async def missing() -> list[str]:
        found = await call(client, "recipes_makeable", limit=50)
        (hit,) = [hit for hit in found["recipes"] if hit["ref"] == recipe]
        return list(hit["missing"])

    assert await missing() == (["quuxleaf"] if offset is not None and offset < 0 else [])
    await call(client, "db_update", table="inventory", filters=[eq("id", leaf)],
               data={"expiry_date": (today + timedelta(days=3)).isoformat()})
    assert await missing() == []


@pytest.mark.parametrize("need", [2, 4, 6, 8, 10])
async def test_meal_cooked_takes_from_rows_in_date_before_a_row_past_its_date(client: Client, need: int) -> None:
    """Two rows of the thing, one past its use-by date and one good (dated later, so soonest-first alone would take
    the past one first): the good one is used up first, the past one only for what is left."""
    today = date.today()
    created = await call(client, "draft_create", entity_type="recipe", items=[{
        "name": "Test Quux Sauce", "servings": 1, "ingredients": [{"name": "quuxbutter", "quantity": need, "unit": "tbsp"}],
        "instructions": ["Melt."]}])
    recipe = (await call(client, "draft_save", refs=[created["drafts"][0]["ref"]]))["items"][0]["saved_as"]
    past, good = [row["id"] for row in (await call(client, "db_create", table="inventory", data=[
        {"name": "quuxbutter", "quantity": 4, "unit": "tbsp", "expiry_date": (today - timedelta(days=1)).isoformat()},
        {"name": "quuxbutter", "quantity": 4, "unit": "tbsp", "expiry_date": (today + timedelta(days=5)).isoformat()}]))["rows"]]
    cooked = await call(client, "meal_cooked", recipe=recipe, servings=1)
    left = {row["id"]: row["quantity"] for row in (await call(client, "db_read", table="inventory",
                                                              filters=[eq("name", "quuxbutter")]))["rows"]}
    assert left == {good: max(0, 4 - need), past: max(0, 4 - max(0, need - 4))}, cooked
    assert [line["ref"] for line in cooked["deducted"]] == [good] + ([past] if need > 4 else [])
