"""Store sections: where in a shop a shopping line is found, for a checklist a person walks through.

The sections are the shopping list's own `category` vocabulary (`SHOPPING_CATEGORIES`). A line whose
category is set keeps it; otherwise the ingredient taxonomy decides from its name: the first rule in
`BY_TAXONOMY` whose category holds the name wins, so 'chicken stock' is canned (broths) before it is
meat (poultry), and 'fish sauce' a condiment before it is seafood. Pure and deterministic.
"""

from __future__ import annotations

from alfred_mcp.kitchen.schema import SHOPPING_CATEGORIES
from alfred_mcp.kitchen.taxonomy import Taxonomy

OTHER = "other"
BY_TAXONOMY: tuple[tuple[str, str], ...] = (
    ("condiments", "condiments"), ("broths", "canned"), ("oils", "condiments"), ("spices", "spices"),
    ("baking", "dry goods"), ("sweeteners", "dry goods"), ("bread", "bakery"), ("pasta", "dry goods"),
    ("grains", "dry goods"), ("seafood", "seafood"), ("meat", "meat"), ("dairy alternatives", "dairy"),
    ("dairy", "dairy"), ("eggs", "dairy"), ("soy", "produce"), ("legumes", "dry goods"), ("nuts", "dry goods"),
    ("seeds", "dry goods"), ("herbs", "produce"), ("nightshades", "produce"), ("vegetables", "produce"),
    ("fruit", "produce"), ("alcohol", "beverages"),
)
"""(taxonomy category, store section), most specific first."""
WALK: tuple[str, ...] = (
    "produce", "bakery", "meat", "seafood", "dairy", "frozen", "dry goods", "canned", "condiments", "spices", "snacks",
    "beverages",
)
"""The order a shopper meets the sections in; a category of the user's own comes after these, `other` last."""
assert set(WALK) == set(SHOPPING_CATEGORIES)


def store_section(name: str, category: str | None, taxonomy: Taxonomy) -> str:
    """The line's section: its own category when set (lowercased), else the taxonomy's guess, else 'other'."""
    if category and category.strip():
        return " ".join(category.lower().split())
    for taxonomy_category, section in BY_TAXONOMY:
        if taxonomy.matches(name, taxonomy_category):
            return section
    return OTHER


def section_order(section: str) -> tuple[int, str]:
    """Sort key: the store walk, then sections of the user's own alphabetically, then 'other'."""
    if section in WALK:
        return (0, f"{WALK.index(section):02d}")
    return (2, "") if section == OTHER else (1, section)
