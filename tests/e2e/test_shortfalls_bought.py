"""shopping_list_from buys a real shortfall: the pantry holding less than the meals need, in any unit the kitchen
compares (volume with volume, weight with weight, counts, cans and cartons by what one holds), puts the difference on the
list as a person buys it, saying what the pantry has; holding the need or more, nothing is listed. A line already on
the list in another unit is topped up as one amount (a carton of broth and 6 cups more are 10 cups, bought as 3
cartons; never '1 carton + 6 cups').

The cases are generated: each class of unit, and each staple class bought by its shelf unit, against pantry amounts
below, at and above the need.
"""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.kitchen.bought_as import STAPLE_CLASSES, produce_purchase_of, purchase_of
from alfred_mcp.kitchen.measures import about_in
from alfred_mcp.kitchen.odd_amounts import note_oddities
from alfred_mcp.kitchen.shopping_lines import EXTRA, extra_amounts
from alfred_mcp.kitchen.taxonomy import default_taxonomy

from .helpers import call

pytestmark = pytest.mark.anyio

CUP_ML = 236.5882365
RATIOS = (0.5, 1.0, 1.5, 3.0)
"""The need as a share of what the pantry holds: above it (covered), at it (covered), below it (bought)."""
MEASURED = [
    # name, the pantry's unit, how many, the need's unit, one pantry unit in the need's unit
    ("quux whole milk", "quart", 1.0, "cup", 4.0),
    ("quux ground lamb", "lb", 1.0, "oz", 16.0),
    ("quux dumplings", "piece", 6.0, None, 1.0),
    ("quux crushed tomatoes", "can", 2.0, "oz", 14.0),
    ("quux coconut milk", "can", 1.0, "oz", 13.5),
    ("quux vegetable broth", "carton", 2.0, "cup", 4.0),
]


def _staple_of_each_class() -> list[tuple[str, str, float, str, float]]:
    """(a made-up name of each staple class, the unit its shelf sells it by, 1, 'cup', the cups one holds)."""
    picked = []
    for category, _ in STAPLE_CLASSES:
        for member in default_taxonomy().category(category).members:
            purchase = purchase_of(name := f"quux {member}")
            if purchase is not None and purchase.unit is not None and "ml" in purchase.holds and produce_purchase_of(name) is None:
                picked.append((name, purchase.unit, 1.0, "cup", purchase.holds["ml"] / CUP_ML))
                break
    return picked


CASES = MEASURED + _staple_of_each_class()


async def _recipe(client: Client, name: str, ingredient: dict[str, Any]) -> str:
    created = await call(client, "db_create", table="recipes", data={"name": name, "servings": 2, "instructions": ["Cook."]})
    ref = str(created["rows"][0]["id"])
    await call(client, "db_create", table="recipe_ingredients", data=[{"recipe_id": ref, "position": 1, **ingredient}])
    return ref


def _need(held: float, ratio: float) -> float:
    """The need at `ratio` of `held`, in thousandths, never above what the pantry holds when it is to equal it."""
    return math.floor(held * ratio * 1000) / 1000 if ratio <= 1 else round(held * ratio, 3)


@pytest.mark.parametrize(("name", "unit", "count", "need_unit", "per_unit"), CASES, ids=[case[0] for case in CASES])
async def test_a_shortfall_is_bought_as_the_difference_and_a_pantry_holding_enough_lists_nothing(
    client: Client, name: str, unit: str | None, count: float, need_unit: str | None, per_unit: float,
) -> None:
    await call(client, "db_create", table="inventory", data={"name": name, "quantity": count, "location": "pantry",
                                                             **({"unit": unit} if unit else {})})
    held = count * per_unit
    for ratio in RATIOS:
        needed = _need(held, ratio)
        recipe = await _recipe(client, f"Quux {name} at {ratio}", {"name": name, "quantity": needed, **({"unit": need_unit} if need_unit else {})})
        result = await call(client, "shopping_list_from", recipes=[recipe], preview=True)
        if ratio <= 1:
            assert result["lines"] == [], (ratio, result["lines"])
            (covered,) = result["covered"]
            assert covered["name"] == name, (ratio, covered)
            note = covered.get("note") or ""
            assert "check there is enough" not in note and note_oddities(note, name, bought=False) == [], note
            continue
        (line,) = result["lines"]
        bought = about_in(name, float(line["quantity"]), line["unit"], need_unit)
        assert bought is not None, line
        assert needed - held - 1e-6 <= bought < needed, (ratio, line)
        assert "the pantry has" in line["text"] and result["covered"] == [], line
        sold = purchase_of(name)
        if sold is not None and sold.unit is not None and not sold.as_written & {unit, need_unit}:
            assert re.match(rf"\d[\d /]* {sold.unit}(?:e?s)? ", line["text"]), line  # as the shop sells it: '1 carton ...'


@pytest.mark.parametrize(("name", "unit", "count", "need_unit", "per_unit"), [case for case in CASES if case[1] != case[3]],
                         ids=[case[0] for case in CASES if case[1] != case[3]])
async def test_a_line_already_listed_in_another_unit_is_topped_up_as_one_amount(
    client: Client, name: str, unit: str | None, count: float, need_unit: str | None, per_unit: float,
) -> None:
    """A line a person wrote in the pantry's unit ('1 carton'), a recipe needing more in its own ('6 cups'): one amount
    holding both, never the two side by side."""
    await call(client, "db_create", table="shopping_list", data={"name": name, "quantity": 1, **({"unit": unit} if unit else {})})
    needed = round(per_unit * 1.5, 3)
    recipe = await _recipe(client, f"Quux more {name}", {"name": name, "quantity": needed, **({"unit": need_unit} if need_unit else {})})
    result = await call(client, "shopping_list_from", recipes=[recipe])
    (line,) = result["lines"]
    held = about_in(name, float(line["quantity"]), line["unit"], need_unit)
    assert line["action"] == "updated" and held is not None and held >= (per_unit + needed) * 0.98, line  # as to_buy writes it
    rows = (await call(client, "db_read", table="shopping_list", filters=[{"field": "id", "op": "eq", "value": line["ref"]}]))["rows"]
    assert not extra_amounts(rows[0].get("notes")) and EXTRA not in line["text"], (line, rows)
