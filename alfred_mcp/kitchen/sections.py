"""Store sections: where in a shop a shopping line is found, for a checklist a person walks through.

The sections are the shopping list's own `category` vocabulary (`SHOPPING_CATEGORIES`). A line whose
category is set keeps it; otherwise the form the name says comes first (`BY_FORM`: frozen peas are
frozen, tomato paste and coconut milk canned, dried oregano a spice, and so are the herbs bought dried
unless the name says fresh), then the ingredient taxonomy decides: the first rule in `BY_TAXONOMY` whose
category holds the name wins, so 'chicken stock' is canned (broths) before it is meat (poultry), and
'fish sauce' a condiment before it is seafood. Pure and deterministic.
"""

from __future__ import annotations

from alfred_mcp.kitchen.schema import SHOPPING_CATEGORIES
from alfred_mcp.kitchen.taxonomy import Taxonomy, Words, ingredient_words

OTHER = "other"
BY_FORM: tuple[tuple[str, str], ...] = (
    ("frozen", "frozen"), ("canned", "canned"), ("tinned", "canned"), ("tomato paste", "canned"),
    ("tomato puree", "canned"), ("tomato sauce", "canned"), ("crushed tomato", "canned"), ("diced tomato", "canned"),
    ("peeled tomato", "canned"), ("coconut milk", "canned"), ("coconut cream", "canned"), ("dried", "spices"),
    ("ground", "spices"),
)
"""(phrase in the name, store section): a form that decides the section before what the ingredient is. 'dried'
and 'ground' make herbs and spices spices; anything else dried is dry goods (porcini, cranberries), ground
anything else is left to the taxonomy (ground beef is meat)."""
DRIED_BY_DEFAULT: tuple[str, ...] = ("oregano", "bay leaf", "marjoram", "italian seasoning", "herbes de provence")
"""Herbs a recipe means dried unless it says fresh."""
_SEASONINGS = ("herbs", "spices")
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
    words = ingredient_words(name)
    seasoning = any(taxonomy.matches(name, kind) for kind in _SEASONINGS)
    for phrase, section in BY_FORM:
        if _holds(words, ingredient_words(phrase)) and (section != "spices" or seasoning):
            return section
        if phrase == "dried" and _holds(words, ("dried",)):
            return "dry goods"
    if "fresh" not in words and any(_holds(words, ingredient_words(herb)) for herb in DRIED_BY_DEFAULT):
        return "spices"
    for taxonomy_category, section in BY_TAXONOMY:
        if taxonomy.matches(name, taxonomy_category):
            return section
    return OTHER


def _holds(words: Words, phrase: Words) -> bool:
    return any(words[start:start + len(phrase)] == phrase for start in range(len(words) - len(phrase) + 1))


def section_order(section: str) -> tuple[int, str]:
    """Sort key: the store walk, then sections of the user's own alphabetically, then 'other'."""
    if section in WALK:
        return (0, f"{WALK.index(section):02d}")
    return (2, "") if section == OTHER else (1, section)
