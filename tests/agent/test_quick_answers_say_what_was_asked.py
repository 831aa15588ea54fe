"""A quick answer says what the lookup asked ('19 items in your fridge', not '19 items matched in your pantry'), flags
what is past its date or to use soon as the dashboard does, keeps a stored amount in its own unit, groups the shopping
list by store section as its checklist does, and gives a far day its year; through real quick turns on the demo
kitchen, and over generated rows."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.agent.quick_answer import quick_answer
from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.dates import NEAR_DAYS, day_text
from alfred_mcp.kitchen.measures import line_text
from alfred_mcp.kitchen.schema import LOCATIONS
from alfred_mcp.kitchen.sections import section_order, store_section
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.operations.dashboard import HORIZON_DAYS

from .test_quick_answers import assert_reads_as_written_by_a_person, quick

pytestmark = pytest.mark.anyio
TODAY = date.today()


def _worded(today: date) -> list[tuple[str, dict[str, Any], str]]:
    """Each filter a quick read may get, with the words its answer must name, for reads made on `today`."""
    soon = (today + timedelta(days=HORIZON_DAYS)).isoformat()
    return [
        *[("inventory", {"field": "location", "op": "eq", "value": place},
           f"{'on' if place == 'counter' else 'in'} your {place}") for place in LOCATIONS],
        ("inventory", {"field": "expiry_date", "op": "lte", "value": soon}, f"to use by {day_text(soon)}"),
        ("meal_plans", {"field": "date", "op": "eq", "value": today.isoformat()}, f"on {day_text(today)}"),
        ("meal_plans", {"field": "date", "op": "gte", "value": today.isoformat()}, f"from {day_text(today)}"),
        ("meal_plans", {"field": "meal_type", "op": "eq", "value": "dinner"}, "for dinner"),
        ("tasks", {"field": "completed", "op": "eq", "value": False}, "still open"),
        ("tasks", {"field": "completed", "op": "eq", "value": True}, "done"),
        ("shopping_list", {"field": "is_purchased", "op": "eq", "value": False}, "still to buy"),
        ("shopping_list", {"field": "is_purchased", "op": "eq", "value": True}, "already bought"),
        ("recipes", {"field": "name", "op": "ilike", "value": "%cod%"}, 'with "cod" in the name'),
        ("recipes", {"field": "cuisine", "op": "eq", "value": "italian"}, "with cuisine italian"),
    ]


# Collected by index with ids that hold no date: workers collecting on either side of midnight agree.
_WORDED_IDS = [f"{table}-{where['field']}-{where['op']}-{index}" for index, (table, where, _) in enumerate(_worded(TODAY))]


@pytest.mark.parametrize("index", range(len(_WORDED_IDS)), ids=_WORDED_IDS)
async def test_a_filtered_answer_names_what_it_asked(app: AlfredApp, index: int) -> None:
    table, where, phrase = _worded(date.today())[index]
    state = await quick(app, {"table": table, "filters": [where], "limit": 100})
    reply = state.reply or ""
    head = reply.split("\n")[0].split(":")[0]
    assert phrase in head and "matched" not in head, reply
    assert_reads_as_written_by_a_person(reply)
    if where["field"] == "location" and state.quick_result and state.quick_result["rows"]:
        assert f"the {where['value']}" not in reply, "the line over the rows said where already"


async def test_every_pantry_item_past_its_date_or_near_it_is_flagged(app: AlfredApp) -> None:
    state = await quick(app, {"table": "inventory", "limit": 100})
    assert state.quick_result is not None
    reply = state.reply or ""
    lefts = {row["name"]: (date.fromisoformat(row["expiry_date"]) - date.today()).days
             for row in state.quick_result["rows"] if row.get("expiry_date")}
    assert any(left < 0 for left in lefts.values()), "the demo kitchen has something past its date"
    for name, left in lefts.items():
        line = next(line for line in reply.splitlines() if line.startswith(f"- {name} ("))
        assert ("past its use-by date" in line) == (left < 0), line
        assert ("use soon" in line or "use by today" in line) == (0 <= left <= HORIZON_DAYS), line
    past = sum(1 for left in lefts.values() if left < 0)
    assert f"({past} past {'its' if past == 1 else 'their'} date" in reply.splitlines()[0]


async def test_the_shopping_list_is_grouped_by_store_section_in_walking_order(app: AlfredApp) -> None:
    state = await quick(app, {"table": "shopping_list", "limit": 100})
    assert state.quick_result is not None
    rows = state.quick_result["rows"]
    lines = (state.reply or "").splitlines()[1:]
    headings = [line for line in lines if not line.startswith("- ")]
    taxonomy = default_taxonomy()
    sections = {store_section(row["name"], row.get("category"), taxonomy, row.get("unit")) for row in rows}
    assert headings == [section.capitalize() for section in sorted(sections, key=section_order)]
    for row in rows:
        heading = store_section(row["name"], row.get("category"), taxonomy, row.get("unit")).capitalize()
        under = lines[lines.index(heading) + 1:]
        under = under[:next((n for n, line in enumerate(under) if not line.startswith("- ")), len(under))]
        assert any(line.endswith(row["name"]) or f"{row['name']} (" in line for line in under), (row["name"], heading)


@given(st.integers(min_value=-30, max_value=800), st.sampled_from([None, "gallon", "quart", "cup", "lb"]))
def test_a_use_by_date_is_flagged_and_dated_as_a_person_writes_it(offset: int, unit: str | None) -> None:
    expiry = TODAY + timedelta(days=offset)
    row = {"id": "inv_1", "name": "milk", "quantity": 0.5, "unit": unit, "location": "fridge", "expiry_date": expiry.isoformat()}
    reply = quick_answer({"table": "inventory", "rows": [row]}, today=TODAY)
    assert ("past its use-by date" in reply) == (offset < 0)
    assert ("use soon" in reply or "use by today" in reply) == (0 <= offset <= HORIZON_DAYS)
    assert (f", {expiry.year}" in reply) == (offset > NEAR_DAYS or (expiry.year != TODAY.year and -offset > NEAR_DAYS))
    if unit in ("gallon", "quart"):
        assert f"1/2 {unit}" in reply, "a volume a shop sells in stays as stored"


async def test_a_recipes_ingredient_lines_say_their_amount_and_recipe_as_its_card_does(app: AlfredApp) -> None:
    state = await quick(app, {"table": "recipe_ingredients", "limit": 30})
    assert state.quick_result is not None
    lines = [line.removeprefix("- ") for line in (state.reply or "").splitlines()[1:] if line.startswith("- ")]
    for row, line in zip(state.quick_result["rows"], lines, strict=True):
        quantity = row.get("quantity")
        expected = line_text(float(quantity) if quantity is not None else None, row.get("unit"), row["name"])
        assert line == f"{expected} ({row['recipe_id_label']})", line
    assert_reads_as_written_by_a_person(state.reply or "")
