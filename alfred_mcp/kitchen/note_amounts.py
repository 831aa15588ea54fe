"""Amounts written inside an ingredient's notes, scaled with the line: 'plus 1 extra yolk' for 4 is 'plus 3 extra
yolks' for 12, 'soaked in 1 cup hot water' doubles with the recipe.

What is not an amount of the recipe stays as written: a size per piece ('about 6 oz each', '4 oz per fillet'), a
container's size ('14 oz' on a line of cans), times, lengths and temperatures ('10 minutes', '2-inch pieces',
'350°F'), and a bare number (a range kept as written, '2-3'). Pure.
"""

from __future__ import annotations

import re

from alfred_mcp.kitchen.measures import Amount, quantity_text, sensible
from alfred_mcp.kitchen.plurals import counted_name
from alfred_mcp.kitchen.units import is_known_unit, normalize_unit, parse_quantity

_NUMBER = r"\d+(?:\.\d+)?(?:\s+\d+/\d+)?|\d+/\d+"
_AMOUNT = re.compile(rf"(?<![\w/.°-])(?P<number>{_NUMBER})\s+(?P<words>[A-Za-z][A-Za-z-]*(?:\s+[A-Za-z][A-Za-z-]*)?)")
_PER_PIECE = re.compile(r"\b(?:each|per|apiece|a piece)\b", re.IGNORECASE)
_NOT_AMOUNTS = frozenset({
    "minute", "minutes", "min", "mins", "hour", "hours", "hr", "hrs", "second", "seconds", "sec", "day", "days",
    "inch", "inches", "in", "cm", "mm", "degree", "degrees", "percent", "times", "x", "or", "to", "and",
})
_CONTAINERS = frozenset({"can", "jar", "bottle", "package", "pack", "bag", "carton", "box", "tin", "tube", "packet", "container"})


def scaled_notes(notes: str, factor: float, line_unit: str | None, measured_factor: float | None = None) -> str:
    """`notes` with each amount of the recipe in them times `factor`, written as a cook writes it; a measured amount
    (a volume, a weight) times `measured_factor`, the factor the line itself was scaled by once rounded: 1 oz of
    porcini shown for 1 1/4 soak in 2 cups of water, not 2 1/2 (a count, '1 extra yolk', scales as the recipe)."""
    if abs(factor - 1.0) < 1e-9:
        return notes
    parts = re.split(r"(;\s*|,\s*)", notes)
    factors = (factor, factor if measured_factor is None else measured_factor)
    return "".join(part if index % 2 else _scaled_segment(part, factors, line_unit) for index, part in enumerate(parts))


def _scaled_segment(segment: str, factors: tuple[float, float], line_unit: str | None) -> str:
    if _PER_PIECE.search(segment):
        return segment
    if line_unit in _CONTAINERS and _AMOUNT.fullmatch(segment.strip(" ()")):
        return segment  # '14 oz' on a line of cans: the size of one
    return _AMOUNT.sub(lambda match: _scaled(match, factors), segment)


def _scaled(match: re.Match[str], factors: tuple[float, float]) -> str:
    factor, measured_factor = factors
    value = parse_quantity(match.group("number")).value
    words = match.group("words")
    first, _, after = words.partition(" ")
    if value is None or first.lower() in _NOT_AMOUNTS:
        return match.group(0)
    unit = normalize_unit(first)
    if is_known_unit(unit) and unit != "piece":
        shown = sensible(Amount(value * measured_factor, unit), after or None)
        return f"{shown.text} {after}".rstrip()
    shown = sensible(Amount(value * factor, None), words)
    return f"{quantity_text(shown.quantity)} {counted_name(words, shown.quantity)}"
