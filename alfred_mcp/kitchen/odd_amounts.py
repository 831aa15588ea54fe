"""What makes an amount line read oddly to a cook: explicit rules, one name per rule, for tests and the benchmark.

A line is judged from what a person sees (its text) and what it says (quantity, unit, name):

- ``decimal``: a number with more than 2 decimal places ('1.9583 tbsp').
- ``zero``: an amount of nothing ('0 tsp').
- ``fraction of a whole item``: a fraction of something counted whole: a clove, fillet, slice, egg,
  pinch... always; any counted thing on a shopping list (nobody buys 4 1/2 shallots); a counted piece
  above 1 in a recipe ('2 1/2 lemons': halves and quarters are for less than one).
- ``too many spoons``: more than 4 tbsp (that is cups), or 3 tsp or more (that is tablespoons).
- ``cup no measure holds``: a cup amount that is not in quarters or thirds ('1 1/8 cups').
- ``spoon no measure holds``: teaspoons not in quarters (1/8 alone excepted: '5/8 tsp', '1/3 tsp'), tablespoons
  not in halves ('1 1/4 tbsp').
- ``unit repeated in the name``: the unit is also a word of the name ('1 fillet salmon fillets').
- ``plural disagreement``: '2 cup', '1 cups', '3 shallot', '1 green onions'.
- ``same ingredient on two lines`` (a list's rule, `repeated_ingredients`).

Pure: no I/O. The rules describe the reader, not the code that writes the lines, so both can be checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fractions import Fraction

from alfred_mcp.kitchen.plurals import UNCOUNTED_WORDS
from alfred_mcp.kitchen.taxonomy import ingredient_words, singular

WHOLE_UNITS = frozenset({
    "clove", "fillet", "slice", "sprig", "leaf", "ear", "strip", "sheet", "stalk", "pinch", "dash", "drop", "splash",
    "handful", "scoop", "cube", "egg",
})
"""Units counted whole wherever they are written: nobody writes half a clove or half a pinch."""
MASS_OR_VOLUME = frozenset({
    "tsp", "tbsp", "cup", "fl oz", "pint", "quart", "gallon", "ml", "l", "g", "kg", "oz", "lb",
})
_INVARIANT = frozenset({"tsp", "tbsp", "fl oz", "ml", "l", "g", "kg", "oz", "lb"})
_LONG_DECIMAL = re.compile(r"\d\.\d{3,}")
_NUMBER_THEN_WORD = re.compile(r"(\d+ \d+/\d+|\d+/\d+|\d+(?:\.\d+)?) ([A-Za-z]+)")
_SPOON_AMOUNT = re.compile(r"(\d+ \d+/\d+|\d+/\d+|\d+(?:\.\d+)?) (cups?|tbsp|tsp)\b")
WHOLE_NAMES = frozenset({"egg"})
"""Pieces a recipe never splits."""


def oddities(text: str, quantity: float | None, unit: str | None, name: str, *, shopping: bool) -> list[str]:
    """The rules above that the line breaks (empty: it reads as a person writes it)."""
    found: list[str] = []
    if _LONG_DECIMAL.search(text):
        found.append("decimal")
    if quantity is None:
        return found
    if quantity <= 0:
        found.append("zero")
        return found
    unit = None if unit == "piece" else unit
    name_words = ingredient_words(name)
    counted = unit not in MASS_OR_VOLUME
    whole_thing = unit in WHOLE_UNITS or (unit is None and bool(name_words) and name_words[-1] in WHOLE_NAMES)
    fraction = abs(quantity - round(quantity)) > 1e-6
    if fraction and counted and (shopping or whole_thing or (unit is None and quantity > 1)):
        found.append("fraction of a whole item")
    spoons = _spoon_amounts(text)
    if any((shown == "tbsp" and amount > 4 + 1e-9) or (shown == "tsp" and amount >= 3 - 1e-9) for amount, shown in spoons):
        found.append("too many spoons")
    if any(shown == "cup" and not _in_cup_measures(amount) for amount, shown in spoons):
        found.append("cup no measure holds")
    if any(not _in_steps(amount, 4 if shown == "tsp" else 2) and not (shown == "tsp" and abs(amount - 1 / 8) < 1e-6)
           for amount, shown in spoons if shown != "cup"):
        found.append("spoon no measure holds")
    if unit and _shown_count(text, unit) > _shown_count(name, unit) >= 1:
        found.append("unit repeated in the name")
    if _plural_disagrees(text, quantity, unit, name):
        found.append("plural disagreement")
    return found


def repeated_ingredients(names: Iterable[str]) -> list[str]:
    """Names of ingredients that appear on more than one line ('shallot' and 'Shallots' are the same)."""
    seen: dict[tuple[str, ...], int] = {}
    for name in names:
        key = ingredient_words(name)
        seen[key] = seen.get(key, 0) + 1
    return sorted(" ".join(key) for key, count in seen.items() if count > 1)


def _spoon_amounts(text: str) -> list[tuple[float, str]]:
    """Every '<number> tsp|tbsp|cup(s)' the text shows ('1/2 cup + 1 tbsp' has two)."""
    return [(_number(match.group(1)), "cup" if match.group(2).startswith("cup") else match.group(2))
            for match in _SPOON_AMOUNT.finditer(text)]


def _number(text: str) -> float:
    whole, _, fraction = text.rpartition(" ")
    value = Fraction(fraction) if "/" in fraction else Fraction(float(fraction))
    return float(value + (int(whole) if whole else 0))


def _shown_count(text: str, unit: str) -> int:
    """How often the unit stands as a word of its own ('flat-leaf' is one word, not a leaf)."""
    return sum(1 for word in re.findall(r"[a-z]+(?:-[a-z]+)*", text.lower()) if singular(word) == singular(unit))


def _in_cup_measures(quantity: float) -> bool:
    return _in_steps(quantity, 4) or _in_steps(quantity, 3)


def _in_steps(quantity: float, step: int) -> bool:
    rest = float(Fraction(quantity).limit_denominator(48) % 1)
    return abs(rest * step - round(rest * step)) < 1e-6


def _plural_disagrees(text: str, quantity: float, unit: str | None, name: str) -> bool:
    many = quantity > 1 + 1e-9
    if unit is not None and unit not in _INVARIANT:
        for match in _NUMBER_THEN_WORD.finditer(text):
            shown = match.group(2).lower()
            if singular(shown) == unit:
                return (shown != unit) != (_number(match.group(1)) > 1 + 1e-9)
        return False
    if unit is None:
        last = _last_name_word(text, name)
        if last is None or last in UNCOUNTED_WORDS:
            return False
        plural = singular(last) != last
        return plural != many
    return False


def _last_name_word(text: str, name: str) -> str | None:
    """The name's last word as the text shows it (the text may have made it agree with the amount)."""
    words = re.findall(r"[a-z]+", text.lower())
    name_words = re.findall(r"[a-z]+", name.lower())
    if not name_words or not words:
        return None
    tail = words[-1]
    return tail if singular(tail) == singular(name_words[-1]) else None
