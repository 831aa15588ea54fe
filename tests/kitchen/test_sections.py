"""Store sections of shopping lines: the line's own category, else the ingredient taxonomy, else 'other'."""

from __future__ import annotations

import pytest

from alfred_mcp.kitchen.schema import SHOPPING_CATEGORIES
from alfred_mcp.kitchen.sections import BY_FORM, BY_TAXONOMY, DRIED_BY_DEFAULT, OTHER, WALK, section_order, store_section
from alfred_mcp.kitchen.taxonomy import default_taxonomy

TAXONOMY = default_taxonomy()


@pytest.mark.parametrize(("category", "section"), BY_TAXONOMY)
def test_every_rule_names_a_taxonomy_category_and_a_store_section(category: str, section: str) -> None:
    assert TAXONOMY.category(category).name == category and section in SHOPPING_CATEGORIES


@pytest.mark.parametrize(("name", "section"), [
    ("chicken stock", "canned"), ("fish sauce", "condiments"), ("cod fillets", "seafood"), ("chicken thighs", "meat"),
    ("cheddar", "dairy"), ("eggs", "dairy"), ("garlic", "produce"), ("lemons", "produce"), ("spaghetti", "dry goods"),
    ("sourdough bread", "bakery"), ("olive oil", "condiments"), ("ground cumin", "spices"), ("white wine", "beverages"),
    ("peanut butter", "dry goods"), ("dish soap", OTHER),
])
def test_a_line_without_a_category_goes_where_the_taxonomy_puts_its_name(name: str, section: str) -> None:
    assert store_section(name, None, TAXONOMY) == section


@pytest.mark.parametrize(("name", "section"), [
    ("dried oregano", "spices"), ("oregano", "spices"), ("fresh oregano", "produce"), ("bay leaves", "spices"),
    ("tomato paste", "canned"), ("crushed tomatoes", "canned"), ("tomatoes", "produce"), ("frozen peas", "frozen"),
    ("canned chickpeas", "canned"), ("coconut milk", "canned"), ("dried porcini", "dry goods"), ("ground beef", "meat"),
    ("ground turmeric", "spices"),
])
def test_the_form_a_name_says_decides_before_what_the_ingredient_is(name: str, section: str) -> None:
    """Where a shopper finds it: dried herbs with the spices, tomato paste with the cans, not in produce."""
    assert store_section(name, None, TAXONOMY) == section


@pytest.mark.parametrize(("phrase", "section"), BY_FORM)
def test_every_form_rule_names_a_store_section(phrase: str, section: str) -> None:
    assert section in SHOPPING_CATEGORIES and store_section(f"{phrase} thyme", None, TAXONOMY) in SHOPPING_CATEGORIES


@pytest.mark.parametrize("herb", DRIED_BY_DEFAULT)
def test_herbs_bought_dried_are_spices_unless_fresh(herb: str) -> None:
    fresh = "spices" if TAXONOMY.matches(herb, "spices") else "produce"  # a seasoning blend is a spice either way
    assert store_section(herb, None, TAXONOMY) == "spices" and store_section(f"fresh {herb}", None, TAXONOMY) == fresh


@pytest.mark.parametrize(("category", "section"), [("Frozen", "frozen"), ("  dry   goods ", "dry goods"), ("Household", "household")])
def test_a_line_with_a_category_keeps_it(category: str, section: str) -> None:
    assert store_section("chicken stock", category, TAXONOMY) == section


def test_sections_sort_in_the_store_walk_then_the_users_own_then_other() -> None:
    shuffled = [OTHER, "household", *reversed(WALK), "garden"]
    assert sorted(shuffled, key=section_order) == [*WALK, "garden", "household", OTHER]
