"""What makes an amount line read oddly to a cook: explicit rules, one name per rule, for tests and the benchmark.

A line is judged from what a person sees (its text) and what it says (quantity, unit, name):

- ``decimal``: a number with more than 2 decimal places ('1.9583 tbsp').
- ``zero``: an amount of nothing ('0 tsp').
- ``fraction of a whole item``: a fraction of something counted whole: a clove, fillet, slice, egg,
  pinch... always; any counted thing on a shopping list (nobody buys 4 1/2 shallots); a counted piece
  above 1 in a recipe other than 1 1/2 ('2 1/2 lemons', '1 3/4 onions': quarters are for less than one).
- ``too many spoons``: 8 tbsp or more (that is cups), tablespoons a cup measure holds ('4 tbsp' is 1/4 cup), or 3 tsp
  or more ('3 tsp' is 1 tbsp, '5 tsp' is '1 tbsp + 2 tsp', '3 1/2 tsp' of baking powder '1 tbsp + 1/2 tsp'). '4 1/2
  tbsp' and '6 tbsp' are how a cook writes what no cup measure holds.
- ``spoons added to spoons``: a compound of measures other than whole tablespoons and teaspoons below a tablespoon in
  a recipe ('1/2 cup + 1 tbsp', '1 tbsp + 1 1/2 tsp', which is 1 1/2 tbsp; any compound on a shopping list, which
  rounds up to one measure): a cook writes '1/2 cup', and '1 tbsp + 2 tsp' for 5 tsp.
- ``compound a cook would not write``: an added part that is not whole ('1/4 cup + 1/2 tbsp', '1 tbsp + 3/4 tsp';
  a half teaspoon excepted), or cups and tablespoons below half a cup ('1/4 cup + 2 tbsp' is 6 tbsp).
- ``quarts written as cups``: more than 8 cups of what is poured ('12 cups' of oil is 3 quarts); of a liquid sold by the
  carton (broth, milk), whole quarts only ('12 cups' of broth is 3 quarts, '9 cups' is how a cook writes it).
- ``too many cups to measure``: more than 12 cups of a liquid sold by the carton that is not whole quarts ('13 1/2
  cups vegetable broth' is '3 quarts 1 1/2 cups'): a cook measures the quarts by the carton and the rest in cups.
- ``part can without what to use``: in a recipe, part of a can that does not say what to open and measure ('2 1/4
  (14-oz) cans crushed tomatoes' alone; with 'open 3 cans: 2 and about 1/2 cup of the third' it reads).
- ``part quarts of a carton liquid``: broth, stock, milk or cream in quarter quarts ('1 1/4 quarts', '2 1/4 quarts
  vegetable broth'): a cook writes cups of it, and quarts (cartons) only whole.
- ``weight no scale shows``: pounds not in quarters ('1 7/8 lb'), ounces not in halves from 1 oz, nor in quarters or
  thirds below it ('3/8 oz').
- ``rounded far from the amount``: the amount shown is more than 25% away from the exact one (`exact`, a scaled
  line's `rounded_from`): '1/8 tsp' for 1/16 (a pinch), '2 red onions' for 1 1/2. Things counted whole (a clove, an
  egg, a pinch) and pieces below one are rounded as they must be; teaspoons from 1/8 up may move by 1/8 tsp (3/8 tsp
  is written 1/2), grams and millilitres by half of one, and less than 1/4 oz is written 1/4 oz. A shopping list rounds up to what is bought, as it must.
- ``cut a cook would not make``: in a recipe, part of a piece (an onion, a lemon) that is not the cut nearest the
  exact amount among 1/4, 1/3, 1/2, 2/3, 3/4 and 1 ('1/4 onion' for a third, '3/4 carrot' for two thirds).
- ``cans written as a weight``: in a recipe, canned goods weighed out in whole or half cans ('1 3/4 lb crushed
  tomatoes' is 2 (14-oz) cans).
- ``part cans written as a weight``: in a recipe, canned goods weighed out in quarter cans from half a can ('17 1/2 oz
  crushed tomatoes' is 1 1/4 (14-oz) cans, '7 oz' 1/2 can).
- ``can without its size``: in a recipe, cans that do not say which can, at any count ('1/4 can black beans', '3 cans
  chickpeas', not '1/4 (15-oz) can', '3 (15-oz) cans').
- ``ounces past a pound``: a weight of 16 oz or more in ounces ('30 oz potatoes' is about 2 lb, '18 oz' 1 lb 2 oz).
- ``dry goods by the quart``: quarts of what is measured dry ('4 1/2 quarts flour' is 18 cups): quarts are poured.
- ``each with one``: 'each' said of a single thing ('1 cod fillet, about 6 oz each').
- ``quality not hyphenated``: a quality the vocabulary hyphenates written apart before the name ('1 skin on salmon
  fillet' is '1 skin-on salmon fillet').
- ``unit you cannot buy``: on a shopping list, fresh produce or a shelf staple in a measure the shop does not sell it
  by ('1 1/2 tsp ginger', '3/4 tsp thyme', '2 handfuls cilantro', '1 tbsp black pepper', '1/2 cup chicken broth',
  '3/4 tsp vanilla extract'): `bought_as.purchase_of` says what one piece, bunch, jar, bottle, carton or bag holds.
- ``cup no measure holds``: a cup amount that is not in quarters or thirds ('1 1/8 cups').
- ``spoon no measure holds``: teaspoons not in quarters (1/8 alone excepted: '5/8 tsp', '1/3 tsp'), tablespoons
  not in halves ('1 1/4 tbsp').
- ``unit repeated in the name``: the unit is also a word of the name ('1 fillet salmon fillets').
- ``plural disagreement``: '2 cup', '1 cups', '3 shallot', '1 green onions'.
- ``same ingredient on two lines`` (a list's rule, `repeated_ingredients`).
- ``need rounded down``: on a shopping list (a line or a pantry note), an amount needed shown below the exact one
  ('need 2 1/2 quarts' for 2 5/8): a need is rounded up to what a cook writes, never down.
- ``check where it compares`` (a pantry note's rule, `note_oddities`): 'check there is enough' although every amount
  the pantry holds compares with the need as the shop sells it ('need 3/4 cup flour, the pantry has 5 lb': a bag of
  flour is about 18 cups, so it is covered).
- ``check a cook could weigh`` (a pantry note's rule): 'check there is enough' between a weight and a measure or count
  of cheese or fresh produce ('need 3/4 cup parmesan, the pantry has 6 oz': 6 oz grates to about 1 1/2 cups).
- ``shortfall not bought`` (a pantry note's rule): a note says the pantry is short, but nothing is bought for it
  and the note does not say why ('short by 2 1/2 cups' alone).
- ``step in another unit than its line`` (a scaled step's rule, `step_oddities`): a step's amount in a smaller unit
  than its ingredient's scaled line uses, although that unit holds it ('5 tsp butter' in a step beside '1/3 cup butter':
  2 tbsp); below the line unit's smallest measure (1/4 cup, 1 tbsp, 1 lb, 1 quart) the next smaller unit is right.
- ``part of an egg not said``: in a recipe, a line of one egg for less than two thirds of one ('1 egg' for a quarter
  of an egg) that does not say how much of it to use ('beat it and use about 2 1/2 tsp').
- ``thing named in another number than its line`` (a scaled step's rule, `step_number_oddities`): a step names a
  counted thing in the number its line had before scaling ('whisk the eggs' beside 1 egg, 'the yolk' beside 3 yolks).
- ``steps use more than the line`` and ``rest far from its share`` (a divided line's rules, `divided_oddities`): the
  amounts a scaled recipe's steps name of one ingredient ('3 tbsp butter' twice beside '1/2 cup butter, divided')
  add up to more than its line, or leave for the rest ('the last butter') more than a fifth (and more than a
  measure: 1/4 tsp, 1/2 tbsp) away from the rest's share of the line as written.
- ``two things on one line``: one line naming two ingredients ('salt and pepper'): the pantry and the shop see each.
- ``about disagrees with its line`` (`about_disagrees`): what the pantry holds, said of the same amount of a pack or
  piece as a line shows it, in another number ('about 2 1/3 bags' beside '2 1/2 bags' for 2.35; '2 1/3 bags' held
  exactly beside '2 1/2 bags', which must then say 'about'): one rounding rule for counts, everywhere.
- ``name disagrees with its line`` (`name_disagrees`): a note names the ingredient in another number than its line
  shows it ('salmon fillets' beside '1 salmon fillet').

Pure: no I/O. The rules describe the reader, not the code that writes the lines, so both can be checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fractions import Fraction

from alfred_mcp.kitchen.bought_as import (
    by_the_carton,
    can_size,
    can_weight,
    is_dry,
    measure_key,
    produce_purchase_of,
    purchase_of,
)
from alfred_mcp.kitchen.card_lines import STATE_WORDS
from alfred_mcp.kitchen.egg_counts import egg_part
from alfred_mcp.kitchen.ingredient_pairs import things_of
from alfred_mcp.kitchen.measures import about_in, convert
from alfred_mcp.kitchen.plurals import UNCOUNTED_WORDS
from alfred_mcp.kitchen.plurals import plural as plural_of
from alfred_mcp.kitchen.taxonomy import default_taxonomy, ingredient_words, singular
from alfred_mcp.kitchen.units import is_known_unit, normalize_unit

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
_WEIGHT_AMOUNT = re.compile(r"(\d+ \d+/\d+|\d+/\d+|\d+(?:\.\d+)?) (oz|lb)\b")
_LEADING_AMOUNT = re.compile(r"^(?:a |an |\d+ \d+/\d+ |\d+/\d+ |\d+(?:\.\d+)? )(fl oz|[a-z]+)")
_COMPOUND = re.compile(r"(\d+ \d+/\d+|\d+/\d+|\d+(?:\.\d+)?) (cups?|tbsp|tsp) \+ (\d+ \d+/\d+|\d+/\d+|\d+(?:\.\d+)?) (tbsp|tsp)\b")
_VOLUME = frozenset({"tsp", "tbsp", "cup", "fl oz", "pint", "quart", "gallon", "ml", "l"})
_MASS = frozenset({"g", "kg", "oz", "lb"})
FAR = 0.25
"""How far (a share of the exact amount) a rounded amount may be from it."""
WHOLE_NAMES = frozenset({"egg", "yolk"})
"""Pieces a recipe never splits."""


def oddities(text: str, quantity: float | None, unit: str | None, name: str, *, shopping: bool,
             exact: float | None = None, notes: str | None = None) -> list[str]:
    """The rules above that the line breaks (empty: it reads as a person writes it). `exact`: the amount before
    rounding, in the shown unit, when the line says it; `notes`: what the line says after it."""
    found: list[str] = []
    if _LONG_DECIMAL.search(text):
        found.append("decimal")
    if len(things_of(name)) > 1:
        found.append("two things on one line")
    if quantity is not None and quantity <= 1 + 1e-9 and _EACH.search(f"{text}, {notes or ''}"):
        found.append("each with one")
    if _odd_spoons_added(text, shopping=shopping):
        found.append("spoons added to spoons")
    if any(shown == "oz" and amount >= 16 - 1e-9 for amount, shown in _weights(text)):
        found.append("ounces past a pound")
    if _QUARTS.search(text) and is_dry(name):
        found.append("dry goods by the quart")
    if _PART_QUARTS.search(text) and by_the_carton(name):
        found.append("part quarts of a carton liquid")
    if _UNHYPHENATED.search(text):
        found.append("quality not hyphenated")
    if not shopping and _CAN_COUNT.search(text) and can_size(name) is not None:
        found.append("can without its size")
    if not shopping and _PART_CAN.search(text) and not _MEASURED_PART.search(notes or ""):
        found.append("part can without what to use")
    if any(shown == "cup" and amount > 12 + 1e-9 and not _in_steps(amount / 4, 1) for amount, shown in _spoon_amounts(text)) \
            and by_the_carton(name) and not is_dry(name):
        found.append("too many cups to measure")
    if quantity is None:
        return found
    if quantity <= 0:
        found.append("zero")
        return found
    unit = None if unit == "piece" else unit
    name_words = ingredient_words(name)
    counted = unit not in MASS_OR_VOLUME
    whole_thing = unit in WHOLE_UNITS or (unit is None and any(word in WHOLE_NAMES for word in name_words))
    fraction = abs(quantity - round(quantity)) > 1e-6
    one_and_a_half = abs(quantity - 1.5) < 1e-6
    if fraction and counted and (shopping or whole_thing or (unit is None and quantity > 1 and not one_and_a_half)):
        found.append("fraction of a whole item")
    spoons = _spoon_amounts(text)
    if any((shown == "tbsp" and (amount >= 8 - 1e-9 or (amount >= 4 - 1e-9 and _in_cup_measures(amount / 16))))
           or (shown == "tsp" and amount >= 3 - 1e-9)
           for amount, shown in spoons):
        found.append("too many spoons")
    if _odd_compound(text):
        found.append("compound a cook would not write")
    if any(shown == "cup" and amount > 8 + 1e-9 and (not by_the_carton(name) or _in_steps(amount / 4, 1)) for amount, shown in spoons) \
            and not is_dry(name):
        found.append("quarts written as cups")
    if any(not _in_steps(amount, 4) if shown == "lb" else not (_in_steps(amount, 2) if amount >= 1 else _in_cup_measures(amount))
           for amount, shown in _weights(text)):
        found.append("weight no scale shows")
    if exact is not None and not shopping and _rounded_far(quantity, exact, unit) and not whole_thing and not (counted and exact < 1):
        found.append("rounded far from the amount")
    if not shopping and unit is None and not whole_thing and _not_nearest_cut(quantity, quantity if exact is None else exact):
        found.append("cut a cook would not make")
    if exact is not None and shopping and quantity < exact * (1 - UP_SLACK):
        found.append("need rounded down")
    if not shopping and _whole_cans_by_weight(text, name):
        found.append("cans written as a weight")
    if not shopping and _whole_cans_by_weight(text, name, step=4, least=0.5):
        found.append("part cans written as a weight")
    if not shopping and whole_thing and unit in (None, "egg") and exact is not None and 0 < exact < 2 / 3 - 1e-9 and quantity <= 1 \
            and egg_part(name) == "egg" and not _USE_ABOUT.search(notes or ""):
        found.append("part of an egg not said")
    if shopping and _unbuyable(text, name):
        found.append("unit you cannot buy")
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


_EACH = re.compile(r"\beach\b", re.IGNORECASE)
_UNHYPHENATED = re.compile(r"\b(?:" + "|".join(re.escape(word.replace("-", " ")) for word in STATE_WORDS if "-" in word) + r")\b",
                           re.IGNORECASE)
_QUARTS = re.compile(r"\d quarts?\b")
_PART_QUARTS = re.compile(r"(?:^|\s)(?:\d+ )?\d+/\d+ quarts?\b")
_CAN_COUNT = re.compile(r"(?:^|\s)(?:\d+ )?(?:\d+/)?\d+ (?:cans?|tins?)\b")
_PART_CAN = re.compile(r"(?:^|\s)(?:\d+ )?\d+/\d+ \(\d+(?:\.\d+)?-oz\) cans?\b")
_MEASURED_PART = re.compile(r"\d (?:cups?|tbsp|tsp|oz) of the (?:can|first|second|third|\w+th|\d+(?:st|nd|rd|th))\b")
"""What a note says to use of a part can: 'about 1/2 cup of the can', '... about 3/4 cup of the third'."""
_SHORT = re.compile(r": short by (?:(?!: not listed).)*$")
"""A shortfall that does not say why it is not bought."""


_USE_ABOUT = re.compile(r"\buse about \d")
_NOUN_AFTER = r"(?=\s*(?:[,.;:)!]|$|\s(?:and|or|in|into|with|to|on|over|until|together|for)\b))"


def step_number_oddities(step: str, counts: dict[str, tuple[float, float]]) -> list[str]:
    """The rule a scaled step breaks naming a counted thing (`counts`: by its singular word, its count as written and
    as scaled) in the number it had before scaling: 'the eggs' for 1 egg, 'the yolk' for 3."""
    for word, (written, scaled) in counts.items():
        if (written > 1 + 1e-9) == (scaled > 1 + 1e-9) or word in UNCOUNTED_WORDS:
            continue
        before = plural_of(word) if written > 1 + 1e-9 else word
        if re.search(rf"(?<![\d/-])(?<!\d )\b{re.escape(before)}\b{_NOUN_AFTER}", step, re.IGNORECASE):
            return ["thing named in another number than its line"]
    return []


REST_FAR = 0.2
"""How far (a share of it) the rest of a divided line may be from its share: a cook weighs the parts by eye."""
_MEASURE_STEP = {"tsp": 0.25, "tbsp": 0.5, "cup": 1 / 32, "oz": 0.5, "lb": 1 / 32, "g": 5.0, "ml": 5.0}
"""The finest part of a line in each unit a step writes: a quarter teaspoon, half a tablespoon (of a line in cups),
half an ounce (of a line in pounds), 5 g or ml."""


def divided_oddities(line: float, steps: list[float], written_line: float, written_steps: list[float],
                     unit: str | None) -> list[str]:
    """The rules the step amounts of one ingredient break beside its scaled line (`line`, the step amounts `steps`,
    both in the line's `unit`; `written_line` and `written_steps` as the recipe wrote them, in one unit)."""
    found = ["steps use more than the line"] if sum(steps) > line * (1 + UP_SLACK) + 1e-9 else []
    written_rest = written_line - sum(written_steps)
    if written_rest > UP_SLACK * written_line:
        share, rest = line * written_rest / written_line, line - sum(steps)
        if abs(rest - share) > max(REST_FAR * share, _MEASURE_STEP.get(unit or "", 0.0)) + 1e-9:
            found.append("rest far from its share")
    return found


def name_disagrees(noted: str, line_text: str) -> bool:
    """True when a note names an ingredient ('salmon fillets') in another number than its line shows it ('1 salmon
    fillet'): the name's last word is in the line, singular there and plural in the note, or the reverse."""
    last = (re.findall(r"[a-z]+", noted.lower()) or [""])[-1]
    shown = re.findall(r"[a-z]+", line_text.lower())
    return bool(last) and last not in shown and any(singular(word) == singular(last) for word in shown)


_COUNT_SAID = re.compile(r"^(about )?(\d+ \d+/\d+|\d+/\d+|\d+(?:\.\d+)?) ([a-z]+)$")


def about_disagrees(held_text: str, line_text: str, exact: float) -> bool:
    """True when what the pantry holds ('about 2 1/3 bags', '2 1/3 bags') reads otherwise than a line of the same
    `exact` amount ('2 1/2 bags ...'): an 'about' number other than the line's, or a number without 'about' that the
    line rounds (it is then not the line's) or that is not `exact`. Held texts of another form (a container's content,
    'used up') are not judged."""
    held_match, line_match = _COUNT_SAID.match(held_text), _NUMBER_THEN_WORD.match(line_text)
    if held_match is None or line_match is None or singular(held_match.group(3)) != singular(line_match.group(2)):
        return False
    said, shown = _number(held_match.group(2)), _number(line_match.group(1))
    if held_match.group(1):
        return abs(said - shown) > 1e-6
    return abs(said - exact) > 1e-6 or abs(shown - exact) > 1e-6


UP_SLACK = 0.02
"""What rounding up may forgive (float noise, trimming): 1.01 lemons are 1 lemon."""
_PANTRY_CHECK = re.compile(r"^need (.+), the pantry has (.+): check there is enough$")


def note_oddities(note: str, name: str, *, bought: bool = True) -> list[str]:
    """The rules a pantry note on a shopping line breaks (empty: none). `bought`: the note is on a line bought for it
    (False: on what the pantry was said to cover)."""
    found = [*(["dry goods by the quart"] if _QUARTS.search(note) and is_dry(name) else []),
             *(["spoons added to spoons"] if _odd_spoons_added(note, shopping=False) else []),
             *(["part quarts of a carton liquid"] if _PART_QUARTS.search(note) and by_the_carton(name) else []),
             *(["shortfall not bought"] if not bought and _SHORT.search(note) else []),
             *(["check a cook could weigh"] if _weighable_check(note, name) else [])]
    return found + _check_oddities(note, name)


def _weighable_check(note: str, name: str) -> bool:
    """'check there is enough' between a weight and a measure or count of cheese or fresh produce."""
    match = _PANTRY_CHECK.match(note)
    if match is None or not (default_taxonomy().matches(name, "cheese") or produce_purchase_of(name) is not None):
        return False
    need = _leading_amount(match.group(1), set())
    held = [_leading_amount(part, set()) for part in match.group(2).split(", ")]
    kinds = {_measure_kind(amount[1]) for amount in [need, *held] if amount is not None}
    return "mass" in kinds and len(kinds) > 1


def _measure_kind(unit: str | None) -> str:
    return "mass" if unit in _MASS else "volume" if unit in _VOLUME else "count"


def _check_oddities(note: str, name: str) -> list[str]:
    match = _PANTRY_CHECK.match(note)
    purchase = purchase_of(name)
    sold = {purchase.unit} if purchase is not None and purchase.unit else set()
    need = _leading_amount(match.group(1), sold) if match else None
    if match is None or need is None:
        return []
    held = [_leading_amount(part, sold) for part in match.group(2).split(", ")]
    if all(amount is not None and about_in(name, amount[0], amount[1], need[1]) is not None for amount in held):
        return ["check where it compares"]
    return []


def _leading_amount(text: str, sold: set[str]) -> tuple[float, str | None] | None:
    """The amount a text starts with ('3/4 cup flour': (0.75, 'cup'); '2 cartons': (2, 'carton'); '1 tub' when the
    shop sells it by the tub), or None."""
    match = re.match(r"(\d+ \d+/\d+|\d+/\d+|\d+(?:\.\d+)?)(?: (fl oz|[a-z]+))?", text.lower())
    if match is None:
        return None
    word = normalize_unit(match.group(2)) if match.group(2) else None
    if word is not None and not is_known_unit(word):
        word = singular(word) if singular(word) in sold else None
    return _number(match.group(1)), None if word == "piece" else word


_LADDER = ("tsp", "tbsp", "cup", "quart", "oz", "lb", "g", "kg", "ml", "l")
_LEAST = {"tbsp": 1.0, "cup": 0.25, "quart": 1.0, "lb": 1.0, "kg": 1.0, "l": 1.0}
_SMALLER = {"tbsp": "tsp", "cup": "tbsp", "quart": "cup", "lb": "oz", "kg": "g", "l": "ml"}


def step_oddities(quantity: float, unit: str | None, line_unit: str | None) -> list[str]:
    """The rule a scaled step's amount (`quantity` of `unit`) breaks beside its ingredient line in `line_unit`."""
    if unit is None or line_unit is None or unit == line_unit or unit not in _LADDER or line_unit not in _LADDER:
        return []
    if _measure_kind(unit) != _measure_kind(line_unit) or _SMALLER.get(line_unit) is None:
        return []
    expected = line_unit  # the line's unit, or the first smaller one that holds the amount
    while expected in _LEAST and convert(quantity, unit, expected) < _LEAST[expected] * (1 - UP_SLACK):
        expected = _SMALLER[expected]
    return ["step in another unit than its line"] if unit in _smaller_units(expected) else []


def _smaller_units(unit: str) -> set[str]:
    found: set[str] = set()
    while (unit := _SMALLER.get(unit, "")) != "":
        found.add(unit)
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


def _rounded_far(quantity: float, exact: float, unit: str | None) -> bool:
    off = abs(quantity - exact)
    small = (unit == "tsp" and exact >= 1 / 8 - 1e-9 and off <= 1 / 8 + 1e-9) or (unit in ("g", "ml") and off <= 0.5 + 1e-9) \
        or (unit == "oz" and exact < 1 / 4)
    return exact > 0 and off > FAR * exact and not small


def _weights(text: str) -> list[tuple[float, str]]:
    return [(_number(match.group(1)), match.group(2)) for match in _WEIGHT_AMOUNT.finditer(text)]


CUTS = (1 / 4, 1 / 3, 1 / 2, 2 / 3, 3 / 4, 1.0)
"""The parts of a piece a cook cuts."""


def _not_nearest_cut(quantity: float, exact: float) -> bool:
    """Part of a piece (below one) that is not a cut, or not the cut nearest the exact amount."""
    if quantity >= 1 - 1e-9 and exact >= 1 - 1e-9:
        return False
    nearest = min(abs(cut - exact) for cut in CUTS)
    return all(abs(quantity - cut) > 1e-3 for cut in CUTS) or abs(quantity - exact) > nearest + 1e-3  # 0.3333 is 1/3


def _odd_compound(text: str) -> bool:
    """'1/4 cup + 1/2 tbsp', '1 tbsp + 3/4 tsp', '1/4 cup + 2 tbsp': an added part not whole, or cups below 1/2 cup."""
    for match in _COMPOUND.finditer(text):
        first, added, added_unit = _number(match.group(1)), _number(match.group(3)), match.group(4)
        if not _in_steps(added, 2 if added_unit == "tsp" else 1):
            return True
        if match.group(2).startswith("cup") and first + added / 16 < 0.5 - 1e-9:
            return True
    return False


def _whole_cans_by_weight(text: str, name: str, *, step: int = 2, least: float = 1.0) -> bool:
    """Canned goods weighed out in 1/step cans (within 5%), from `least` cans."""
    size = can_weight(name)
    ounces = sum(amount * (16 if shown == "lb" else 1) for amount, shown in _weights(text))
    return size is not None and ounces >= 0.95 * least * size \
        and abs(round(ounces / size * step) / step * size - ounces) <= 0.05 * ounces


def _odd_spoons_added(text: str, *, shopping: bool) -> bool:
    """A compound a cook does not write: any on a shopping list but in the need it quotes; in a recipe (or that need) any but whole
    tablespoons and teaspoons below a tablespoon that no half tablespoon is ('1 tbsp + 2 tsp', not '1 tbsp + 1 1/2 tsp')."""
    if shopping and " (need " in text:  # the need quotes the recipe's amount: judged as a recipe's
        main, _, need = text.partition(" (need ")
        return _odd_spoons_added(main, shopping=True) or _odd_spoons_added(need, shopping=False)
    for match in _COMPOUND.finditer(text):
        first, added = _number(match.group(1)), _number(match.group(3))
        tablespoons_and_teaspoons = match.group(2) == "tbsp" and match.group(4) == "tsp" and _in_steps(first, 1) \
            and added < 3 - 1e-9 and not _in_steps(added / 1.5, 1)
        if shopping or not tablespoons_and_teaspoons:
            return True
    return False


def _unbuyable(text: str, name: str) -> bool:
    """True when the line's leading amount is fresh produce in a measure it is not sold by (its own purchase holds it)."""
    purchase = purchase_of(name)
    match = _LEADING_AMOUNT.match(text.lower())
    if purchase is None or match is None:
        return False
    word = normalize_unit(match.group(1))
    if word is not None and purchase.unit in (word, singular(word)) or word in purchase.as_written:  # "2 packs" by the pack
        return False
    unit = word if is_known_unit(word) and word != "piece" else None
    return measure_key(unit, _VOLUME, _MASS) in purchase.holds


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
