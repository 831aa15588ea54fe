"""Amounts inside a recipe's steps, scaled with its ingredients: 'Toss the chicken with 1 tsp garam masala and 1 tsp
salt' for 4 is '... 1/4 tsp garam masala and 1/4 tsp salt' for 1.

Only what is certain is scaled: a number and a measuring unit (tsp, tbsp, cup, oz, lb, g, ml...) right before the name
of one of the recipe's ingredients ('1 tsp garam masala'), or its last word ('1 tsp salt' for kosher salt, '1 tbsp oil'
for olive oil), 'of' or 'the' allowed between. Everything else is left as written: counts without a unit ('the 2
eggs'), times, temperatures and sizes ('8 minutes', '425°F', '1/2-inch'), a can's size ('1 (14-oz) can'), and amounts
of what is not an ingredient ('1/4 cup of batter'), but water or a liquid an ingredient soaks or cooks in ('1 cup hot
water' for the porcini) scales with the ingredient the step names, as its line was scaled. An amount is written in the
unit of its ingredient's scaled line ('2 tbsp butter' beside '1/3 cup', not '5 tsp'); a counted thing a step names
agrees with its scaled line ('the egg' beside 1 egg: `agreeing`). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NamedTuple

from alfred_mcp.kitchen.measures import Amount, Shown, sensible, sensible_in
from alfred_mcp.kitchen.plurals import UNCOUNTED_WORDS, plural, singular
from alfred_mcp.kitchen.taxonomy import ingredient_words
from alfred_mcp.kitchen.units import is_known_unit, normalize_unit, parse_quantity

_UNITS = (r"teaspoons?|tsp|tablespoons?|tbsp|cups?|fluid ounces?|fl oz|ounces?|oz|pounds?|lbs?|grams?|g|kilograms?|kg|"
          r"millilit(?:er|re)s?|ml|lit(?:er|re)s?|l|quarts?|pints?")
_STEP_AMOUNT = re.compile(
    rf"(?<![\w/.°(-])(?P<number>\d+\s+\d+/\d+|\d+/\d+|\d+(?:\.\d+)?)\s+(?P<unit>{_UNITS})\.?(?![\w-])"
    r"(?P<between>\s+(?:of\s+)?(?:the\s+)?)(?P<rest>[A-Za-z][A-Za-z' -]*)", re.IGNORECASE)
_MEASURES = frozenset({"tsp", "tbsp", "cup", "fl oz", "oz", "lb", "g", "kg", "ml", "l", "quart", "pint"})


_LIQUIDS = frozenset({"water", "liquid", "brine"})
"""What an ingredient soaks or cooks in ('1 cup hot water' for the porcini): its amount scales with that ingredient."""
_LIQUID_WORDS = frozenset({"hot", "warm", "cold", "boiling", "soaking", "cooking", "reserved", "salted", "pasta", "its"})


class StepAmount(NamedTuple):
    """An amount a scaled step writes: of `name` (an ingredient, or the liquid it soaks in), in the unit of its line."""

    name: str
    shown: Shown
    line_unit: str | None
    written: Amount | None = None
    """The amount as the step wrote it before scaling."""


def scaled_steps(steps: Sequence[str], names: Iterable[str], factor: float, units: Mapping[str, str | None] | None = None,
                 factors: Mapping[str, float] | None = None) -> list[str]:
    """`steps` with each amount of one of the ingredients `names` times the factor its line was scaled by once rounded
    (`factors`, by name; else `factor`), so the parts of a divided line add up to the line as shown ('2 1/2 tbsp butter'
    twice and the rest beside '1/2 cup butter, divided', not 3 tbsp twice), written as a cook writes it, in the
    unit its scaled ingredient line uses (`units`, by name: '2 tbsp butter' beside '1/3 cup butter', not '5 tsp'); an
    amount of water or liquid scales with the ingredient the step names, by the factor its line was scaled by
    (1 oz of porcini shown for 1 1/4 soak in 2 cups, not 2 1/2)."""
    return [text for text, _ in _scaled_all(steps, names, factor, units, factors)]


_AFTER_NOUN = r"(?=\s*(?:[,.;:)!]|$|\s(?:and|or|in|into|with|to|on|over|until|together|for)\b))"
"""What follows a word used as a noun ('the egg, the yolk and', 'the eggs into'), not as a word before one ('egg mixture')."""


def agreeing(step: str, counts: Mapping[str, tuple[float, float]]) -> str:
    """`step` with each counted thing it names in the number its scaled line now has, where scaling changed it: 'the
    eggs' beside a line of 1 egg is 'the egg', 'the yolk' beside 3 extra yolks 'the yolks'. `counts`: by a thing's
    word (singular, 'egg'), its count as written and as scaled; a word the line's number did not change is left."""
    for word, (written, scaled) in counts.items():
        if (written > 1 + 1e-9) == (scaled > 1 + 1e-9) or word in UNCOUNTED_WORDS:
            continue
        one, many = singular(word), plural(singular(word))
        said, shown = (many, one) if scaled <= 1 + 1e-9 else (one, many)
        step = re.sub(rf"(?<![\d/-])\b(?<!\d )({re.escape(said)})\b{_AFTER_NOUN}", _written_as(shown), step, flags=re.IGNORECASE)
    return step


