"""Store sections of shopping lines: the line's own category, else the ingredient taxonomy, else 'other'."""

from __future__ import annotations

from datetime import date

import pytest

from alfred_mcp.kitchen.ingredient_kinds import CANNED_PRODUCTS, FRESH_BY_DEFAULT, NOT_PRODUCE, PRODUCE
from alfred_mcp.kitchen.schema import SHOPPING_CATEGORIES
from alfred_mcp.kitchen.sections import BY_FORM, BY_TAXONOMY, OTHER, WALK, section_order, store_section
from alfred_mcp.kitchen.seed import demo_kitchen
from alfred_mcp.kitchen.taxonomy import default_taxonomy

TAXONOMY = default_taxonomy()
PRODUCE_ITEMS = sorted({member for category in PRODUCE for member in TAXONOMY.expand(category)
                        if not any(TAXONOMY.matches(member, other) for other in NOT_PRODUCE)
                        and not TAXONOMY.resolve_category(member)})
"""Every taxonomy member a shopper buys fresh in produce (and in a can, dried or frozen elsewhere)."""
SEASONINGS = sorted(set(TAXONOMY.expand("spices")) - set(FRESH_BY_DEFAULT) - {"spice", "seasoning"})


@pytest.mark.parametrize(("category", "section"), BY_TAXONOMY)
def test_every_rule_names_a_taxonomy_category_and_a_store_section(category: str, section: str) -> None:
    assert TAXONOMY.category(category).name == category and section in SHOPPING_CATEGORIES


@pytest.mark.parametrize(("name", "section"), [
    ("chicken stock", "soups & broths"), ("fish sauce", "condiments"), ("cod fillets", "seafood"), ("chicken thighs", "meat"),
    ("cheddar", "dairy"), ("eggs", "dairy"), ("garlic", "produce"), ("lemons", "produce"), ("spaghetti", "dry goods"),
    ("sourdough bread", "bakery"), ("olive oil", "oils & vinegars"), ("vegetable oil", "oils & vinegars"), ("ground cumin", "spices"), ("white wine", "beverages"),
    ("peanut butter", "dry goods"), ("dish soap", OTHER), ("balsamic vinegar", "oils & vinegars"), ("honey", "condiments"),
    ("granulated sugar", "baking"), ("vanilla extract", "baking"), ("panko breadcrumbs", "dry goods"),
])
def test_a_line_without_a_category_goes_where_the_taxonomy_puts_its_name(name: str, section: str) -> None:
    assert store_section(name, None, TAXONOMY) == section


@pytest.mark.parametrize(("name", "section"), [
    ("dried oregano", "spices"), ("oregano", "spices"), ("fresh oregano", "produce"), ("bay leaves", "spices"),
    ("tomato paste", "canned"), ("crushed tomatoes", "canned"), ("tomatoes", "produce"), ("frozen peas", "frozen"),
    ("canned chickpeas", "canned"), ("coconut milk", "canned"), ("dried porcini", "dry goods"), ("ground beef", "meat"),
    ("ground turmeric", "spices"), ("black beans", "dry goods"), ("ginger", "produce"), ("fresh ginger", "produce"),
    ("ground ginger", "spices"),
])
def test_the_form_a_name_says_decides_before_what_the_ingredient_is(name: str, section: str) -> None:
    """Where a shopper finds it: dried herbs with the spices, tomato paste with the cans, not in produce."""
    assert store_section(name, None, TAXONOMY) == section


@pytest.mark.parametrize("item", PRODUCE_ITEMS)
def test_every_produce_item_is_found_where_its_form_is_sold(item: str) -> None:
    """Fresh in produce, canned with the cans (said in the name or by the unit), frozen in frozen, dried in dry goods
    (or with the spices when it is a herb)."""
    dried = "spices" if TAXONOMY.matches(item, "herbs") else "dry goods"
    assert {form: store_section(name, None, TAXONOMY, unit) for form, name, unit in (
        ("fresh", f"fresh {item}", None), ("canned", f"canned {item}", None), ("can", item, "can"),
        ("frozen", f"frozen {item}", "cup"), ("dried", f"dried {item}", "oz"))} == {
        "fresh": "produce", "canned": "canned", "can": "canned", "frozen": "frozen", "dried": dried}


