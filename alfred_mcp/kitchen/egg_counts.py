"""Whole eggs a recipe line calls for, yolks and whites included: what a shopper buys eggs for.

'3 large eggs, plus 1 extra yolk' is 4 eggs; '2 egg yolks' is 2 eggs; '4 egg whites' is 4 eggs. At a factor, each
count is rounded as the scaled recipe writes it (`measures.sensible`: eggs and yolks whole), so the list buys what the
scaled cards say: carbonara for 6 is '5 large eggs, plus 2 extra yolks', 7 eggs. A yolk and a white of the same line
come from one egg. A line measured by volume or weight ('1 cup egg whites') is not counted here. Less than two thirds of
an egg is one egg beaten and part of it used (`part_of_an_egg`: 'beat it and use about 1 1/2 tbsp'). Pure.
"""

from __future__ import annotations

import re

from alfred_mcp.kitchen.measures import Amount, sensible
from alfred_mcp.kitchen.taxonomy import ingredient_words
from alfred_mcp.kitchen.units import parse_quantity

EGGS = "eggs"
_COUNTED_UNITS = frozenset({None, "", "piece", "egg", "large", "medium", "small", "yolk", "white", "whole"})
_WORDS = {"a": 1.0, "an": 1.0, "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "six": 6.0}
_PARTS = re.compile(
    r"(?P<number>\d+(?:\s+\d+/\d+)?|\d+/\d+|a|an|one|two|three|four|five|six)\s+"
    r"(?:(?:extra|more|additional|large|medium|small|egg)\s+)*(?P<part>yolk|white)s?\b", re.IGNORECASE)


def egg_part(name: str) -> str | None:
    """'egg' for a line of whole eggs, 'yolk' or 'white' for a line of their parts, None for anything else."""
    words = ingredient_words(name)
    if not words:
        return None
    if words[-1] == "egg":
        return "egg"
    if words[-1] == "yolk" or words[-1] == "white" and "egg" in words:
        return words[-1]
    return None


EGG_TBSP = 3.25
"""What one large egg beaten measures, in tablespoons (about 50 ml)."""
PART_BELOW = 2 / 3
"""Less of an egg than this is beaten and measured; from it, a whole egg is used."""


def part_of_an_egg(name: str, exact: float | None) -> str | None:
    """What a line of one egg says when the recipe needs less than two thirds of one ('beat it and use about 1 1/2
    tbsp' for half an egg); None for whole eggs, yolks and whites (a part of a yolk is not measured), or more."""
    if egg_part(name) != "egg" or exact is None or not 0 < exact < PART_BELOW:
        return None
    return f"beat it and use about {sensible(Amount(exact * EGG_TBSP, 'tbsp'), EGGS).text}"


def whole_eggs(count: float) -> float:
    """A count of eggs (or yolks, or whites) as a recipe writes it: whole."""
    return sensible(Amount(count, "piece"), EGGS).quantity


def extra_parts(notes: str | None) -> dict[str, float]:
    """The yolks and whites a line's notes add ('plus 3 extra yolks': {'yolk': 3.0}), as written."""
    extra: dict[str, float] = {}
    for match in _PARTS.finditer(notes or ""):
        number = match.group("number").lower()
        value = _WORDS.get(number) or parse_quantity(number).value
        if value:
            extra[match.group("part").lower()] = extra.get(match.group("part").lower(), 0.0) + value
    return extra


def eggs_needed(name: str, quantity: float | None, unit: str | None, notes: str | None, factor: float) -> float | None:
    """The whole eggs the line needs at `factor` (its own count plus the yolks or whites its notes add), or None when
    the line is not eggs or their parts counted by the piece."""
    part = egg_part(name)
    if part is None or quantity is None or (unit or None) not in _COUNTED_UNITS:
        return None
    extra = {"yolk": 0.0, "white": 0.0}
    for added, value in extra_parts(notes).items():
        extra[added] += whole_eggs(value * factor)
    own = whole_eggs(quantity * factor)
    if part == "egg":
        return own + max(extra.values())
    extra[part] += own  # yolks or whites: one egg each, the other part of the same eggs comes with them
    return max(extra.values())


def parts_needed(name: str, quantity: float | None, unit: str | None, notes: str | None, factor: float) -> dict[str, float]:
    """The yolks and whites the eggs of `eggs_needed` are bought for, each count as the scaled card writes it ('8 large
    eggs, plus 3 extra yolks' at its servings: {'yolk': 3.0}; '4 egg whites': {'white': 4.0}); empty for whole eggs only."""
    part = egg_part(name)
    if part is None or quantity is None or (unit or None) not in _COUNTED_UNITS:
        return {}
    parts = {added: whole_eggs(value * factor) for added, value in extra_parts(notes).items()}
    if part != "egg":
        parts[part] = parts.get(part, 0.0) + whole_eggs(quantity * factor)
    return {added: count for added, count in parts.items() if count > 0}
