"""Where a kitchen keeps what it buys, by the store section it is found in: fresh produce, meat, fish and dairy in the
fridge, frozen things in the freezer, bread on the counter, oils in the cabinet, dry and canned goods in the pantry.
Pure."""

from __future__ import annotations

KEPT_IN: dict[str, str] = {
    "produce": "fridge", "bakery": "counter", "meat": "fridge", "seafood": "fridge", "dairy": "fridge",
    "frozen": "freezer", "dry goods": "pantry", "baking": "pantry", "oils & vinegars": "cabinet", "canned": "pantry",
    "soups & broths": "pantry", "condiments": "pantry", "spices": "pantry", "snacks": "pantry", "beverages": "pantry",
}
"""Store section -> pantry location (`kitchen.schema.LOCATIONS`)."""


def kept_in(section: str) -> str | None:
    """The location a thing from this store section is kept in; None for a section of no known place."""
    return KEPT_IN.get(section)
