"""Store sections: where in a shop a shopping line is found, for a checklist a person walks through.

The sections are the shopping list's own `category` vocabulary (`SHOPPING_CATEGORIES`). A line whose
category is set keeps it; otherwise the form the line says comes first (`ingredient_kinds.form_of`, from the
name and the unit): canned things (a can of black beans, tomato paste, coconut milk) are canned, frozen ones
frozen, dried herbs and spices spices and anything else dried dry goods (porcini, cranberries), fresh produce
(and fresh ginger) produce. Then the ingredient taxonomy decides: the first rule in `BY_TAXONOMY` whose category
holds the name wins, so 'chicken stock' is in soups & broths before it is meat (poultry), and 'fish sauce' a
condiment before it is seafood. Pure and deterministic.
"""

from __future__ import annotations

from alfred_mcp.kitchen.ingredient_kinds import CANNED, DRIED, FRESH, FROZEN, GROUND_WORDS, form_of, is_produce
from alfred_mcp.kitchen.schema import SHOPPING_CATEGORIES
from alfred_mcp.kitchen.taxonomy import Taxonomy, ingredient_words

OTHER = "other"
BY_FORM: dict[str, str] = {CANNED: "canned", FROZEN: "frozen", DRIED: "dry goods", FRESH: "produce"}
"""The section of a form (a dried seasoning is with the spices, fresh produce only when it is produce)."""
_SEASONINGS = ("herbs", "spices")
BY_TAXONOMY: tuple[tuple[str, str], ...] = (
    ("dairy alternatives", "dairy"), ("vinegars", "oils & vinegars"), ("condiments", "condiments"), ("broths", "soups & broths"),
    ("oils", "oils & vinegars"), ("spices", "spices"), ("syrups", "condiments"), ("baking", "baking"),
    ("sweeteners", "baking"), ("breadcrumbs", "dry goods"), ("bread", "bakery"), ("pasta", "dry goods"), ("grains", "dry goods"),
    ("seafood", "seafood"), ("meat", "meat"), ("dairy", "dairy"), ("eggs", "dairy"),
    ("soy", "produce"), ("legumes", "dry goods"), ("nuts", "dry goods"), ("seeds", "dry goods"), ("herbs", "produce"),
    ("nightshades", "produce"), ("vegetables", "produce"), ("fruit", "produce"), ("alcohol", "beverages"),
)
"""(taxonomy category, store section), most specific first: vinegars and oils stand together, honey and syrups with
the condiments and spreads, sugar with the flour and baking powder, broth cartons in the soup aisle; a plant milk
with the milk (a carton of rice milk is not dry goods for the rice in its name)."""
WALK: tuple[str, ...] = (
    "produce", "bakery", "meat", "seafood", "dairy", "frozen", "dry goods", "baking", "oils & vinegars", "canned",
    "soups & broths", "condiments", "spices", "snacks", "beverages",
)
"""The order a shopper meets the sections in; a category of the user's own comes after these, `other` last."""
assert set(WALK) == set(SHOPPING_CATEGORIES)


def store_section(name: str, category: str | None, taxonomy: Taxonomy, unit: str | None = None) -> str:
    """The line's section: its own category when set (lowercased), else where its form and then the taxonomy put
    it, else 'other'."""
    if category and category.strip():
        return " ".join(category.lower().split())
    seasoning = any(taxonomy.matches(name, kind) for kind in _SEASONINGS)
    form = form_of(name, unit, None, taxonomy)
    if form == DRIED and seasoning or seasoning and set(ingredient_words(name)) & GROUND_WORDS:
        return "spices"
    if form in (CANNED, FROZEN, DRIED) or form == FRESH and is_produce(name, taxonomy):
        return BY_FORM[form]
    for taxonomy_category, section in BY_TAXONOMY:
        if taxonomy.matches(name, taxonomy_category):
            return section
    return OTHER


def section_order(section: str) -> tuple[int, str]:
    """Sort key: the store walk, then sections of the user's own alphabetically, then 'other'."""
    if section in WALK:
        return (0, f"{WALK.index(section):02d}")
    return (2, "") if section == OTHER else (1, section)
