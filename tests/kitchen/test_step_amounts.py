"""Amounts of ingredients inside a recipe's steps scale with it; everything else in a step stays as written."""

from __future__ import annotations

import re
from datetime import date

import pytest

from alfred_mcp.kitchen.measures import Amount, sensible
from alfred_mcp.kitchen.odd_amounts import oddities
from alfred_mcp.kitchen.seed import demo_kitchen
from alfred_mcp.kitchen.step_amounts import scaled_steps
from alfred_mcp.kitchen.units import parse_quantity

FACTORS = (0.25, 0.5, 0.75, 1.5, 2.0, 3.0)
RECIPES = [(recipe.row["name"], [str(step) for step in recipe.row["instructions"]], [row["name"] for row in recipe.ingredients])
           for recipe in demo_kitchen(date(2026, 1, 5)).recipes]
_AMOUNT = re.compile(r"(\d+ \d+/\d+|\d+/\d+|\d+(?:\.\d+)?) (tsp|tbsp|cups?|oz|lb) ([a-z]+)")


def test_every_seed_recipe_at_every_factor_scales_only_the_ingredient_amounts_in_its_steps() -> None:
    """At every factor, a step changes only where an amount of an ingredient stands: that amount is the written one
    times the factor, as a cook writes it (no odd amount); the rest of the step, times and temperatures included, is
    as written. At factor 1 nothing changes."""
    wrong, changed = [], 0
    for name, steps, ingredients in RECIPES:
        assert scaled_steps(steps, ingredients, 1.0) == steps
        for factor in FACTORS:
            for step, scaled in zip(steps, scaled_steps(steps, ingredients, factor)):
                before, after = _AMOUNT.findall(step), _AMOUNT.findall(scaled)
                if _AMOUNT.sub("#", step) != _AMOUNT.sub("#", scaled) or len(before) != len(after):
                    wrong.append((name, factor, step, scaled))
                    continue
                for (number, unit, word), (shown, shown_unit, shown_word) in zip(before, after):
                    value = parse_quantity(f"{number} {unit}").value
                    expected = sensible(Amount(float(value or 0) * factor, "cup" if unit.startswith("cup") else unit), word)
                    is_ingredient = any(word in ingredient.split() for ingredient in ingredients)
                    written = f"{shown} {shown_unit}"
                    if shown_word != word or (is_ingredient and written != expected.text) or (not is_ingredient and written != f"{number} {unit}"):
                        wrong.append((name, factor, step, scaled))
                    elif is_ingredient and oddities(f"{written} {word}", expected.quantity, expected.unit, word, shopping=False):
                        wrong.append((name, factor, step, scaled))
                    changed += written != f"{number} {unit}"
    assert wrong == [] and changed > 0


@pytest.mark.parametrize(("step", "factor", "expected"), [
    ("Toss the chicken with 1 tsp garam masala and 1 tsp salt.", 0.25, "Toss the chicken with 1/4 tsp garam masala and 1/4 tsp salt."),
    ("Heat 1 tbsp oil in a pan.", 2.0, "Heat 2 tbsp oil in a pan."),
    ("Add 2 cups of the broth.", 1.5, "Add 3 cups of the broth."),
    ("Ladle in 1/4 cup of batter per pancake.", 2.0, "Ladle in 1/4 cup of batter per pancake."),
    ("Roast at 425°F for 25 minutes, in 1/2-inch cubes.", 2.0, "Roast at 425°F for 25 minutes, in 1/2-inch cubes."),
    ("Add 1 (14-oz) can crushed tomatoes and 2 eggs.", 2.0, "Add 1 (14-oz) can crushed tomatoes and 2 eggs."),
])
def test_a_step_amount_scales_only_when_it_is_certainly_an_ingredients(step: str, factor: float, expected: str) -> None:
    ingredients = ["garam masala", "kosher salt", "vegetable oil", "chicken broth", "crushed tomatoes", "eggs", "sweet potatoes"]
    assert scaled_steps([step], ingredients, factor) == [expected]
