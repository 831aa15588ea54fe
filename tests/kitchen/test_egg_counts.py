"""Eggs bought for a line: its own eggs plus the yolks or whites it adds, each as the scaled card writes it."""

from __future__ import annotations

import re
from datetime import date

import pytest

from alfred_mcp.kitchen.egg_counts import PART_BELOW, egg_part, eggs_needed, part_of_an_egg
from alfred_mcp.kitchen.odd_amounts import oddities
from alfred_mcp.kitchen.seed import demo_kitchen
from alfred_mcp.operations.scaling import scaled_line

FACTORS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)
EGG_LINES = [row for recipe in demo_kitchen(date(2026, 1, 5)).recipes for row in recipe.ingredients
             if egg_part(row["name"]) is not None]


def _card_eggs(line: dict[str, object]) -> float:
    extra = re.search(r"(\d+) (?:extra )?(?:yolk|white)", str(line.get("notes") or ""))
    return float(str(line["quantity"])) + (int(extra.group(1)) if extra else 0)


def test_every_seed_egg_line_at_every_factor_needs_the_eggs_its_scaled_card_names() -> None:
    assert EGG_LINES
    wrong = {}
    for row in EGG_LINES:
        for factor in FACTORS:
            needed = eggs_needed(row["name"], row["quantity"], row["unit"], row.get("notes"), factor)
            card = _card_eggs(scaled_line(row, factor))
            if needed != card:
                wrong[(row["name"], row.get("notes"), factor)] = (needed, card)
    assert wrong == {}


@pytest.mark.parametrize(("name", "quantity", "unit", "notes", "factor", "eggs"), [
    ("eggs", 3, "piece", "plus 1 extra yolk", 1.0, 4), ("large eggs", 3, "piece", "plus 1 extra yolk", 0.75, 3),
    ("eggs", 3, "piece", "plus 1 extra yolk", 1.5, 7), ("egg", 1, "piece", None, 1.75, 2),
    ("egg yolks", 2, None, None, 1.0, 2), ("yolks", 4, "piece", None, 0.5, 2), ("egg whites", 3, None, None, 1.0, 3),
    ("egg yolks", 2, None, "plus 2 whites", 1.0, 2), ("eggs", 2, None, "plus 2 egg whites", 1.0, 4),
    ("eggs", 2, None, "beaten, plus one more yolk", 1.0, 3), ("eggs", 1, None, "at room temperature", 2.0, 2),
])
def test_yolks_and_whites_are_bought_as_eggs(name: str, quantity: float, unit: str | None, notes: str | None,
                                             factor: float, eggs: float) -> None:
    assert eggs_needed(name, quantity, unit, notes, factor) == eggs


@pytest.mark.parametrize(("name", "quantity", "unit"), [
    ("eggplant", 1, None), ("egg noodles", 8, "oz"), ("egg whites", 1, "cup"), ("white wine", 1, "cup"),
    ("eggs", None, None), ("white beans", 1, "can"),
])
def test_what_is_not_eggs_counted_by_the_piece_is_not_counted_as_eggs(name: str, quantity: float | None, unit: str | None) -> None:
    assert eggs_needed(name, quantity, unit, "plus 1 yolk", 1.0) is None


@pytest.mark.parametrize("eggs", [1, 2, 3])
def test_less_than_two_thirds_of_an_egg_is_one_egg_beaten_and_measured(eggs: int) -> None:
    """Every twentieth of an egg from 1/20 to 4 eggs, from lines of 1 to 3: a whole count (eggs are whole), and a line
    of one egg for less than two thirds of one says how much of it to use, by the tablespoon ('beat it and use about
    1 1/2 tbsp' for half an egg); from two thirds on, whole eggs say nothing more."""
    odd = []
    for twentieths in range(1, 81):
        exact = twentieths / 20
        line = scaled_line({"name": "large eggs", "quantity": eggs, "unit": "piece"}, exact / eggs)
        notes = line.get("notes") or ""
        says = "beat it and use about " in notes
        rules = oddities(line["text"], line["quantity"], line["unit"], "large eggs", shopping=False,
                         exact=line.get("rounded_from"), notes=notes)
        if rules or not float(line["quantity"]).is_integer() or says != (exact < PART_BELOW - 1e-9):
            odd.append((exact, line["text"], notes, rules))
    assert odd == []


def test_a_line_of_one_egg_for_part_of_one_that_says_nothing_is_odd() -> None:
    assert "part of an egg not said" in oddities("1 egg", 1, None, "eggs", shopping=False, exact=0.25)
    assert oddities("1 egg", 1, None, "eggs", shopping=False, exact=0.25, notes="beat it and use about 2 1/2 tsp") == []
    assert part_of_an_egg("egg yolks", 0.25) is None and part_of_an_egg("eggs", 0.7) is None
