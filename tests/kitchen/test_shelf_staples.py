"""Shelf staples on a shopping list as a cook buys them (a jar, a bottle, a carton, a can, a bag, a box), needs
rounded up and never down, and a pantry note that says covered or short where what the pantry holds compares:
generated over every staple class of the taxonomy, every measure a recipe writes and any amount."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alfred_mcp.kitchen.bought_as import STAPLE_CLASSES, produce_purchase_of, purchase_of
from alfred_mcp.kitchen.measures import (
    Amount,
    about_in,
    convert,
    ingredient_text,
    line_text,
    needed,
    needed_text,
    sensible,
    to_buy,
)
from alfred_mcp.kitchen.odd_amounts import note_oddities, oddities
from alfred_mcp.kitchen.taxonomy import default_taxonomy

TAXONOMY = default_taxonomy()
SHELF_NAMES = sorted({name for category, _ in STAPLE_CLASSES for member in TAXONOMY.category(category).members
                      for name in (member, f"dried {member}", f"ground {member}")
                      if (purchase := purchase_of(name)) is not None and "ml" in purchase.holds and purchase.unit is not None
                      and produce_purchase_of(name) is None})
RECIPE_MEASURES = ("tsp", "tbsp", "cup", "fl oz", "ml")
EVERY_MEASURE = RECIPE_MEASURES + ("pint", "quart", "gallon", "l", "g", "kg", "oz", "lb")
ALL_NAMES = sorted({member for category in TAXONOMY.categories() for member in TAXONOMY.category(category).members})


def test_every_staple_class_has_names_bought_by_its_shelf_unit() -> None:
    classes = {category for category, _ in STAPLE_CLASSES
               if any(purchase_of(member) is not None for member in TAXONOMY.category(category).members)}
    assert classes == {category for category, _ in STAPLE_CLASSES}


@pytest.mark.parametrize(("quantity", "unit", "name", "text"), [
    (0.75, "tsp", "vanilla extract", "1 bottle vanilla extract (need 3/4 tsp)"),
    (1.5, "tsp", "baking powder", "1 can baking powder (need 1 1/2 tsp)"),
    (2.25, "tsp", "granulated sugar", "1 bag granulated sugar (need 2 1/4 tsp)"),
    (1.5, "tbsp", "mirin", "1 bottle mirin (need 1 1/2 tbsp)"), (1.5, "tbsp", "vegetable oil", "1 bottle vegetable oil (need 1 1/2 tbsp)"),
    (0.5, "cup", "chicken broth", "1 carton chicken broth (need 1/2 cup)"), (1, "tbsp", "black pepper", "1 jar black pepper (need 1 tbsp)"),
    (2, "tsp", "dried oregano", "1 jar dried oregano (need 2 tsp)"), (0.5, "cup", "heavy cream", "1 carton heavy cream (need 1/2 cup)"),
    (1.5, "tsp", "ground turmeric", "1 jar ground turmeric (need 1 1/2 tsp)"), (0.25, "cup", "curry powder", "1 jar curry powder (need 1/4 cup)"),
    (10.5, "cup", "vegetable broth", "3 cartons vegetable broth (need 10 1/2 cups)"),
    (5, "lb", "all-purpose flour", "5 lb all-purpose flour"), (1, "gallon", "milk", "1 gallon milk"),
])
def test_the_staples_the_cook_quoted_are_listed_as_their_shelf_holds_them(quantity: float, unit: str, name: str, text: str) -> None:
    assert line_text(quantity, unit, name, buying=True) == text


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(SHELF_NAMES), unit=st.sampled_from(RECIPE_MEASURES), quantity=st.floats(min_value=0.05, max_value=400))
def test_a_staple_in_a_recipe_measure_is_listed_by_its_shelf_unit_with_the_amount_needed(name: str, unit: str, quantity: float) -> None:
    """'1 jar black pepper (need 1 tbsp)': what to take from the shelf, then the amount needed as the card says it; the line in the
    recipe's measure alone is what the rule calls a unit you cannot buy."""
    purchase = purchase_of(name)
    assert purchase is not None and purchase.unit is not None
    shown = to_buy(Amount(quantity, unit), name)
    text = line_text(quantity, unit, name, buying=True)
    need = needed(Amount(quantity, unit), name).text  # the recipe card's amount (cook's QA F10)
    assert shown.bought is not None and shown.bought[1] == purchase.unit and text.endswith(f" {name} (need {need})"), text
    assert oddities(text, shown.quantity, shown.unit, name, shopping=True) == [], text
    bare = ingredient_text(shown.text, shown.quantity, shown.unit, name)
    assert "unit you cannot buy" in oddities(bare, shown.quantity, shown.unit, name, shopping=True), bare


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(ALL_NAMES), unit=st.sampled_from(EVERY_MEASURE), quantity=st.floats(min_value=0.01, max_value=400))
def test_a_need_is_rounded_up_to_what_a_cook_writes_never_down(name: str, unit: str, quantity: float) -> None:
    """As recipes_scale writes it where that is not less than the amount, else rounded up to a measure."""
    shown = needed(Amount(quantity, unit), name)
    text = needed_text(quantity, unit, name)
    exact = None if shown.unit == "pinch" else convert(quantity, unit, shown.unit)
    assert "need rounded down" not in oddities(text, shown.quantity, shown.unit, name, shopping=True, exact=exact), text
    assert text.startswith(shown.text) and shown.text in (sensible(Amount(quantity, unit), name).text, to_buy(Amount(quantity, unit), name).text)


