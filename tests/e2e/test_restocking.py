"""shopping_list_check through the real client: a ticked line stocks what it told the shopper to buy, in the matching
pantry row's unit, and unticking takes exactly that back."""

from __future__ import annotations

import math
from datetime import date, timedelta
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.kitchen.measures import quantity_text, unit_word
from alfred_mcp.kitchen.schema import LOCATIONS
from alfred_mcp.kitchen.shopping_lines import bought_amounts
from alfred_mcp.state.pantry import Stock, in_unit, row_kind

from .helpers import call

pytestmark = pytest.mark.anyio
WEEK = {"from": "2026-01-12", "to": "2026-01-18"}


async def _pantry(client: Client) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in (await call(client, "db_read", table="inventory", limit=500))["rows"]}


async def _lines(client: Client) -> list[dict[str, Any]]:
    shown = await call(client, "shopping_list_show")
    return [line for section in shown["sections"] for line in section["lines"]]


def _held_in(rows: list[dict[str, Any]], name: str, unit: str | None) -> float:
    """What rows of `name` hold in `unit` (rows in a unit that does not convert left out)."""
    return sum(value for row in rows if row.get("quantity") is not None
               and (value := in_unit(name, float(row["quantity"]), row.get("unit"), unit)) is not None)


@pytest.mark.parametrize("use_by", ["as seeded", "ahead"])
async def test_every_line_of_the_seeded_week_ticked_stocks_what_it_says_to_buy_in_the_matching_row(client: Client, use_by: str) -> None:
    """The week's list, every line ticked: the pantry's rows of each line's ingredient gain what its text says to buy
    ('1 bottle mirin (need 1 1/2 tbsp)': 1 bottle), in the row that matches it when one is kept in a unit it converts
    to (1 lemon onto 3 lemons, a carton onto cartons), else in a new row kept where its rows or its section are;
    a row past its use-by date (the seeded ones, today) takes nothing; unticking every line leaves the pantry as it was."""
    today = date.today().isoformat()
    if use_by == "ahead":  # the seeded rows still good today: the lemons, salmon fillets and broth cartons gain
        dated = [key for key, row in (await _pantry(client)).items() if row.get("expiry_date")]
        await call(client, "db_update", table="inventory", filters=[{"field": "id", "op": "in", "value": dated}],
                   data={"expiry_date": (date.today() + timedelta(days=30)).isoformat()})
    await call(client, "shopping_list_from", meal_plans=WEEK)
    before = await _pantry(client)
    db_lines = {row["id"]: row for row in (await call(client, "db_read", table="shopping_list", limit=500))["rows"]}
    lines = [line for line in await _lines(client) if not line["bought"]]
    ticked = await call(client, "shopping_list_check", items=[line["ref"] for line in lines], bought=True)
    after = await _pantry(client)
    stock_before = Stock(list(before.values()))
    for line in lines:
        row = db_lines[line["ref"]]
        (amount, *extras) = bought_amounts(row)
        assert line["text"].split()[0] == quantity_text(amount.quantity), line["text"]
        if amount.unit not in (None, "piece"):
            assert unit_word(amount.unit, amount.quantity) in line["text"], line["text"]
        matching = stock_before.matching(row["name"], row.get("ingredient_id"), row_kind(row))
        now = [after[match["id"]] for match in matching] + [after[item["ref"]] for item in ticked["stocked"]
                                                             if item["name"] == row["name"] and item["new"]]
        for each in (amount, *extras):
            gained = _held_in(now, row["name"], each.unit) - _held_in(matching, row["name"], each.unit)
            assert math.isclose(gained, each.quantity, rel_tol=1e-3), (line["text"], gained, each)
        usable = [match for match in matching if (match.get("expiry_date") or "9999") >= today
                  and in_unit(row["name"], amount.quantity, amount.unit, match.get("unit")) is not None]
        went = [item for item in ticked["stocked"] if item["name"] == row["name"]]
        assert bool(usable) == (not went[0]["new"]), (line["text"], went)
    if use_by == "ahead":
        gained = {row["name"]: (row["quantity"], row["unit"]) for key, row in after.items()
                  if key in before and row["quantity"] != before[key]["quantity"]}
        assert {name: gained.get(name) for name in ("lemons", "salmon fillets", "vegetable broth")} == {
            "lemons": (4, "piece"), "salmon fillets": (3, "fillet"), "vegetable broth": (3, "carton")}, gained
    new_rows = [row for key, row in after.items() if key not in before]
    assert new_rows and all(row["location"] in LOCATIONS for row in new_rows), [r for r in new_rows if not r["location"]]
    untick = await call(client, "shopping_list_check", items=[line["ref"] for line in lines], bought=False)
    assert untick["unstocked"] and {key: row["quantity"] for key, row in (await _pantry(client)).items()} == {
        key: row["quantity"] for key, row in before.items()}


