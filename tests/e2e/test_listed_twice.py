"""db_create of an item already there, through the real client: a shopping line for what the list holds unbought (the
name as written, or its other number: 'lemon' for 'lemons') warns naming the line's ref and amount, a pantry row of an
item kept in the same place warns naming that row; the row is still written. A bought line, another place or another
item says nothing. And a line in another spelling of the pantry row's unit ('count' for 'piece') ticked bought adds
to that row instead of a second one."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from alfred_mcp.kitchen.measures import amount_text
from alfred_mcp.kitchen.plurals import counted_name
from alfred_mcp.kitchen.schema import LOCATIONS
from alfred_mcp.kitchen.units import UNIT_ALIASES

from .helpers import call

pytestmark = pytest.mark.anyio
WEEK = {"from": "2026-01-12", "to": "2026-01-18"}


async def _rows(client: Client, table: str) -> list[dict[str, Any]]:
    return (await call(client, "db_read", table=table, limit=500))["rows"]


def _other_number(name: str) -> str:
    """'lemons' -> 'lemon', 'lemon' -> 'lemons' (a name that takes no plural comes back as it is)."""
    plural = counted_name(name, 2)
    return counted_name(name, 1) if plural == name else plural


async def test_every_unbought_line_listed_again_warns_naming_its_ref_and_amount(client: Client) -> None:
    await call(client, "shopping_list_from", meal_plans=WEEK)
    lines = await _rows(client, "shopping_list")
    assert lines
    for line in lines:
        for name in (line["name"], _other_number(line["name"])):
            written = await call(client, "db_create", table="shopping_list", data=[{"name": name, "quantity": 1}])
            warned = [w for w in written.get("warnings", []) if "already on the list" in w]
            if line["is_purchased"]:
                continue
            assert any(f": {line['id']}, {amount_text(line['quantity'], line['unit']) or 'no amount'}" in w for w in warned), (name, warned)
            await call(client, "db_delete", table="shopping_list", filters=[{"field": "id", "op": "eq", "value": written["rows"][0]["id"]}])


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
