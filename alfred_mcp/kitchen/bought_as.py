"""What fresh produce and canned goods are bought as: herbs by the bunch, fresh ginger by the piece, mushrooms by the
pack, an onion whole, crushed tomatoes by the can. A recipe measures them (1 1/2 tsp grated ginger, 3/4 tsp thyme
leaves, 1 oz mushrooms, 28 oz crushed tomatoes); a shopping list says what to take from the shelf (1 piece ginger,
1 bunch thyme, 1 pack mushrooms, 2 cans crushed tomatoes).

`purchase_of(name)` is the purchase for a name the shop files under produce or canned goods (the store sections,
from the taxonomy; fresh ginger too, which the taxonomy counts among the spices; broths, sold by the quart, aside),
None for anything else and for a fresh name's other forms ('dried thyme', 'ground ginger', 'lemon juice', 'garlic
powder'). A purchase says how much one holds,
per measure it can be bought for: millilitres ('ml', any volume), grams ('g', any weight) or a count unit ('sprig').
A measure it does not hold (a weight of onions, a head of garlic) is bought as written. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import NamedTuple

from alfred_mcp.kitchen.sections import store_section
from alfred_mcp.kitchen.taxonomy import Words, default_taxonomy, ingredient_words

CUP_ML = 236.5882365
TBSP_ML = CUP_ML / 16
TSP_ML = TBSP_ML / 3


class Purchase(NamedTuple):
    """One thing taken from the shelf: its unit ('bunch'; None: the thing itself, '2 onions') and what it holds."""

    unit: str | None
    holds: Mapping[str, float]
    """Per measure it is bought for ('ml', 'g' or a count unit such as 'sprig'): how much of it one holds."""


_LEAFY_HERB = Purchase("bunch", {"ml": CUP_ML, "g": 30.0, "sprig": 20, "handful": 2, "leaf": 30, "pinch": 50})
"""A bunch of parsley, cilantro, basil, mint or dill: about a cup of leaves, chopped."""
_WOODY_HERB = Purchase("bunch", {"ml": CUP_ML / 4, "g": 20.0, "sprig": 10, "handful": 2, "leaf": 60, "pinch": 30})
"""A bunch (or clamshell) of thyme, rosemary, sage, oregano or tarragon: about 1/4 cup of leaves."""
_BY_NAME: tuple[tuple[tuple[str, ...], Purchase], ...] = (
    (("ginger", "gingerroot"), Purchase("piece", {"ml": 3 * TBSP_ML, "inch": 3})),
    (("green onion", "scallion", "spring onion"), Purchase("bunch", {"ml": CUP_ML / 2, "piece": 6, "stalk": 6})),
    (("chive",), Purchase("bunch", {"ml": CUP_ML / 2, "sprig": 30})),
    (("lemongrass",), Purchase("stalk", {"ml": 2 * TBSP_ML})),
    (("bok choy", "pak choi"), Purchase("head", {"ml": 2 * CUP_ML, "leaf": 10, "handful": 2})),
    (("lemon",), Purchase(None, {"ml": 3 * TBSP_ML})),
    (("lime",), Purchase(None, {"ml": 2 * TBSP_ML})),
    (("celery root",), Purchase(None, {"ml": 3 * CUP_ML})),
    (("celery",), Purchase("bunch", {"ml": 4 * CUP_ML, "stalk": 8})),
    (("garlic",), Purchase("head", {"ml": 10 * TSP_ML})),
    (("shallot",), Purchase(None, {"ml": CUP_ML / 4})),
    (("jalapeno", "serrano", "chili", "chile", "chilli", "habanero", "thai chili"), Purchase(None, {"ml": 2 * TBSP_ML})),
    (("carrot",), Purchase(None, {"ml": CUP_ML / 2})),
    (("thyme", "rosemary", "sage", "oregano", "tarragon", "marjoram", "savory", "lemon thyme"), _WOODY_HERB),
    (("spinach", "arugula", "rocket", "mixed green", "salad green", "spring mix", "mesclun", "microgreen", "watercress"),
     Purchase("bag", {"ml": 5 * CUP_ML, "handful": 5})),
    (("lettuce", "romaine", "iceberg", "cabbage", "napa cabbage", "radicchio", "endive", "escarole"),
     Purchase("head", {"ml": 6 * CUP_ML, "leaf": 12, "handful": 6})),
)
"""Names bought in their own way, most specific first (a word of the name, or a run of words)."""
_BY_CATEGORY: tuple[tuple[str, Purchase], ...] = (
    ("herbs", _LEAFY_HERB),
    ("mushrooms", Purchase("pack", {"g": 8 * 28.349523125, "ml": 3 * CUP_ML})),
    ("berries", Purchase("pint", {"ml": 2 * CUP_ML})),
    ("leafy greens", Purchase("bunch", {"ml": 4 * CUP_ML, "handful": 4, "leaf": 12})),
    ("vegetables", Purchase(None, {"ml": CUP_ML})),
    ("fruit", Purchase(None, {"ml": CUP_ML})),
)
"""The taxonomy's produce categories, each as a shop sells it (a vegetable or fruit whole: about a cup, chopped)."""
OZ_G = 28.349523125
CAN = Purchase("can", {"g": 14 * OZ_G, "ml": 1.75 * CUP_ML})
"""A can of tomatoes, beans or vegetables: 14 oz (about 1 3/4 cups)."""
_CANS: tuple[tuple[tuple[str, ...], Purchase], ...] = (
    (("tomato paste",), Purchase("can", {"g": 6 * OZ_G, "ml": 0.75 * CUP_ML})),
    (("coconut milk", "coconut cream"), Purchase("can", {"g": 13.5 * OZ_G, "ml": 400.0})),
)
"""Canned goods in cans of another size."""
NOT_FRESH: frozenset[str] = frozenset({
    "dried", "dry", "ground", "powder", "paste", "juice", "zest", "oil", "extract", "seed", "flake", "sauce", "puree",
    "canned", "tinned", "frozen", "pickled", "jarred", "crystallized", "candied", "syrup", "jam", "chip", "salt",
    "vinegar", "concentrate", "preserved", "jar", "can",
})
"""Words that make a name a form bought off the shelf (a jar, a bottle), not produce."""
FRESH_AMONG_SPICES: tuple[str, ...] = ("ginger", "gingerroot")
"""Fresh produce the taxonomy files with the spices (fresh ginger): produce unless the name says another form."""


