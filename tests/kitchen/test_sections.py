"""Store sections of shopping lines: the line's own category, else the ingredient taxonomy, else 'other'."""

from __future__ import annotations

import pytest

from alfred_mcp.kitchen.schema import SHOPPING_CATEGORIES
from alfred_mcp.kitchen.sections import BY_TAXONOMY, OTHER, WALK, section_order, store_section
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


@pytest.mark.parametrize(("category", "section"), [("Frozen", "frozen"), ("  dry   goods ", "dry goods"), ("Household", "household")])
def test_a_line_with_a_category_keeps_it(category: str, section: str) -> None:
    assert store_section("chicken stock", category, TAXONOMY) == section


def test_sections_sort_in_the_store_walk_then_the_users_own_then_other() -> None:
    shuffled = [OTHER, "household", *reversed(WALK), "garden"]
    assert sorted(shuffled, key=section_order) == [*WALK, "garden", "household", OTHER]
