"""meal_cooked takes from the pantry what shopping_list_from counts in it: one conversion serves both tools.

Every unit pair (the pantry row's unit against the recipe's), for shelf staples, produce, counted things and a name
nothing is known about: where the shopping list counts a row as covering the need (exactly, or as the shop sells it,
full), a cooked meal takes the need from that row, by the same amount; where it cannot, the row is reported apart.
"""

from __future__ import annotations

import itertools
import re

import pytest

from alfred_mcp.kitchen.measures import MASS_G, Amount, held
from alfred_mcp.kitchen.plurals import counted_name
from alfred_mcp.kitchen.units import UNIT_ALIASES
from alfred_mcp.state.pantry import estimated_apart, in_unit, needs_of, on_hand, plan_deduction

NAMES = ("olive oil", "panko", "parmesan", "paprika", "salt", "vegetable broth", "flour", "thyme", "garlic", "crushed tomatoes",
         "eggs", "quuxwidget")
UNITS = ("tsp", "tbsp", "cup", "ml", "l", "quart", *MASS_G, None, "bottle", "bag", "jar", "box", "carton", "wedge", "can", "bunch", "head", "clove",
         "pinch", "stick", "piece", "tub")

SOME_UNITS = ("tsp", "cup", "l", "g", "oz", "lb", None, "bottle", "bag", "jar", "box", "wedge", "can", "clove", "pinch")


def _need_and_row(name: str, need_unit: str | None, row_unit: str | None, need_qty: float, row_qty: float):  # type: ignore[no-untyped-def]
    (need,) = needs_of([("recipe_1", {"name": name, "quantity": need_qty, "unit": need_unit}, 1.0)])
    return need, {"id": 1, "name": name, "quantity": row_qty, "unit": row_unit}


def _shopping_counts(need, row) -> float | None:  # type: ignore[no-untyped-def]
    """What shopping_list_from counts the row as, in the need's unit (None: it does not compare, a check note)."""
    exact, apart = on_hand(need, [row])
    if not apart:
        return exact
    return estimated_apart(need, [row])


@pytest.mark.parametrize("name", NAMES)
def test_meal_cooked_takes_every_row_shopping_counts_and_by_the_same_amount(name: str) -> None:
    for index, (need_unit, row_unit) in enumerate(itertools.product(UNITS, UNITS)):
        for need_qty, row_qty in (((1.0, 2.0), (3.0, 0.5))[index % 2],):  # enough, and short, in turn
            need, row = _need_and_row(name, need_unit, row_unit, need_qty, row_qty)
            counted = _shopping_counts(need, row)
            plan = plan_deduction(need, [row])
            case = (name, need_unit, row_unit, need_qty, row_qty)
            if counted is None:
                assert plan.deductions == [] and plan.apart, case
                continue
            assert plan.apart == [], case
            taken = (need.quantity or 0.0) - plan.shortfall
            assert taken == pytest.approx(min(need.quantity or 0.0, counted), rel=1e-6, abs=1e-9), case
            if plan.deductions:
                (step,) = plan.deductions
                assert step.used + step.left == pytest.approx(row_qty), case
                assert step.left >= 0.0, case


@pytest.mark.parametrize("name", NAMES)
def test_a_need_is_covered_for_shopping_exactly_when_cooking_takes_all_of_it(name: str) -> None:
    """Two rows, one possibly in a unit nothing converts: the shopping list counts the need covered (exactly or as the
    shop sells it) exactly when a cooked meal can take all of it; otherwise the cook is told to check, and cooking
    names what it could not take."""
    for need_unit, first, second in itertools.product(("tsp", "cup", "g", None), SOME_UNITS, ("box", "can", "bottle", None)):
        (need,) = needs_of([("recipe_1", {"name": name, "quantity": 2.0, "unit": need_unit}, 1.0)])
        rows = [{"id": 1, "name": name, "quantity": 1.0, "unit": first}, {"id": 2, "name": name, "quantity": 1.0, "unit": second}]
        counted = _shopping_counts_all(need, rows)
        plan = plan_deduction(need, rows)
        case = (name, need_unit, first, second)
        assert (counted is not None and counted >= (need.quantity or 0.0) - 1e-9) == (plan.shortfall <= 1e-9), case


def _shopping_counts_all(need, rows) -> float | None:  # type: ignore[no-untyped-def]
    exact, apart = on_hand(need, rows)
    if not apart:
        return exact
    about = estimated_apart(need, rows)
    return None if about is None else exact + about


@pytest.mark.parametrize("row_unit", [unit for unit in SOME_UNITS if unit not in MASS_G])
@pytest.mark.parametrize("row_qty", [1 / 3, 2 / 3, 0.9375, 2.6667, 0.05])
def test_what_the_pantry_has_apart_reads_as_a_cook_writes_it(row_unit: str | None, row_qty: float) -> None:
    """meal_cooked's 'it also has ...' says a row it cannot compare as the pantry's amounts are said everywhere
    (`measures.held`: 'about 1/3 jar'; a count names the thing: 'about 3 quuxwidgets'), never '0.3333 jars'."""
    need, row = _need_and_row("quuxwidget", "g", row_unit, 100, row_qty)
    plan = plan_deduction(need, [row])
    said = held(Amount(row_qty, row_unit), "quuxwidget")
    assert plan.apart == [f"{said} {counted_name('quuxwidget', row_qty)}" if row_unit is None else said]
    assert not any(re.search(r"\d\.\d{3}", text) for text in plan.apart), plan.apart


@pytest.mark.parametrize(("spelling", "unit"), sorted(UNIT_ALIASES.items()))
def test_a_row_saved_in_another_spelling_of_a_unit_compares_as_that_unit(spelling: str, unit: str) -> None:
    """Rows saved before units had one spelling ('count', 'each') still add to rows in the unit they mean."""
    assert in_unit("eggs", 3.0, spelling, unit) == pytest.approx(3.0)
    assert in_unit("eggs", 3.0, unit, spelling) == pytest.approx(3.0)