def test_the_weeks_broth_is_needed_in_cups_and_rounding_down_is_odd() -> None:
    assert needed_text(10.5, "cup", "vegetable broth") == "10 1/2 cups vegetable broth"
    assert "need rounded down" in oddities("need 2 1/2 quarts vegetable broth", 2.5, "quart", "vegetable broth", shopping=True, exact=2.625)


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(SHELF_NAMES), count=st.integers(min_value=1, max_value=5), to=st.sampled_from(RECIPE_MEASURES))
def test_what_a_pantry_holds_of_a_staple_compares_as_the_shop_sells_it(name: str, count: int, to: str) -> None:
    """2 cartons of broth are about 8 cups; the shop's own measures of it compare the same way; a note that still
    says 'check' for it breaks the rule."""
    purchase = purchase_of(name)
    assert purchase is not None and purchase.unit is not None
    about = about_in(name, count, purchase.unit, to)
    assert about == pytest.approx(convert(count * purchase.holds["ml"], "ml", to))
    for held_in in ("g", "ml"):
        if held_in in purchase.holds:
            assert about_in(name, count * purchase.holds[held_in], held_in, to) == pytest.approx(about)
    note = f"need 1 tbsp {name}, the pantry has {count} {purchase.unit}: check there is enough"
    assert note_oddities(note, name) == ["check where it compares"]


@pytest.mark.parametrize(("note", "name"), [
    ("need 2 tbsp chicken thighs, the pantry has 1 lb: check there is enough", "chicken thighs"),
    ("need 2 carrots, the pantry has 1 lb (about 7 1/2 carrots): covered", "carrots"),
    ("need 3/4 cup parmesan, the pantry has 6 oz (about 1 1/2 cups): covered", "parmesan"),
    ("need 3/4 cup all-purpose flour, the pantry has 5 lb (about 18 cups): covered", "all-purpose flour"),
])
def test_a_check_that_no_shelf_unit_settles_and_a_covered_note_read_as_a_cook_writes_them(note: str, name: str) -> None:
    assert note_oddities(note, name) == []


@pytest.mark.parametrize(("note", "name", "bought", "rule"), [
    ("need 2 carrots, the pantry has 1 lb: check there is enough", "carrots", True, "check a cook could weigh"),
    ("need 3/4 cup parmesan, the pantry has 6 oz: check there is enough", "parmesan", True, "check a cook could weigh"),
    ("need 3/4 cup all-purpose flour, the pantry has 5 lb (about 4 1/2 quarts): covered", "all-purpose flour", True,
     "dry goods by the quart"),
    ("need 10 1/2 cups vegetable broth, the pantry has 2 cartons (about 8 cups): short by 2 1/2 cups", "vegetable broth",
     False, "shortfall not bought"),
])
def test_the_notes_the_cook_quoted_break_a_rule(note: str, name: str, bought: bool, rule: str) -> None:
    assert rule in note_oddities(note, name, bought=bought)