@cache
def purchase_of(name: str) -> Purchase | None:
    """How the shop sells the fresh produce or canned goods `name` names, or None (neither, or a form that is not
    fresh)."""
    words = ingredient_words(name)
    taxonomy = default_taxonomy()
    if words and store_section(name, None, taxonomy) == "canned" and not taxonomy.matches(name, "broths"):
        return next((can for phrases, can in _CANS if any(_holds(words, ingredient_words(phrase)) for phrase in phrases)), CAN)
    if not words or any(word in NOT_FRESH for word in words):
        return None
    fresh_spice = any(word in FRESH_AMONG_SPICES for word in words) and taxonomy.matches(name, "spices")
    if store_section(name, None, taxonomy) != "produce" and not fresh_spice:
        return None
    for phrases, purchase in _BY_NAME:
        if any(_holds(words, ingredient_words(phrase)) for phrase in phrases):
            return purchase
    return next((purchase for category, purchase in _BY_CATEGORY if taxonomy.matches(name, category)), None)


def measure_key(unit: str | None, volume_units: frozenset[str], mass_units: frozenset[str]) -> str:
    """The key a purchase holds an amount in this unit under: 'ml' for a volume, 'g' for a weight, else the unit."""
    if unit in volume_units:
        return "ml"
    if unit in mass_units:
        return "g"
    return unit or "piece"


def _holds(words: Words, phrase: Words) -> bool:
    return any(words[start:start + len(phrase)] == phrase for start in range(len(words) - len(phrase) + 1))


def can_weight(name: str) -> float | None:
    """The ounces in one can of `name`, when it is canned goods bought by the can (None otherwise)."""
    purchase = purchase_of(name)
    return purchase.holds["g"] / OZ_G if purchase is not None and purchase.unit == "can" and "g" in purchase.holds else None
