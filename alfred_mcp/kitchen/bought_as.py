"""What an ingredient is bought as: herbs by the bunch, fresh ginger by the piece, mushrooms by the pack, an onion
whole, crushed tomatoes by the can, and the shelf staples as their shelf holds them: spices and dried herbs by the
jar, extracts, oils, sauces, vinegars and wine by the bottle, broth and cream by the carton, baking powder by the can,
sugar, flour, rice and nuts by the bag, pasta by the box. A recipe measures them (1 1/2 tsp grated ginger, 3/4 tsp
thyme leaves, 1 tbsp black pepper, 1/2 cup broth); a shopping list says what to take from the shelf (1 piece ginger,
1 bunch thyme, 1 jar black pepper, 1 carton broth).

`purchase_of(name)` is the purchase for a name the shop files under produce or canned goods (the store sections,
from the taxonomy; fresh ginger too, which the taxonomy counts among the spices), else for a shelf staple (by name,
then by its taxonomy class: `STAPLE_CLASSES`), None for anything else (meat, fish, eggs, bread, frozen goods). A
fresh name's other forms ('dried thyme', 'ground ginger', 'garlic powder') are staples. A staple written in a
measure the shop sells it by (`Purchase.as_written`: '5 lb flour', '1 gallon milk') is bought as written. A purchase
says how much one holds,
per measure it can be bought for: millilitres ('ml', any volume), grams ('g', any weight) or a count unit ('sprig').
A measure it does not hold (a weight of onions, a head of garlic) is bought as written. Pure.
"""

from __future__ import annotations

import re
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
    as_written: frozenset[str] = frozenset()
    """Units the shop sells it by itself ('lb' of flour): an amount in one is bought as written."""


