"""Amounts written in an ingredient's notes scale with the line; what is no amount of the recipe stays as written."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.measures import convert
from alfred_mcp.kitchen.note_amounts import scaled_notes
from alfred_mcp.kitchen.units import normalize_unit, parse_quantity

FACTORS = [0.25, 0.5, 1.5, 2, 3, 6]
SCALED = [  # (notes, the amount in them, its unit: None for a count)
    ("plus 1 extra yolk", 1, None),
    ("soaked in 1 cup hot water", 1, "cup"),
    ("large, plus 2 tbsp for the pan", 2, "tbsp"),
    ("190 g", 190, "g"),
    ("divided: 1 cup for the dough", 1, "cup"),
]
KEPT = [  # (notes, the line's unit)
    ("about 6 oz each", None), ("4 oz per fillet", "fillet"), ("14 oz", "can"), ("(400 g)", "can"), ("2-3", "tbsp"),
    ("cut into 2-inch pieces", None), ("soaked for 10 minutes", None), ("bake at 350°F", None), ("juiced", None),
    ("1 1/2 hours ahead", None),
]


def _total(notes: str, unit: str | None) -> float:
    """The amount the notes name, in `unit` (a count when None): '1/4 cup + 2 tbsp' adds up."""
    total = 0.0
    for number, word in re.findall(r"(?<![\d.])(\d+(?:\.\d+)?(?: \d+/\d+)?|\d+/\d+) ([a-z]+)", notes):
        value = parse_quantity(number).value
        assert value is not None
        total += value if unit is None else convert(value, normalize_unit(word), unit)
    return total


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize(("notes", "amount", "unit"), SCALED, ids=[notes for notes, _, _ in SCALED])
def test_an_amount_in_the_notes_scales_with_the_line(notes: str, amount: float, unit: str | None, factor: float) -> None:
    scaled = scaled_notes(notes, factor, None)
    got, exact = _total(scaled, unit), amount * factor
    if unit is None:  # a count is whole, never none
        assert got == max(1, round(exact)), (scaled, exact)
    else:
        assert abs(got - exact) <= 0.1 * exact, (scaled, exact)
    assert scaled.split()[0] == notes.split()[0] or notes.split()[0][0].isdigit(), "the words around it are kept"


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize(("notes", "unit"), KEPT, ids=[notes for notes, _ in KEPT])
def test_what_is_no_amount_of_the_recipe_stays_as_written(notes: str, unit: str | None, factor: float) -> None:
    assert scaled_notes(notes, factor, unit) == notes


@given(st.text(max_size=60), st.sampled_from(FACTORS))
def test_notes_without_a_number_never_change(notes: str, factor: float) -> None:
    if not any(ch.isdigit() for ch in notes):
        assert scaled_notes(notes, factor, None) == notes


def test_at_its_own_servings_the_notes_are_as_written() -> None:
    assert scaled_notes("plus 1 extra yolk", 1.0, None) == "plus 1 extra yolk"


def test_the_carbonara_yolk_for_twelve_is_three_yolks() -> None:
    assert scaled_notes("large, plus 1 extra yolk", 3, "piece") == "large, plus 3 extra yolks"
