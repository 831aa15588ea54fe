"""Amounts of ingredients inside a recipe's steps scale with it; everything else in a step stays as written."""

from __future__ import annotations

import re
from datetime import date

import pytest

from alfred_mcp.kitchen.measures import Amount, Shown, convert, sensible, sensible_in
from alfred_mcp.kitchen.odd_amounts import divided_oddities, oddities, step_number_oddities, step_oddities
from alfred_mcp.kitchen.seed import demo_kitchen
from alfred_mcp.kitchen.step_amounts import StepAmount, agreeing, scaled_steps, step_amounts
from alfred_mcp.kitchen.units import normalize_unit, parse_quantity
from alfred_mcp.operations.scaling import counted_things, line_factor, scaled_line, scaled_recipe_steps
from benchmarks.kitchen_lines import _scaled_lines

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


def _scaled_recipe(recipe_rows: list[dict[str, object]], steps: list[str], factor: float) -> tuple[list[dict[str, object]], list[StepAmount]]:
    lines = [scaled_line(row, factor) for row in recipe_rows]
    units = {str(row["name"]): line["unit"] for row, line in zip(recipe_rows, lines)}
    factors = {str(row["name"]): line_factor(row, line, factor) for row, line in zip(recipe_rows, lines)}
    return lines, step_amounts(steps, list(units), factor, units, factors)


def test_a_steps_amount_is_in_the_unit_of_its_scaled_line_for_every_seed_recipe_at_1_to_12_servings() -> None:
    """'5 tsp butter' in a step beside '1/3 cup butter' in the list: every seed recipe for 1 to 12 servings, every
    amount its steps write is in its line's unit (or the next smaller one below that unit's smallest measure) and reads
    as a cook writes it."""
    odd = []
    for recipe in demo_kitchen(date(2026, 1, 5)).recipes:
        steps = [str(step) for step in recipe.row["instructions"]]
        for servings in range(1, 13):
            _, amounts = _scaled_recipe(recipe.ingredients, steps, servings / recipe.row["servings"])
            odd += [(recipe.row["name"], servings, amount.shown.text, amount.name, amount.line_unit, rules) for amount in amounts
                    if (rules := step_oddities(amount.shown.quantity, amount.shown.unit, amount.line_unit)
                        + oddities(f"{amount.shown.text} {amount.name}", amount.shown.quantity, amount.shown.unit, amount.name,
                                   shopping=False, exact=amount.shown.rounded_from))]
    assert odd == []


@pytest.mark.parametrize("line_unit", ["cup", "tbsp", "tsp", "quart", "oz", "lb", "g", "kg", "ml", "l"])
@pytest.mark.parametrize("step_unit", ["tsp", "tbsp", "cup", "oz", "lb", "g", "ml"])
def test_every_step_amount_is_written_in_its_lines_unit_or_the_next_smaller(line_unit: str, step_unit: str) -> None:
    """Every measure a step writes, beside a line in every unit, at every factor from 1/12 to 12: never a smaller unit
    than the line's where the line's unit holds it."""
    odd = []
    for step_quantity in (0.25, 0.5, 1, 2, 3):
        for twelfths in range(1, 145):
            shown = sensible_in(Amount(step_quantity * twelfths / 12, step_unit), line_unit, "butter")
            if (rules := step_oddities(shown.quantity, shown.unit, line_unit)):
                odd.append((step_quantity, twelfths, shown.text, rules))
    assert odd == []


def test_the_issue_step_beside_its_line() -> None:
    assert step_oddities(5, "tsp", "cup") == ["step in another unit than its line"]
    step = "Brown the mushrooms in the oil and 1 tbsp butter over high heat."
    assert scaled_steps([step], ["butter"], 1.75, {"butter": "cup"}) == [step.replace("1 tbsp", "2 tbsp")]


SOAKED = [("dried porcini mushrooms", 0.5, "oz", "1 cup hot water"), ("dried shiitake mushrooms", 1, "oz", "2 cups warm water"),
          ("dried porcini mushrooms", 15, "g", "250 ml boiling water"), ("sun-dried tomatoes", 0.5, "cup", "1 cup hot water")]


@pytest.mark.parametrize(("name", "quantity", "unit", "water"), SOAKED)
def test_what_soaks_and_its_liquid_scale_together_in_the_notes_and_in_the_steps(name: str, quantity: float, unit: str, water: str) -> None:
    """Porcini soaked in 1 cup of water, in a recipe for 1 to 12 scaled to 1 to 12 servings: the liquid in the line's
    notes and in a step scales by the factor the line was rounded to, so liquid and what soaks in it keep their ratio
    (within the liquid's own rounding); the step's amount of it is the line's."""
    row = {"name": name, "quantity": quantity, "unit": unit, "notes": f"soaked in {water}"}
    volume, liquid_unit = parse_quantity(water.split()[0]).value or 0, normalize_unit(water.split()[1])
    steps = [f"Soak {quantity:g} {unit} {name} in {water} for 20 minutes."]
    odd = []
    for base in range(1, 13):
        for servings in range(1, 13):
            factor = servings / base
            if servings == base:  # as written
                continue
            (line,), amounts = _scaled_recipe([row], steps, factor)
            ratio = line_factor(row, line, factor)
            said = [amount for amount in amounts if amount.name == "water"]
            of_it = [amount for amount in amounts if amount.name != "water"]
            noted = _AMOUNT_AND_UNIT.search(str(line.get("notes", "")))
            for shown in [*(amount.shown for amount in said), *([parsed(noted)] if noted else [])]:
                wanted = volume * ratio
                got = convert(shown.quantity, shown.unit, liquid_unit)
                if abs(got - wanted) > 0.2 * wanted + 1e-9:
                    odd.append((name, base, servings, line["text"], line.get("notes"), shown.text))
            if not said or not noted or [(round(amount.shown.quantity, 4), amount.shown.unit) for amount in of_it] != [(line["quantity"], line["unit"])]:
                odd.append((name, base, servings, line["text"], line.get("notes"), [amount.shown.text for amount in amounts]))
    assert odd == []


