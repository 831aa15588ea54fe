"""db_create of an item already there, through the real client: a shopping line for what the list holds unbought (the
name as written, or its other number: 'lemon' for 'lemons') is one line: its amount added to that line when the amounts
add, kept beside the line's own when the units do not compare, the line's amount when it had none (said in `notes` and
`note_facts`, undone by kitchen_undo), and nothing written for an item named with no amount (a fact says it is there);
a payload with a note of its own is a second line with a warning naming the line's ref and amount; a pantry row of an
item kept in the same place warns naming that row; the row is still written. A bought line, another place or another
item says nothing. And a line in another spelling of the pantry row's unit ('count' for 'piece') ticked bought adds
to that row instead of a second one."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from alfred_mcp.kitchen.ingredient_kinds import kind_of, same_kind
from alfred_mcp.kitchen.measures import Amount, amount_text, dimension
from alfred_mcp.kitchen.plurals import counted_name
from alfred_mcp.kitchen.schema import LOCATIONS, UNITS
from alfred_mcp.kitchen.shopping_lines import bought_amounts
from alfred_mcp.kitchen.units import UNIT_ALIASES
from alfred_mcp.operations.shopping import joined_amount
from alfred_mcp.state.note_facts import note_text

from .helpers import call

pytestmark = pytest.mark.anyio
WEEK = {"from": "2026-01-12", "to": "2026-01-18"}


async def _rows(client: Client, table: str) -> list[dict[str, Any]]:
    return (await call(client, "db_read", table=table, limit=500))["rows"]


def _other_number(name: str) -> str:
    """'lemons' -> 'lemon', 'lemon' -> 'lemons' (a name that takes no plural comes back as it is)."""
    plural = counted_name(name, 2)
    return counted_name(name, 1) if plural == name else plural


async def test_every_unbought_line_listed_again_with_an_amount_takes_it_on_the_same_line(client: Client) -> None:
    await call(client, "shopping_list_from", meal_plans=WEEK)
    lines = await _rows(client, "shopping_list")
    assert lines
    for line in lines:
        for name in (line["name"], _other_number(line["name"])):
            before = await _rows(client, "shopping_list")
            written = await call(client, "db_create", table="shopping_list", data=[{"name": name, "quantity": 1}])
            if line["is_purchased"]:
                continue
            assert [row["id"] for row in written["rows"]] == [line["id"]] and not written.get("warnings"), written
            assert any(f"the {line['name']} already on the list: {line['id']}, now " in note for note in written["notes"]), written
            assert "note_facts" not in written, written  # the fact stays with the state's account; its note says it
            await call(client, "kitchen_undo")
            assert await _rows(client, "shopping_list") == before


async def test_every_unbought_line_named_again_with_no_amount_is_left_as_it_is_and_said_to_be_there(client: Client) -> None:
    await call(client, "shopping_list_from", meal_plans=WEEK)
    before = await _rows(client, "shopping_list")
    for line in before:
        for name in (line["name"], _other_number(line["name"])):
            written = await call(client, "db_create", table="shopping_list", data={"name": name, "category": line.get("category")})
            if line["is_purchased"]:  # a bought line is not on the list to buy: a new line, taken off again
                for row in written["rows"]:
                    await call(client, "db_delete", table="shopping_list", filters=[{"field": "id", "op": "eq", "value": row["id"]}])
                continue
            assert written["rows"] == [] and not written.get("warnings"), written
            assert written["notes"] == [note_text({"kind": "already_on_list", "ref": line["id"], "name": line["name"],
                                                   "amount": amount_text(line["quantity"], line["unit"]) or ""})], written
    assert await _rows(client, "shopping_list") == before


DIMENSIONS = [[u for u in (None, *UNITS) if dimension(u) == d] for d in dict.fromkeys(dimension(u) for u in (None, *UNITS))]
UNIT_PAIRS = [pair for i, units in enumerate(DIMENSIONS)
              for pair in ((units[0], units[0]), (units[0], units[-1]), (units[-1], DIMENSIONS[(i + 1) % len(DIMENSIONS)][0]))]
"""Every kind of pair of units a line and a second amount of it can be in, for each dimension: the same unit, two units
of it (a dimension of one unit: the same again), and a unit of another dimension."""


async def test_a_second_amount_of_a_listed_item_adds_to_its_line_when_the_units_add_else_is_kept_beside_it(client: Client) -> None:
    name = "yuzu juice"
    for listed, added in UNIT_PAIRS:
        first = (await call(client, "db_create", table="shopping_list", data={"name": name, "quantity": 2, "unit": listed}))["rows"][0]
        before = await _rows(client, "shopping_list")
        written = await call(client, "db_create", table="shopping_list", data={"name": name, "quantity": 1, "unit": added})
        total = joined_amount(name, Amount(2, listed), Amount(1, added))
        ours = [row for row in await _rows(client, "shopping_list") if row["name"] == name]
        if not same_kind(kind_of(name, listed), kind_of(name, added)):  # a canned item is not the fresh one: apart, unwarned
            assert len(ours) == 2 and not written.get("notes"), (listed, added, written)
        elif total is not None:
            assert [(row["id"], row["quantity"], row["unit"]) for row in ours] == [(first["id"], round(total.quantity, 3), total.unit)]
            assert written["notes"] == [f"added {amount_text(1, added)} to the {name} already on the list: {first['id']}, now "
                                        f"{amount_text(round(total.quantity, 3), total.unit)}"], (listed, added, written)
        else:
            assert [(row["id"], row["quantity"], row["unit"]) for row in ours] == [(first["id"], 2, listed)], (listed, added)
            assert len(bought_amounts(ours[0])) == 2 and not written.get("warnings"), (listed, added, ours)
            assert written["notes"][0].startswith(f"added {amount_text(1, added)} to the {name} already on the list: {first['id']}, "
                                                  f"now {amount_text(2, listed)} + "), (listed, added, written)
        await call(client, "kitchen_undo")
        assert await _rows(client, "shopping_list") == before, (listed, added)
        await call(client, "db_delete", table="shopping_list", filters=[{"field": "id", "op": "eq", "value": first["id"]}])


async def test_a_new_item_or_a_bought_one_listed_says_nothing_about_the_list(client: Client) -> None:
    first = await call(client, "db_create", table="shopping_list", data=[{"name": "dragon fruit", "quantity": 1}])
    assert not [w for w in first.get("warnings", []) if "already" in w]
    await call(client, "db_update", table="shopping_list", filters=[{"field": "id", "op": "eq", "value": first["rows"][0]["id"]}],
               data={"is_purchased": True})
    again = await call(client, "db_create", table="shopping_list", data=[{"name": "dragon fruit", "quantity": 1}])
    assert not [w for w in again.get("warnings", []) if "already" in w]


async def test_every_pantry_row_stocked_again_warns_in_its_place_only(client: Client) -> None:
    rows = await _rows(client, "inventory")
    assert rows
    for row in rows:
        for location in LOCATIONS:
            data = {"name": row["name"], "quantity": 1, "unit": row["unit"], "location": location, "notes": row.get("notes")}
            written = await call(client, "db_create", table="inventory", data=[data])
            warned = [w for w in written.get("warnings", []) if f": {row['id']}," in w]
            assert bool(warned) == (location == row["location"]), (row, location, written.get("warnings"))
            await call(client, "db_delete", table="inventory", filters=[{"field": "id", "op": "eq", "value": written["rows"][0]["id"]}])


@pytest.mark.parametrize("spelling", sorted(alias for alias, unit in UNIT_ALIASES.items() if unit == "piece"))
async def test_a_line_in_another_spelling_of_piece_ticked_adds_to_the_pantry_row(client: Client, spelling: str) -> None:
    pantry = await call(client, "db_create", table="inventory", data=[{"name": "eggs", "quantity": 6, "unit": "piece", "location": "fridge"}])
    row = pantry["rows"][0]["id"]
    line = (await call(client, "db_create", table="shopping_list", data=[{"name": "eggs", "quantity": 12, "unit": spelling}]))["rows"][0]
    assert line["unit"] == "piece"
    ticked = await call(client, "shopping_list_check", items=[line["id"]], bought=True)
    assert [(item["ref"], item["new"]) for item in ticked["stocked"]] == [(row, False)], ticked["stocked"]
    held = (await call(client, "db_read", table="inventory", filters=[{"field": "id", "op": "eq", "value": row}]))["rows"][0]
    assert held["quantity"] == 18


@pytest.mark.parametrize(("entity_type", "table", "extra"), [("shop", "shopping_list", {}), ("inv", "inventory", {"location": "fridge"})])
async def test_a_saved_draft_of_an_item_already_there_warns_and_saves_its_unit_in_one_spelling(
    client: Client, entity_type: str, table: str, extra: dict[str, Any],
) -> None:
    there = (await call(client, "db_create", table=table, data=[{"name": "yuzu kosho", "quantity": 1, "unit": "carton", **extra}]))["rows"][0]
    items = [{"name": "yuzu kosho", "quantity": 2, "unit": spelling, **extra} for spelling, unit in UNIT_ALIASES.items() if unit == "piece"]
    refs = [d["ref"] for d in (await call(client, "draft_create", entity_type=entity_type, items=items))["drafts"]]
    saved = await call(client, "draft_save", refs=refs)
    assert saved["saved"] == len(items), saved
    warned = [w for w in saved.get("warnings", []) if f": {there['id']}, 1 carton" in w]
    assert len(warned) == len(items), saved.get("warnings")
    rows = [row for row in await _rows(client, table) if row["name"] == "yuzu kosho" and row["id"] != there["id"]]
    assert [row["unit"] for row in rows] == ["piece"] * len(items)
