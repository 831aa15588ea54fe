"""Amounts inside a recipe's steps, scaled with its ingredients: 'Toss the chicken with 1 tsp garam masala and 1 tsp
salt' for 4 is '... 1/4 tsp garam masala and 1/4 tsp salt' for 1.

Only what is certain is scaled: a number and a measuring unit (tsp, tbsp, cup, oz, lb, g, ml...) right before the name
of one of the recipe's ingredients ('1 tsp garam masala'), or its last word ('1 tsp salt' for kosher salt, '1 tbsp oil'
for olive oil), 'of' or 'the' allowed between. Everything else is left as written: counts without a unit ('the 2
eggs'), times, temperatures and sizes ('8 minutes', '425°F', '1/2-inch'), a can's size ('1 (14-oz) can'), and amounts
of what is not an ingredient ('1/4 cup of batter'). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from alfred_mcp.kitchen.measures import Amount, sensible
from alfred_mcp.kitchen.taxonomy import ingredient_words
from alfred_mcp.kitchen.units import is_known_unit, normalize_unit, parse_quantity

_UNITS = (r"teaspoons?|tsp|tablespoons?|tbsp|cups?|fluid ounces?|fl oz|ounces?|oz|pounds?|lbs?|grams?|g|kilograms?|kg|"
          r"millilit(?:er|re)s?|ml|lit(?:er|re)s?|l|quarts?|pints?")
_STEP_AMOUNT = re.compile(
    rf"(?<![\w/.°(-])(?P<number>\d+\s+\d+/\d+|\d+/\d+|\d+(?:\.\d+)?)\s+(?P<unit>{_UNITS})\.?(?![\w-])"
    r"(?P<between>\s+(?:of\s+)?(?:the\s+)?)(?P<rest>[A-Za-z][A-Za-z' -]*)", re.IGNORECASE)
_MEASURES = frozenset({"tsp", "tbsp", "cup", "fl oz", "oz", "lb", "g", "kg", "ml", "l", "quart", "pint"})


def scaled_steps(steps: Sequence[str], names: Iterable[str], factor: float) -> list[str]:
    """`steps` with each amount of one of the ingredients `names` times `factor`, written as a cook writes it."""
    if abs(factor - 1.0) < 1e-9:
        return list(steps)
    named = [words for words in (ingredient_words(name) for name in names) if words]
    return [_STEP_AMOUNT.sub(lambda match: _scaled(match, named, factor), step) for step in steps]


def _scaled(match: re.Match[str], named: list[tuple[str, ...]], factor: float) -> str:
    unit = normalize_unit(match.group("unit").lower())
    value = parse_quantity(match.group("number")).value
    following = ingredient_words(match.group("rest"))[:4]
    if value is None or not is_known_unit(unit) or unit not in _MEASURES or not following:
        return match.group(0)
    name = next((" ".join(words) for words in named if following[:len(words)] == words or following[0] == words[-1]), None)
    if name is None:
        return match.group(0)
    shown = sensible(Amount(value * factor, unit), name)
    return f"{shown.text}{match.group('between')}{match.group('rest')}"
