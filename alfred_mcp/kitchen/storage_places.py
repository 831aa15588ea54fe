"""Where a kitchen keeps what it buys, by the store section it is found in: fresh produce, meat, fish and dairy in the
fridge, frozen things in the freezer, bread on the counter, oils in the cabinet, dry and canned goods in the pantry.
Some fresh produce keeps out of the fridge, on the counter (`ON_THE_COUNTER`: onions, garlic, potatoes, tomatoes,
bananas, avocados, stone fruit, winter squash), as the demo kitchen keeps it; what is bought canned, dried or frozen is
kept by its form whatever section it was filed under (`BY_FORM`: a can of salmon in the pantry, frozen shrimp in the
freezer). Pure.
"""

from __future__ import annotations

from alfred_mcp.kitchen.ingredient_kinds import CANNED, DRIED, FROZEN, form_of
from alfred_mcp.kitchen.taxonomy import ingredient_words

KEPT_IN: dict[str, str] = {
    "produce": "fridge", "bakery": "counter", "meat": "fridge", "seafood": "fridge", "dairy": "fridge",
    "frozen": "freezer", "dry goods": "pantry", "baking": "pantry", "oils & vinegars": "cabinet", "canned": "pantry",
    "soups & broths": "pantry", "condiments": "pantry", "spices": "pantry", "snacks": "pantry", "beverages": "pantry",
}
"""Store section -> pantry location (`kitchen.schema.LOCATIONS`)."""
BY_FORM: dict[str, str] = {CANNED: "pantry", DRIED: "pantry", FROZEN: "freezer"}
"""Where a thing bought in that form is kept, whatever its section."""
ON_THE_COUNTER: tuple[str, ...] = (
    "onion", "garlic", "shallot", "potato", "sweet potato", "yam", "taro", "cassava", "yuca",
    "tomato", "banana", "plantain", "avocado", "mango", "pineapple", "papaya", "coconut",
    "peach", "nectarine", "apricot", "plum", "melon", "watermelon", "cantaloupe", "honeydew",
    "winter squash", "butternut squash", "acorn squash", "spaghetti squash", "kabocha", "delicata", "pumpkin",
)
"""Fresh produce kept out of the fridge (the cold spoils its taste or texture, or it ripens on the counter)."""
IN_THE_FRIDGE_EVEN_SO: tuple[str, ...] = (
    "green onion", "spring onion", "scallion", "chive", "leek", "garlic scape", "banana pepper", "banana leaf",
    "tomatillo",
)
"""Produce whose name holds a counter word but that keeps in the fridge ('green onions', 'garlic chives')."""


def kept_in(section: str, name: str | None = None, unit: str | None = None, notes: str | None = None) -> str | None:
    """The location a thing from this store section is kept in: by its form when its `name` (`unit`, `notes`) say
    canned, dried or frozen; fresh produce by its name (`ON_THE_COUNTER`); else by the section. None for a section of no
    known place."""
    form = form_of(name, unit, notes) if name else None
    if form in BY_FORM:
        return BY_FORM[form]
    if section == "produce" and name and _on_the_counter(name):
        return "counter"
    return KEPT_IN.get(section)


def _on_the_counter(name: str) -> bool:
    words = ingredient_words(name)
    return _holds_any(words, ON_THE_COUNTER) and not _holds_any(words, IN_THE_FRIDGE_EVEN_SO)


def _holds_any(words: tuple[str, ...], phrases: tuple[str, ...]) -> bool:
    for phrase in phrases:
        wanted = ingredient_words(phrase)
        size = len(wanted)
        if any(words[start:start + size] == wanted for start in range(len(words) - size + 1)):
            return True
    return False
