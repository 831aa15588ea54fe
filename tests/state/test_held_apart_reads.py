"""What meal_cooked says the pantry 'also has' (a row in a unit that does not compare with the recipe's) reads as a
cook writes it: never a long decimal, never a bare number without what it counts, over every unit pair, ingredient
kind and amount."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from alfred_mcp.kitchen.measures import Amount
from alfred_mcp.kitchen.odd_amounts import oddities
from alfred_mcp.kitchen.schema import UNITS
from alfred_mcp.state.pantry import held_apart, needs_of, plan_deduction

NAMES = ("olive oil", "garlic", "eggs", "vegetable broth", "flour", "thyme", "crushed tomatoes", "lemons", "quuxwidget")
BARE_NUMBER = re.compile(r"^(about )?[\d /]+$")


@settings(max_examples=400, deadline=None)
@given(name=st.sampled_from(NAMES), need_unit=st.sampled_from((*UNITS, None)), row_unit=st.sampled_from((*UNITS, None)),
       row_qty=st.floats(min_value=0.01, max_value=5_000, allow_nan=False, allow_infinity=False),
       need_qty=st.floats(min_value=0.05, max_value=50, allow_nan=False, allow_infinity=False))
def test_what_the_pantry_also_has_reads_as_a_cook_writes_it(
    name: str, need_unit: str | None, row_unit: str | None, row_qty: float, need_qty: float
) -> None:
    (need,) = needs_of([("recipe_1", {"name": name, "quantity": need_qty, "unit": need_unit}, 1.0)])
    plan = plan_deduction(need, [{"id": 1, "name": name, "quantity": row_qty, "unit": row_unit}])
    for text in plan.apart:
        assert "decimal" not in oddities(text, None, None, name, shopping=False), (text, row_qty, row_unit)
        assert not BARE_NUMBER.match(text), (text, row_qty, row_unit)
        assert text == held_apart(Amount(row_qty, row_unit), name)


@given(quantity=st.integers(min_value=1, max_value=40), name=st.sampled_from(NAMES))
def test_a_count_held_apart_names_the_thing(quantity: int, name: str) -> None:
    for unit in (None, "piece"):
        text = held_apart(Amount(float(quantity), unit), name)
        assert text.startswith(f"{quantity} ") and len(text) > len(str(quantity)) + 1, text