WEIGHTS = frozenset({"lb", "oz", "kg", "g"})
"""What a shop weighs produce and cheese out in: '1 1/2 lb potatoes', '4 oz pecorino' are bought as written."""
_LEAFY_HERB = Purchase("bunch", {"ml": CUP_ML, "g": 30.0, "sprig": 20, "handful": 2, "leaf": 30, "pinch": 50})
"""A bunch of parsley, cilantro, basil, mint or dill: about a cup of leaves, chopped."""
_WOODY_HERB = Purchase("bunch", {"ml": CUP_ML / 4, "g": 20.0, "sprig": 10, "handful": 2, "leaf": 60, "pinch": 30})
"""A bunch (or clamshell) of thyme, rosemary, sage, oregano or tarragon: about 1/4 cup of leaves."""
_BY_NAME: tuple[tuple[tuple[str, ...], Purchase], ...] = (
    (("ginger", "gingerroot"), Purchase("piece", {"ml": 3 * TBSP_ML, "inch": 3})),
    (("cherry tomato", "grape tomato", "pear tomato"), Purchase("pint", {"ml": 2 * CUP_ML, "g": 300.0, "piece": 25}, WEIGHTS)),
    (("green onion", "scallion", "spring onion"), Purchase("bunch", {"ml": CUP_ML / 2, "piece": 6, "stalk": 6})),
    (("chive",), Purchase("bunch", {"ml": CUP_ML / 2, "sprig": 30})),
    (("lemongrass",), Purchase("stalk", {"ml": 2 * TBSP_ML})),
    (("bok choy", "pak choi"), Purchase("head", {"ml": 2 * CUP_ML, "leaf": 10, "handful": 2})),
    (("lemon",), Purchase(None, {"ml": 3 * TBSP_ML, "g": 100.0}, WEIGHTS)),
    (("lime",), Purchase(None, {"ml": 2 * TBSP_ML, "g": 65.0}, WEIGHTS)),
    (("celery root",), Purchase(None, {"ml": 3 * CUP_ML})),
    (("celery",), Purchase("bunch", {"ml": 4 * CUP_ML, "stalk": 8})),
    (("garlic",), Purchase("head", {"ml": 10 * TSP_ML})),
    (("shallot",), Purchase(None, {"ml": CUP_ML / 4, "g": 40.0}, WEIGHTS)),
    (("jalapeno", "serrano", "chili", "chile", "chilli", "habanero", "thai chili"), Purchase(None, {"ml": 2 * TBSP_ML})),
    (("carrot",), Purchase(None, {"ml": CUP_ML / 2, "g": 60.0}, WEIGHTS)),
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
    ("vegetables", Purchase(None, {"ml": CUP_ML, "g": 150.0}, WEIGHTS)),
    ("fruit", Purchase(None, {"ml": CUP_ML, "g": 150.0}, WEIGHTS)),
)
"""The taxonomy's produce categories, each as a shop sells it (a vegetable or fruit whole: about a cup, chopped, and
about 150 g; weighed out, it is bought as written)."""
OZ_G = 28.349523125
CAN = Purchase("can", {"g": 14 * OZ_G, "ml": 1.75 * CUP_ML})
"""A can of tomatoes, beans or vegetables: 14 oz (about 1 3/4 cups)."""
_CANS: tuple[tuple[tuple[str, ...], Purchase], ...] = (
    (("tomato paste",), Purchase("can", {"g": 6 * OZ_G, "ml": 0.75 * CUP_ML})),
    (("coconut milk", "coconut cream"), Purchase("can", {"g": 13.5 * OZ_G, "ml": 400.0})),
    (("bean", "chickpea", "garbanzo"), Purchase("can", {"g": 15 * OZ_G, "ml": 1.75 * CUP_ML})),
    (("tuna",), Purchase("can", {"g": 5 * OZ_G, "ml": CUP_ML / 2})),
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


FL_OZ_ML = CUP_ML / 8
LB_G = 16 * OZ_G
_BY_WEIGHT = frozenset({"lb", "kg", "oz", "g"})
"""Weights a shop sells dry goods by: '2 lb rice' is bought as written (one way of buying an ingredient whatever its
amount, never '1 bag' below its size and pounds above). Pasta is not: it is bought by the box however it is weighed
('1 box spaghetti (need 12 oz)', '3 boxes spaghetti (need 3 lb)')."""
_SHOP_MEASURES = _BY_WEIGHT | {"gallon", "l"}
"""Measures a shop sells staples by (a gallon of milk, a litre of oil): bought as written."""
_JAR_OF_SPICE = Purchase("jar", {"ml": CUP_ML / 2, "g": 2 * OZ_G, "pinch": 100, "dash": 100}, _SHOP_MEASURES)
"""A jar of a ground spice or dried herb: about 2 oz, half a cup."""
_BOTTLE_OF_SAUCE = Purchase("bottle", {"ml": 10 * FL_OZ_ML, "dash": 200, "splash": 40}, _SHOP_MEASURES)
"""A bottle of soy sauce, vinegar, mirin or hot sauce: about 10 fl oz."""
_JARRED = Purchase("jar", {"ml": CUP_ML, "g": 8 * OZ_G}, _SHOP_MEASURES)
"""A jar of mustard, capers, olives, pesto, miso or nut butter: about a cup."""
_BOTTLE_OF_OIL = Purchase("bottle", {"ml": 2 * CUP_ML, "splash": 40}, _SHOP_MEASURES)
"""A bottle of olive, vegetable or sesame oil: about 2 cups."""
_CARTON = Purchase("carton", {"ml": 4 * CUP_ML}, frozenset({"l"}))
"""A carton of broth or stock: a quart (4 cups); a metric one is a litre, bought as written ('1 l chicken stock')."""
_STAPLES_BY_NAME: tuple[tuple[tuple[str, ...], Purchase], ...] = (
    (("oil",), _BOTTLE_OF_OIL),
    (("peanut butter", "nut butter", "almond butter", "tahini", "mustard", "mayonnaise", "mayo", "jam", "marmalade",
      "olive", "caper", "pickle", "relish", "tapenade", "pesto", "miso", "curry paste", "chutney", "aioli",
      "chili crisp", "salsa", "harissa", "gochujang", "tomato paste"), _JARRED),
    (("extract",), Purchase("bottle", {"ml": 2 * FL_OZ_ML, "drop": 300, "dash": 50}, _SHOP_MEASURES)),
    (("salt",), Purchase("box", {"g": 26 * OZ_G, "ml": 2.5 * CUP_ML, "pinch": 2000}, _SHOP_MEASURES)),
    (("baking powder", "baking soda", "bicarbonate of soda", "cream of tartar"),
     Purchase("can", {"ml": CUP_ML, "g": 8 * OZ_G, "pinch": 300}, _SHOP_MEASURES)),
    (("cornstarch", "corn starch", "cocoa", "gelatin"), Purchase("box", {"ml": 3 * CUP_ML, "g": LB_G}, _SHOP_MEASURES)),
    (("yeast",), Purchase("packet", {"ml": 2.25 * TSP_ML, "g": 7.0})),
    (("bouillon",), Purchase("jar", {"ml": CUP_ML, "cube": 8}, _SHOP_MEASURES)),
    (("honey", "syrup", "molasses", "agave", "treacle"), Purchase("bottle", {"ml": 1.5 * CUP_ML, "g": LB_G}, _SHOP_MEASURES)),
    (("mirin",), _BOTTLE_OF_SAUCE),
    (("sour cream", "yogurt", "yoghurt", "creme fraiche", "labneh", "skyr", "ricotta", "mascarpone", "cottage cheese",
      "cream cheese"), Purchase("tub", {"ml": 2 * CUP_ML, "g": LB_G}, _SHOP_MEASURES)),
    (("butter", "ghee"), Purchase("box", {"ml": 2 * CUP_ML, "g": LB_G, "stick": 4}, _SHOP_MEASURES)),
    (("milk",), Purchase("carton", {"ml": 8 * CUP_ML}, _SHOP_MEASURES)),
    (("cream", "half and half", "buttermilk"), Purchase("carton", {"ml": 2 * CUP_ML}, _SHOP_MEASURES)),
    (("tofu", "tempeh"), Purchase("block", {"g": 14 * OZ_G, "ml": 2 * CUP_ML})),
    (("chocolate chip", "chocolate"), Purchase("bag", {"g": 12 * OZ_G, "ml": 2 * CUP_ML}, _SHOP_MEASURES)),
    (("panko", "breadcrumb", "bread crumb", "crouton"), Purchase("bag", {"ml": 3 * CUP_ML, "g": 8 * OZ_G}, _SHOP_MEASURES)),
    (("corn tortilla",), Purchase("pack", {"piece": 30})),
    (("tortilla",), Purchase("pack", {"piece": 10})),
    (("pita", "bagel", "english muffin"), Purchase("pack", {"piece": 6})),
    (("naan",), Purchase("pack", {"piece": 4})),
    (("bun", "roll"), Purchase("pack", {"piece": 8})),
)
"""Staples bought in their own way, most specific first."""
_PACKED: tuple[tuple[tuple[str, ...], Purchase], ...] = (
    (("bacon",), Purchase("pack", {"slice": 12, "strip": 12, "g": 12 * OZ_G}, WEIGHTS)),
)
"""Meat sold by the pack though a recipe counts its slices: '1 pack bacon (need 9 slices)' (cook's QA 2 G26); by
weight it is bought as written ('8 oz bacon')."""
STAPLE_CLASSES: tuple[tuple[str, Purchase], ...] = (
    ("broths", _CARTON),
    ("spices", _JAR_OF_SPICE),
    ("herbs", _JAR_OF_SPICE),
    ("oils", _BOTTLE_OF_OIL),
    ("condiments", _BOTTLE_OF_SAUCE),
    ("alcohol", Purchase("bottle", {"ml": 750.0, "splash": 40}, _SHOP_MEASURES)),
    ("sweeteners", Purchase("bag", {"ml": 9 * CUP_ML, "g": 4 * LB_G}, _BY_WEIGHT)),
    ("baking", Purchase("bag", {"ml": 18 * CUP_ML, "g": 5 * LB_G}, _BY_WEIGHT)),
    ("pasta", Purchase("box", {"g": LB_G, "ml": 4 * CUP_ML})),
    ("grains", Purchase("bag", {"g": 2 * LB_G, "ml": 4.5 * CUP_ML}, _BY_WEIGHT)),
    ("legumes", Purchase("bag", {"g": LB_G, "ml": 2.5 * CUP_ML}, _BY_WEIGHT)),
    ("mushrooms", Purchase("packet", {"g": OZ_G, "ml": CUP_ML}, _BY_WEIGHT)),
    ("nuts", Purchase("bag", {"g": 8 * OZ_G, "ml": 1.75 * CUP_ML}, _BY_WEIGHT)),
    ("seeds", Purchase("bag", {"g": 8 * OZ_G, "ml": 1.5 * CUP_ML}, _BY_WEIGHT)),
    ("cheese", Purchase("wedge", {"ml": 2 * CUP_ML, "g": 8 * OZ_G}, _SHOP_MEASURES | WEIGHTS)),
    ("dairy alternatives", Purchase("carton", {"ml": 8 * CUP_ML}, _SHOP_MEASURES)),
    ("dairy", Purchase("carton", {"ml": 4 * CUP_ML}, _SHOP_MEASURES)),
    ("fruit", Purchase("bag", {"ml": 2 * CUP_ML, "g": 8 * OZ_G}, _BY_WEIGHT)),
)
"""The taxonomy's shelf classes, each as its shelf holds it, in the order a name is judged (broth before poultry,
oils before seeds, a dried fruit's bag last)."""
_SHELF_SECTIONS = frozenset({
    "spices", "dry goods", "baking", "oils & vinegars", "condiments", "canned", "soups & broths", "dairy", "beverages",
    "bakery",
})
"""Where the staples stand in a shop (the store sections); produce, meat, seafood and frozen goods are not staples."""


@cache
def purchase_of(name: str) -> Purchase | None:
    """How the shop sells what `name` names: fresh produce, canned goods or a shelf staple; None for anything else."""
    words = ingredient_words(name)
    if not words:
        return None
    whole = produce_purchase_of(name)
    if whole is not None or _is_fresh(name, words):
        return whole
    packed = next((pack for phrases, pack in _PACKED if any(_holds(words, ingredient_words(phrase)) for phrase in phrases)), None)
    if packed is not None:
        return packed
    return staple_of(name) if store_section(name, None, default_taxonomy()) in _SHELF_SECTIONS else None


@cache
def produce_purchase_of(name: str) -> Purchase | None:
    """How the shop sells the fresh produce or canned goods `name` names, or None. What these hold is known from the
    count (a can is 14 oz), so a pantry's cans and bunches convert to what a recipe measures; an opened jar or bottle
    of a staple holds an unknown rest, so staples (`staple_of`) are not among these."""
    words = ingredient_words(name)
    taxonomy = default_taxonomy()
    if words and store_section(name, None, taxonomy) == "canned" and not taxonomy.matches(name, "broths"):
        return next((can for phrases, can in _CANS if any(_holds(words, ingredient_words(phrase)) for phrase in phrases)), CAN)
    if not words or not _is_fresh(name, words):
        return None
    for phrases, purchase in _BY_NAME:
        if any(_holds(words, ingredient_words(phrase)) for phrase in phrases):
            return purchase
    return next((purchase for category, purchase in _BY_CATEGORY if taxonomy.matches(name, category)), None)


def _is_fresh(name: str, words: Words) -> bool:
    """Fresh produce (fresh ginger too): no word of a shelf form ('dried', 'oil'), and the produce section."""
    taxonomy = default_taxonomy()
    if any(word in NOT_FRESH for word in words):
        return False
    fresh_spice = any(word in FRESH_AMONG_SPICES for word in words) and taxonomy.matches(name, "spices")
    return fresh_spice or store_section(name, None, taxonomy) == "produce"


def staple_of(name: str) -> Purchase | None:
    """How a shelf holds the staple `name` names (by name, then by its taxonomy class), or None."""
    words = ingredient_words(name)
    for phrases, purchase in _STAPLES_BY_NAME:
        if any(_holds(words, ingredient_words(phrase)) for phrase in phrases):
            return purchase
    taxonomy = default_taxonomy()
    return next((purchase for category, purchase in STAPLE_CLASSES if taxonomy.matches(name, category)), None)


def measure_key(unit: str | None, volume_units: frozenset[str], mass_units: frozenset[str]) -> str:
    """The key a purchase holds an amount in this unit under: 'ml' for a volume, 'g' for a weight, else the unit."""
    if unit in volume_units:
        return "ml"
    if unit in mass_units:
        return "g"
    return unit or "piece"


def _holds(words: Words, phrase: Words) -> bool:
    return any(words[start:start + len(phrase)] == phrase for start in range(len(words) - len(phrase) + 1))


SOLD_CANNED = ("legumes", "vegetables", "fruit", "fish", "seafood")
"""Taxonomy classes a shop sells in cans as well (a can of beans, corn, peaches, tuna)."""
DRY_CLASSES = ("baking", "grains", "pasta", "legumes", "nuts", "seeds", "cheese", "spices", "herbs", "bread", "sweeteners")
"""Taxonomy classes measured dry: a cook writes cups of them however many, never quarts (quarts are poured)."""
POURED_WORDS = frozenset({"honey", "syrup", "molasses", "agave", "treacle", "extract", "oil", "vinegar", "sauce"})
"""Words that make a name of a dry class something poured ('maple syrup', 'vanilla extract')."""


SOLID_FATS = frozenset({"butter", "ghee", "shortening", "lard", "margarine"})
"""Fats measured by the cup as a solid (never '4 1/2 quarts butter': quarts are poured)."""


@cache
def is_dry(name: str) -> bool:
    """True for what is measured dry (flour, sugar, rice, grated cheese) or solid (butter): cups, never quarts."""
    words = ingredient_words(name)
    taxonomy = default_taxonomy()
    if any(word in SOLID_FATS for word in words) and not any(word in POURED_WORDS for word in words):
        return True
    return bool(words) and not any(word in POURED_WORDS for word in words) \
        and any(taxonomy.matches(name, category) for category in DRY_CLASSES)


@cache
def by_the_carton(name: str) -> bool:
    """True for a liquid sold by the carton (broth, stock, milk, cream): a cook writes cups of it, quarts only whole
    ('9 cups vegetable broth', '3 quarts'), never quarter quarts."""
    purchase = purchase_of(name)
    return purchase is not None and purchase.unit == "carton"


@cache
def can_size(name: str) -> float | None:
    """The ounces in a can of `name` as a recipe counts it in cans ('black beans' in a can: 15), or None: canned goods,
    and what is sold canned as well as dry or fresh (beans, vegetables, fruit, fish), not flour."""
    taxonomy = default_taxonomy()
    sold_canned = any(taxonomy.matches(name, category) for category in SOLD_CANNED)
    return can_weight(name) or (can_weight(f"canned {name}") if sold_canned else None)


def can_weight(name: str) -> float | None:
    """The ounces in one can of `name`, when it is canned goods bought by the can (None otherwise)."""
    purchase = purchase_of(name)
    return purchase.holds["g"] / OZ_G if purchase is not None and purchase.unit == "can" and "g" in purchase.holds else None


_TAP_WATER_WORDS = frozenset({
    "water", "cold", "hot", "warm", "lukewarm", "boiling", "iced", "ice", "tap", "filtered", "fresh", "room",
    "temperature", "room-temperature", "very", "just-boiled", "plain", "more", "extra",
})
"""The words of a recipe's water from the tap ('1 cup warm water', 'boiling water'); not sparkling, coconut or rose water."""


def is_tap_water(name: str) -> bool:
    """True for water a recipe takes from the tap ('water', 'cold water', 'boiling water'): never bought, so never on
    a shopping list; False for what is bought as water ('sparkling water', 'coconut water', 'tonic water')."""
    words = re.findall(r"[a-z-]+", name.lower().partition(",")[0])
    return "water" in words and set(words) <= _TAP_WATER_WORDS