@pytest.mark.parametrize("spice", SEASONINGS)
def test_every_spice_ground_or_dried_is_with_the_spices(spice: str) -> None:
    assert store_section(f"ground {spice}", None, TAXONOMY) == store_section(f"dried {spice}", None, TAXONOMY) == "spices"


@pytest.mark.parametrize("product", CANNED_PRODUCTS)
def test_what_is_sold_in_cans_is_canned_whatever_the_unit(product: str) -> None:
    assert {store_section(product, None, TAXONOMY, unit) for unit in (None, "oz", "cup", "can", "g")} == {"canned"}


@pytest.mark.parametrize(("form", "section"), BY_FORM.items())
def test_every_form_names_a_store_section(form: str, section: str) -> None:
    assert section in SHOPPING_CATEGORIES


@pytest.mark.parametrize("category", sorted({category for category, _ in BY_TAXONOMY}))
def test_every_taxonomy_members_section_is_a_store_section(category: str) -> None:
    assert {store_section(member, None, TAXONOMY) for member in TAXONOMY.expand(category)} <= set(SHOPPING_CATEGORIES)


@pytest.mark.parametrize(("category", "section"), [("Frozen", "frozen"), ("  dry   goods ", "dry goods"), ("Household", "household")])
def test_a_line_with_a_category_keeps_it(category: str, section: str) -> None:
    assert store_section("chicken stock", category, TAXONOMY) == section


def test_sections_sort_in_the_store_walk_then_the_users_own_then_other() -> None:
    shuffled = [OTHER, "household", *reversed(WALK), "garden"]
    assert sorted(shuffled, key=section_order) == [*WALK, "garden", "household", OTHER]


SHOPPER_SECTIONS: dict[str, str] = {
    "fish": "seafood", "shellfish": "seafood", "poultry": "meat", "red meat": "meat", "pork": "meat", "eggs": "dairy",
    "dairy": "dairy", "cheese": "dairy", "dairy alternatives": "dairy", "soy": "produce", "legumes": "dry goods",
    "grains": "dry goods", "pasta": "dry goods", "bread": "bakery", "nuts": "dry goods", "seeds": "dry goods",
    "spices": "spices", "oils": "oils & vinegars", "condiments": "condiments", "sweeteners": "baking", "baking": "baking",
    "broths": "soups & broths", "alcohol": "beverages",
}
"""Where a shopper looks for a catalog item of each catalog category (fresh produce of every kind in produce)."""
SHOPPER_EXCEPTIONS: dict[str, str] = {
    "rice vinegar": "oils & vinegars", "red wine vinegar": "oils & vinegars", "honey": "condiments",
    "maple syrup": "condiments", "panko breadcrumbs": "dry goods", "dried oregano": "spices", "bay leaves": "spices",
    "tuna": "canned", "anchovies": "canned", "canned tomatoes": "canned", "tomato paste": "canned", "chickpeas": "canned",
    "black beans": "canned", "coconut milk": "canned", "frozen peas": "frozen", "dried porcini mushrooms": "dry goods",
    "ginger": "produce",
}
"""Items a shopper finds by what they are sold as, not by their catalog category: vinegars beside the oils, syrups
with the condiments, a can with the cans, dried herbs with the spices."""
FRESH_TOO = frozenset({"peas", "green peas", "porcini"})
"""Aliases that name the fresh thing as well as the frozen or dried item they are an alias of."""


def test_every_catalog_item_is_in_the_section_a_shopper_looks_in() -> None:
    """Every item of the demo catalog (and each alias) lands where a shopper finds it: oils and vinegars together,
    vanilla and sugar with the baking things, honey with the condiments, broth in the soup aisle."""
    wrong = {}
    for item in demo_kitchen(date(2026, 1, 5)).catalog:
        expected = SHOPPER_EXCEPTIONS.get(item["name"]) or SHOPPER_SECTIONS.get(item["category"], "produce")
        for name in {item["name"], *item["aliases"]} - FRESH_TOO:
            found = store_section(name, None, TAXONOMY, item["default_unit"])
            if found != expected:
                wrong[name] = (found, expected)
    assert wrong == {}