_AMOUNT_AND_UNIT = re.compile(r"(\d+ \d+/\d+|\d+/\d+|\d+(?:\.\d+)?) (cups?|ml|tbsp|tsp|quarts?|l)\b"
                              r"(?: \+ (\d+ \d+/\d+|\d+/\d+|\d+) (tbsp|tsp)\b)?")


def parsed(match: re.Match[str]) -> Shown:
    """An amount in a note, '2 tbsp + 2 tsp' added up (in the first unit)."""
    value = parse_quantity(match.group(1)).value or 0.0
    unit = normalize_unit(match.group(2))
    if match.group(3):
        value += convert(parse_quantity(match.group(3)).value or 0.0, match.group(4), unit)
    return Shown(value, unit, match.group(0), None)


@pytest.mark.parametrize(("step", "counts", "expected"), [
    ("Whisk the eggs, yolk, cheeses and pepper together.", {"egg": (3, 1), "yolk": (1, 3)},
     "Whisk the egg, yolks, cheeses and pepper together."),
    ("Whisk the buttermilk, egg, melted butter and vanilla.", {"egg": (1, 3)}, "Whisk the buttermilk, eggs, melted butter and vanilla."),
    ("Pour in the egg mixture and add 1 egg.", {"egg": (1, 3)}, "Pour in the egg mixture and add 1 egg."),
    ("Soften the shallots in butter.", {"shallot": (2, 2)}, "Soften the shallots in butter."),
    ("Mince the garlic.", {"garlic": (1, 3)}, "Mince the garlic."),
])
def test_a_counted_thing_a_step_names_agrees_with_its_scaled_line(step: str, counts: dict[str, tuple[float, float]],
                                                                  expected: str) -> None:
    """'the eggs' beside a line of 1 egg is 'the egg'; a word before a noun ('egg mixture'), a counted amount ('1 egg'),
    a number scaling did not change and a thing not counted are left as written."""
    assert agreeing(step, counts) == expected
    assert step_number_oddities(expected, counts) == []
    assert step_number_oddities(step, counts) == ([] if step == expected else ["thing named in another number than its line"])


def test_every_seed_recipes_steps_name_its_counted_things_in_their_scaled_number_at_1_to_12_servings() -> None:
    """Every seed recipe scaled to 1 to 12 servings: every step names eggs, yolks, onions, limes... in the number their
    lines now have, and a step whose number changed says so ('Whisk the egg, yolk' for 1 serving of carbonara)."""
    odd, changed = [], 0
    for recipe in demo_kitchen(date(2026, 1, 5)).recipes:
        written = [str(step) for step in recipe.row.get("instructions") or ()]
        for servings in range(1, 13):
            factor = servings / recipe.row["servings"]
            lines = [scaled_line(row, factor) for row in recipe.ingredients]
            counts = counted_things(recipe.ingredients, lines)
            steps = scaled_recipe_steps(written, recipe.ingredients, lines, factor)
            changed += sum(agreeing(step, counts) != step for step in scaled_steps(written, [str(row["name"]) for row in recipe.ingredients], factor))
            odd += [(recipe.row["name"], servings, step) for step in steps if step_number_oddities(step, counts)]
    assert odd == [] and changed > 0


@pytest.mark.parametrize(("line", "steps", "written_line", "written_steps", "unit", "rules"), [
    (8, [3, 3], 3, [1, 1], "tbsp", ["rest far from its share"]),  # '1/2 cup butter' for 9 tbsp: the last butter gets 2, not 3
    (8, [2.5, 2.5], 3, [1, 1], "tbsp", []),
    (6, [4, 4], 3, [1, 1], "tbsp", ["steps use more than the line", "rest far from its share"]),
    (4, [2], 2, [1], "tsp", []),
])
def test_the_parts_of_a_divided_line_add_up_to_it(line: float, steps: list[float], written_line: float,
                                                 written_steps: list[float], unit: str, rules: list[str]) -> None:
    assert divided_oddities(line, steps, written_line, written_steps, unit) == rules


def test_every_seed_recipes_divided_lines_and_their_steps_add_up_at_1_to_12_servings() -> None:
    """Every seed recipe whose steps name amounts of an ingredient ('1 tbsp butter' twice, then 'the last butter'),
    scaled to 1 to 12 servings: the steps scale by the factor the line was rounded to, so they never take more than
    the line and the rest keeps its share ('2 1/2 tbsp' twice beside '1/2 cup butter', not 3 tbsp)."""
    odd = [line for line in _divided_lines() if line["rules"]]
    assert odd == [] and len(_divided_lines()) > 40


def _divided_lines() -> list[dict[str, object]]:
    return [line for line in _scaled_lines() if "(steps: " in str(line["text"])]