_LINES: dict[str, tuple[str, float, str | None, str]] = {
    "container": ("chicken broth", 0.5, "cup", "carton"),  # shown '1 carton chicken broth (need 1/2 cup)'
    "count": ("quuxlemon", 1, None, "piece"),
    "weight": ("quuxflour", 1, "lb", "lb"),
    "volume": ("quuxstock", 2, "cup", "cup"),
}
"""Unit kind -> (line name, quantity, unit, the unit it is bought in)."""
_ROWS: dict[tuple[str, str], tuple[str, float, str, float]] = {
    ("container", "same unit"): ("chicken broth", 0.875, "carton", 1.875),
    ("container", "other unit"): ("chicken broth", 2, "cup", 2),
    ("count", "same unit"): ("quuxlemons", 3, "piece", 4),
    ("count", "other unit"): ("quuxlemons", 1, "bag", 1),
    ("weight", "same unit"): ("quuxflour", 2, "lb", 3),
    ("weight", "convertible"): ("quuxflour", 8, "oz", 24),
    ("weight", "other unit"): ("quuxflour", 1, "bag", 1),
    ("volume", "same unit"): ("quuxstock", 1, "cup", 3),
    ("volume", "convertible"): ("quuxstock", 1000, "ml", 1000 + 2 * 236.588),
    ("volume", "other unit"): ("quuxstock", 1, "jar", 1),
}
"""(kind, pantry row) -> (row name, quantity, unit, what the row holds after the tick)."""


@pytest.mark.parametrize(("kind", "pantry"), [*_ROWS, *((kind, "none") for kind in _LINES)])
async def test_a_ticked_line_adds_what_it_buys_to_the_matching_row_in_its_unit_else_a_new_row_kept_somewhere(
        client: Client, kind: str, pantry: str) -> None:
    """Containers, counts, weights, volumes: a row of the same thing in the same unit, or one the bought unit converts
    to, gains what the line buys in its own unit; a row in a unit it does not convert to is left alone and a new row,
    kept where that row is, holds what was bought; with no row, a new one kept where its section is. Unticking takes
    exactly that back (the new row goes)."""
    name, quantity, unit, bought_in = _LINES[kind]
    row_id = None
    if pantry != "none":
        row_name, held, row_unit, _ = _ROWS[(kind, pantry)]
        (row,) = (await call(client, "db_create", table="inventory", data=[
            {"name": row_name, "quantity": held, "unit": row_unit, "location": "freezer", "expiry_date": (date.today() + timedelta(days=30)).isoformat()}]))["rows"]
        row_id = row["id"]
    (line,) = (await call(client, "db_create", table="shopping_list",
                          data=[{"name": name, "quantity": quantity, "unit": unit, "category": "canned"}]))["rows"]
    before = await _pantry(client)
    ticked = await call(client, "shopping_list_check", items=[line["id"]], bought=True)
    (item,) = ticked["stocked"]
    after = await _pantry(client)
    if pantry in ("same unit", "convertible"):
        assert item["ref"] == row_id and not item["new"]
        assert math.isclose(after[row_id]["quantity"], _ROWS[(kind, pantry)][3], rel_tol=1e-3)
        assert set(after) == set(before)
    else:
        assert item["new"] and item["ref"] not in before
        new = after[item["ref"]]
        assert (new["quantity"], new["unit"]) == (2 if kind == "volume" else 1, bought_in)
        assert new["location"] == ("freezer" if pantry != "none" else "pantry")
        assert row_id is None or after[row_id]["quantity"] == before[row_id]["quantity"]
    untick = await call(client, "shopping_list_check", items=[line["id"]], bought=False)
    assert [entry["ref"] for entry in untick["unstocked"]] == [item["ref"]]
    assert {key: row["quantity"] for key, row in (await _pantry(client)).items()} == {
        key: row["quantity"] for key, row in before.items()}