def _written_as(word: str) -> Callable[[re.Match[str]], str]:
    """A replacement writing `word` in the case of what it replaces ('Eggs' -> 'Egg')."""
    return lambda found: word.capitalize() if found.group(1)[:1].isupper() else word


def step_amounts(steps: Sequence[str], names: Iterable[str], factor: float, units: Mapping[str, str | None] | None = None,
                 factors: Mapping[str, float] | None = None) -> list[StepAmount]:
    """Every amount `scaled_steps` writes, with what it is of and the unit of that ingredient's line."""
    return [amount for _, amounts in _scaled_all(steps, names, factor, units, factors) for amount in amounts]


def left_as_written(steps: Sequence[str], names: Iterable[str]) -> list[str]:
    """The amounts in `steps` that scaling leaves as written because they are not of an ingredient ('1/4 cup of
    batter', a portion), each as the step writes it: what a scaled recipe says it did not scale, and why."""
    left: list[str] = []
    _scaled_all(steps, names, 2.0, None, None, left)
    return left


def _scaled_all(steps: Sequence[str], names: Iterable[str], factor: float, units: Mapping[str, str | None] | None,
                factors: Mapping[str, float] | None, left: list[str] | None = None) -> list[tuple[str, list[StepAmount]]]:
    if abs(factor - 1.0) < 1e-9:
        return [(step, []) for step in steps]
    named = {words: name for name in names if (words := ingredient_words(name))}
    line_units = {ingredient_words(name): unit for name, unit in (units or {}).items()}
    line_factors = {ingredient_words(name): value for name, value in (factors or {}).items()}
    scaled = []
    for step in steps:
        found: list[StepAmount] = []
        said = set(ingredient_words(step))
        soaked = _named_most(named, said)
        context = _Step(named, line_units, line_factors, factor, factor if soaked is None else line_factors.get(soaked, factor), found,
                        [] if left is None else left)
        scaled.append((_STEP_AMOUNT.sub(context.scaled, step), found))
    return scaled


class _Step(NamedTuple):
    named: Mapping[tuple[str, ...], str]
    units: Mapping[tuple[str, ...], str | None]
    factors: Mapping[tuple[str, ...], float]
    factor: float
    liquid_factor: float
    found: list[StepAmount]
    left: list[str]

    def scaled(self, match: re.Match[str]) -> str:
        unit = normalize_unit(match.group("unit").lower())
        value = parse_quantity(match.group("number")).value
        following = ingredient_words(match.group("rest"))[:4]
        if value is None or not is_known_unit(unit) or unit not in _MEASURES or not following:
            return match.group(0)
        words = next((words for words in self.named if _names(following, words)), None)
        if words is not None:
            name, line_unit = " ".join(words), self.units.get(words)
            shown = sensible_in(Amount(value * self.factors.get(words, self.factor), unit), line_unit, name)
        elif _is_liquid(following):
            name, line_unit = "water", None
            shown = sensible(Amount(value * self.liquid_factor, unit), name)
        else:
            self.left.append(f"{match.group('number')} {match.group('unit')}{match.group('between')}{match.group('rest').strip()}")
            return match.group(0)
        self.found.append(StepAmount(name, shown, line_unit, Amount(value, unit)))
        return f"{shown.text}{match.group('between')}{match.group('rest')}"


def _names(following: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """True when the words after an amount name the ingredient: all its words, its last ('1 tsp salt' for kosher salt),
    its first two ('1/2 oz dried porcini' for dried porcini mushrooms), or a word after its first ('porcini')."""
    return following[:len(words)] == words or following[0] == words[-1] \
        or (len(words) > 2 and following[:2] == words[:2]) or following[0] in words[1:]


def _named_most(named: Iterable[tuple[str, ...]], said: set[str]) -> tuple[str, ...] | None:
    """The ingredient a step names most clearly (more of its words, its distinctive first ones counted double)."""
    scores = {words: sum(word in said for word in words[:-1]) * 2 + (words[-1] in said) for words in named}
    best = max(scores, key=lambda words: scores[words], default=None)
    return best if best is not None and scores[best] else None


def _is_liquid(words: tuple[str, ...]) -> bool:
    """'water', 'hot water', 'the soaking liquid': what an ingredient soaks or cooks in."""
    for word in words[:3]:
        if word in _LIQUIDS:
            return True
        if word not in _LIQUID_WORDS:
            return False
    return False
