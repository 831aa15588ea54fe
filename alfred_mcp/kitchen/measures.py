"""Amounts of ingredients: converted within a dimension, added up, and shown the way a cook writes them.

Volume (tsp, tbsp, cup, fl oz, pint, quart, gallon, ml, l) and mass (g, kg, oz, lb) convert within
themselves; cups and grams never meet (that needs a density, which recipes do not give). Every other
unit is a count of itself: cloves add to cloves, and a missing unit counts pieces (a pack and its pieces convert
for the ingredient they belong to: a head of garlic is 10 cloves). The one place amounts are written:
`sensible` for a recipe (nearest kitchen measure: 3 tsp -> 1 tbsp, 10 tbsp -> 2/3 cup, 1500 g -> 1.5 kg, eggs
and cloves whole, never '0.333333 egg'), `to_buy` for a shopping list (rounded up to what is bought), `held` for
what the pantry holds (1.8 heads of garlic are '1 head and 8 cloves', 0.925 of a bottle of soy sauce 'about 1 1/4
cups of the bottle'), and
`line_text` / `ingredient_text` for the whole line, its name agreeing with the number (`plurals.py`).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import NamedTuple

from alfred_mcp.errors import UnitMismatchError
from alfred_mcp.kitchen.bought_as import (
    by_the_carton,
    can_size,
    can_weight,
    is_dry,
    measure_key,
    produce_purchase_of,
    purchase_of,
)
from alfred_mcp.kitchen.plurals import counted_name, plural, singular

VOLUME_ML: dict[str, float] = {
    "ml": 1.0, "l": 1000.0, "tsp": 4.92892159375, "tbsp": 14.78676478125, "cup": 236.5882365,
    "fl oz": 29.5735295625, "pint": 473.176473, "quart": 946.352946, "gallon": 3785.411784,
}
MASS_G: dict[str, float] = {"g": 1.0, "kg": 1000.0, "oz": 28.349523125, "lb": 453.59237}
NEED = " (need "
"""What follows a shopping line of fresh produce or cans bought as the shop sells them: the amount needed."""
_SPOONS = ("tsp", "tbsp", "cup")
_CUP_VOLUMES = ("fl oz", "pint", "quart", "gallon")
"""US volumes a recipe writes in spoons, cups and quarts ('1/8 fl oz' is 3/4 tsp); a shopping list keeps them."""
_WHOLE_COUNTS = frozenset({
    "pinch", "dash", "drop", "splash", "handful", "sprig", "leaf", "clove", "fillet", "slice", "ear", "strip", "sheet",
    "stalk", "scoop", "cube",
})
"""Units counted whole wherever they are written: nobody measures half a clove or half a pinch."""
_CANS = frozenset({"can", "tin"})
"""Packs a recipe splits in quarters however many ('1 1/4 (14-oz) cans', as a weight of canned goods is written)."""
_LARGER = {"g": "kg", "ml": "l", "oz": "lb"}
_METRIC = frozenset({"g", "kg", "ml", "l"})
_INVARIANT = frozenset({"g", "kg", "ml", "l", "oz", "lb", "tsp", "tbsp", "fl oz"})
_FRACTION_DENOMINATORS = (2, 3, 4, 8)
USED_UP = "used up"
"""What a pantry row holding nothing says: '0 fillets' left reads as a count, not as the fish being gone."""
_WHOLE_PIECES = frozenset({"egg", "yolk"})
"""Pieces (no unit) a cook never splits: eggs (whole, yolks, whites)."""


class Amount(NamedTuple):
    """A quantity in a unit (None: a count of pieces)."""

    quantity: float
    unit: str | None


class Shown(NamedTuple):
    """An amount as a cook reads it, e.g. Shown(1.0, 'tbsp', '1 tbsp', rounded_from=None)."""

    quantity: float
    unit: str | None
    text: str
    rounded_from: float | None
    """The exact amount, when rounding changed it by more than 2%."""
    bought: tuple[float, str | None] | None = None
    """On a shopping list, fresh produce as the shop sells it (1, 'bunch'): how many to take, and of what (None: the
    thing itself, '2 onions'); None when the amount is bought as written."""


def dimension(unit: str | None) -> str:
    """'volume', 'mass', or 'count:<unit>' (a missing unit and 'piece' both count pieces)."""
    if unit in VOLUME_ML:
        return "volume"
    if unit in MASS_G:
        return "mass"
    return f"count:{unit or 'piece'}"


def convertible(a: str | None, b: str | None) -> bool:
    return dimension(a) == dimension(b)


PACKS: dict[str, tuple[str, str, float]] = {"garlic": ("head", "clove", 10.0)}
"""Ingredients bought as a pack of a known count of pieces: (pack unit, piece unit, pieces in a pack)."""
_PACK_WORDS = frozenset({"head", "heads", "clove", "cloves", "fresh", "whole", "of"})


def pack_of(name: str | None) -> tuple[str, str, float] | None:
    """The pack of an ingredient sold by the pack ('garlic', 'garlic cloves'; not 'garlic powder'), or None."""
    words = [word for word in (name or "").lower().split() if word not in _PACK_WORDS]
    return PACKS.get(" ".join(words)) if len(words) == 1 else None


def convert_for(name: str | None, quantity: float, unit: str | None, to: str | None) -> float | None:
    """`quantity` of `unit` in `to` for this ingredient: within a dimension, between its pack and its pieces (2 heads
    of garlic are 20 cloves), or between what the shop sells and what it holds (a bunch of thyme is 1/4 cup of
    leaves); None when they do not compare."""
    if convertible(unit, to):
        return convert(quantity, unit, to)
    pack = pack_of(name)
    if pack is not None and {unit, to} == {pack[0], pack[1]}:
        return quantity * pack[2] if unit == pack[0] else quantity / pack[2]
    return _convert_purchase(name, quantity, unit, to)


def _convert_purchase(name: str | None, quantity: float, unit: str | None, to: str | None) -> float | None:
    """Between what the shop sells and a measure it holds: a bunch of thyme and teaspoons of its leaves, an onion and
    cups of it chopped, a can and ounces (`bought_as`; not a staple's jar, whose rest is unknown); None when they do
    not compare."""
    purchase = produce_purchase_of(name) if name else None
    if purchase is None:
        return None
    sold = {purchase.unit} if purchase.unit is not None else {None, "piece"}
    volumes, masses = frozenset(VOLUME_ML), frozenset(MASS_G)
    if unit in sold and (key := measure_key(to, volumes, masses)) in purchase.holds:
        held_amount = quantity * purchase.holds[key]
        return convert(held_amount, key, to) if key in ("ml", "g") else held_amount
    if to in sold and (key := measure_key(unit, volumes, masses)) in purchase.holds:
        return (convert(quantity, unit, key) if key in ("ml", "g") else quantity) / purchase.holds[key]
    return None


def about_in(name: str, quantity: float, unit: str | None, to: str | None) -> float | None:
    """`quantity` of `unit` in `to`, estimated where no conversion holds through what the shop sells `name` as, full:
    5 lb of flour is a bag, about 18 cups; 2 cartons of broth about 8 cups, and 10 cups about 2 1/2 cartons; 2 oz of
    paprika a jar, about 1/2 cup. None when even that does not compare."""
    exact = convert_for(name, quantity, unit, to)
    purchase = purchase_of(name) if exact is None else None
    if purchase is None:
        return exact
    volumes, masses = frozenset(VOLUME_ML), frozenset(MASS_G)
    key, back = measure_key(unit, volumes, masses), measure_key(to, volumes, masses)
    if unit == purchase.unit or (purchase.unit is None and unit in (None, "piece")):
        count = quantity
    elif key in purchase.holds:
        count = (convert(quantity, unit, key) if key in ("ml", "g") else quantity) / purchase.holds[key]
    else:
        return None
    if to == purchase.unit or (purchase.unit is None and to in (None, "piece")):
        return count
    if back not in purchase.holds:
        return None
    held_amount = count * purchase.holds[back]
    return convert(held_amount, back, to) if back in ("ml", "g") else held_amount


def convert(quantity: float, unit: str | None, to: str | None, *, field: str = "unit") -> float:
    """`quantity` of `unit` expressed in `to`.

    Raises:
        UnitMismatchError: the units measure different things (cups and grams), naming `field`.
    """
    if not convertible(unit, to):
        raise UnitMismatchError(
            f"{field}: {_named(unit)} cannot be converted to {_named(to)} (one is {_kind(unit)}, the other {_kind(to)}).",
            field=field, value=unit, valid=sorted(_units_like(to)),
        )
    table = VOLUME_ML if unit in VOLUME_ML else MASS_G if unit in MASS_G else None
    if table is None:
        return quantity
    return quantity * table[unit or ""] / table[to or ""]


def base_unit(unit: str | None) -> str | None:
    """The unit amounts of this dimension are added up in: ml, g, or the count unit itself."""
    kind = dimension(unit)
    return "ml" if kind == "volume" else "g" if kind == "mass" else (None if unit == "piece" else unit)


def to_base(amount: Amount) -> Amount:
    unit = base_unit(amount.unit)
    return Amount(convert(amount.quantity, amount.unit, unit), unit)


def sensible(amount: Amount, name: str | None = None) -> Shown:
    """The amount in the unit a cook would write, rounded to the nearest kitchen measure.

    Spoons: a pinch below 1/10 tsp, teaspoons below 1 tbsp, tablespoons in halves below 1/4 cup ('1 tbsp + 2 tsp'
    between halves, as a cook writes 5 tsp), cups (quarters and thirds) above, tablespoons where no cup measure holds
    it below 1/2 cup ('4 1/2 tbsp'), the nearest cup measure from 1/2 cup, quarts above 8 cups. Weights:
    ounces in halves below a pound, pounds in quarters (else ounces below 3 lb: '18 oz'), canned goods (`name`) in
    quarter cans from half a can ('1 1/4 (14-oz) cans'), a count of cans with their size ('3 (15-oz) cans'). Counts: cloves, fillets, pinches and eggs (`name`) whole; other
    pieces in the cut nearest below 1 (quarters and thirds: '1/3 onion'), 1 1/2, whole from 2; packs (heads) in halves, cans in quarters.
    """
    return _measured(amount, name, up=False)


def held(amount: Amount, name: str | None = None) -> str:
    """What a pantry holds, written as a cook would: the kitchen measure when it is the amount exactly ('1/2 cup',
    '500 g', '1 1/2 cans'), whole packs and their pieces ('1 head and 8 cloves' of garlic), else what is in the
    container in the measure it holds, about ('about 1 1/4 cups of the bottle', '1 bottle and about 1 3/4 cups of
    another'), else the nearest measure, about ('about 335 g'; 'less than 1/4' of a sliver, 'less than 1 g'): never a '+' nor a thousandth of a
    container. A volume a shop sells in (gallon, quart, pint, fl oz) stays in its unit: half a gallon of milk is
    '1/2 gallon', not '8 cups'. Nothing left is 'used up' (never '0 fillets')."""
    if amount.quantity <= 0:
        return USED_UP
    if amount.unit in _CUP_VOLUMES:
        if "/" in quantity_text(amount.quantity) or float(amount.quantity).is_integer():
            return amount_text(amount.quantity, amount.unit)
        near = _pick(amount.quantity, (4, 3), up=False, smallest=0.0)
        return f"about {amount_text(near, amount.unit) if near else _measured(amount, name, up=False).text}"
    shown = _measured(amount, name, up=False, sized=False)
    if shown.unit is not None or amount.unit is None:
        back = convert_for(name, shown.quantity, shown.unit, amount.unit)
        if back is not None and math.isclose(back, amount.quantity, rel_tol=1e-6, abs_tol=1e-9):
            return amount_text(shown.quantity, shown.unit) if " + " in shown.text else shown.text
    counted = dimension(amount.unit).startswith("count:")
    if counted and amount.unit not in _WHOLE_COUNTS and math.isclose(count_cut(amount.quantity, amount.unit), amount.quantity,
                                                                     rel_tol=1e-6):
        return amount_text(amount.quantity, amount.unit)  # 2/3 of a bunch, 2 1/2 onions: a cut the one rule writes
    if not counted and "/" in quantity_text(amount.quantity) and amount.unit not in _METRIC:  # 1/3 lb (not 1/3 l)
        return amount_text(amount.quantity, amount.unit)
    pack = pack_of(name)
    if pack is not None and amount.unit == pack[0] and amount.quantity > 0:
        whole = math.floor(amount.quantity + 1e-9)
        pieces = (amount.quantity - whole) * pack[2]
        parts = [amount_text(whole, pack[0])] if whole else []
        parts += [amount_text(round(pieces), pack[1])] if round(pieces) else []
        about = "" if math.isclose(pieces, round(pieces), abs_tol=1e-6) else "about "
        return about + " and ".join(parts) if parts else f"about {amount_text(1, pack[1])}"
    if amount.unit in ("g", "ml") and amount.quantity < 1:  # a trace: never a decimal nor a fraction of a gram
        return f"less than {amount_text(1, amount.unit)}"
    if counted and amount.unit not in _WHOLE_COUNTS:  # about the cut the one rule writes (2.35 bags: about 2 1/2)
        near = count_cut(amount.quantity, amount.unit)
        shown = Shown(near, amount.unit, amount_text(near, amount.unit), None)
    less = shown.unit == amount.unit and shown.quantity > 2 * amount.quantity  # a sliver of a lemon, a crumb of butter
    return _in_container(amount, name) or f"{'less than' if less else 'about'} {shown.text}"


def held_inside(amount: Amount, name: str | None = None) -> str:
    """`held`, with part of a container whose content is known said in the measure it holds ('about 3 1/2 cups of
    the carton' for 7/8 carton of broth, 'about 2 cups of the bottle'): what a note on what the pantry has says."""
    part = None if float(amount.quantity).is_integer() else _in_container(amount, name)
    return part or held(amount, name)


def _in_container(amount: Amount, name: str | None) -> str | None:
    """Part of a container a shop sells `name` in, said in the measure it holds: 'about 1 1/4 cups of the bottle',
    '2 cans and about 12 oz of another'; None when the unit is not a container whose content is known."""
    if not name or amount.unit is None or amount.quantity <= 0:
        return None
    purchase = purchase_of(name)
    size = can_size(name) if amount.unit in _CANS else None
    if size is not None:  # a can's content by weight
        measure, one = "oz", size
    elif purchase is not None and amount.unit == purchase.unit and (key := next((k for k in ("ml", "g") if k in purchase.holds), None)):
        measure, one = ("tsp", convert(purchase.holds[key], "ml", "tsp")) if key == "ml" else ("oz", convert(purchase.holds[key], "g", "oz"))
    else:
        return None
    whole = math.floor(amount.quantity + 1e-9)
    inside = _one_measure(sensible(Amount((amount.quantity - whole) * one, measure), name))
    if whole == 0:
        return f"about {inside} of the {amount.unit}"
    return f"{amount_text(whole, amount.unit)} and about {inside} of another"


def _one_measure(shown: Shown) -> str:
    """What 'about' says of an amount: one measure, the nearest half tablespoon for tablespoons and teaspoons ('about
    1 1/2 tbsp', never 'about 1 tbsp + 1 tsp')."""
    if " + " not in shown.text:
        return shown.text
    return amount_text(_pick(convert(shown.quantity, shown.unit, "tbsp"), (2,), up=False, smallest=1.0), "tbsp")


_SMALLER = {"quart": "cup", "cup": "tbsp", "tbsp": "tsp", "lb": "oz", "kg": "g", "l": "ml"}
"""The next smaller unit a cook writes what a unit holds less than its smallest measure of."""
_LEAST_AND_STEPS: dict[str, tuple[float, tuple[int, ...]]] = {
    "quart": (1.0, (4,)), "cup": (0.25, (4, 3)), "tbsp": (1.0, (2,)), "lb": (1.0, (4,)), "kg": (1.0, ()), "l": (1.0, ()),
}
"""A unit's smallest measure and the parts it is measured in (a quarter cup, then quarters and thirds of a cup)."""


def sensible_in(amount: Amount, unit: str | None, name: str | None = None) -> Shown:
    """The amount written in `unit` (the unit its ingredient line uses), so that a step beside the list says the same
    measure: 1 3/4 tbsp of butter beside '1/3 cup' is '2 tbsp', not '5 tsp'; where `unit` holds less than its smallest
    measure (1/4 cup, 1 tbsp), the next smaller unit. `sensible` when the units do not compare."""
    if unit is None or not convertible(amount.unit, unit) or dimension(unit).startswith("count"):
        return sensible(amount, name)
    value = convert(amount.quantity, amount.unit, unit)
    least, steps = _LEAST_AND_STEPS.get(unit, (0.0, ()))
    smaller = _SMALLER.get(unit)
    if smaller is not None and value < least * (1 - _UP_SLACK):
        below = sensible_in(Amount(value, unit), smaller, name)
        if not convertible(below.unit, unit) or convert(below.quantity, below.unit, unit) < least * (1 - _UP_SLACK):
            return below
        rounded = least  # 3.9 tbsp rounds to 4: that is 1/4 cup
    elif unit in ("l", "kg"):  # litres and kilograms to the hundredth
        rounded = max(0.05, round(value, 2))
    elif not steps:  # teaspoons, ounces, grams: as a cook writes them ('1 tbsp' for 3 tsp)
        return sensible(Amount(value, unit), name)
    else:
        rounded = _pick(value, steps, up=False, smallest=least)
    drift = abs(rounded - value) / value if value else 0.0
    return Shown(rounded, unit, amount_text(rounded, unit), round(value, 3) if drift > 0.02 else None)


def to_buy(amount: Amount, name: str | None = None) -> Shown:
    """The amount to put on a shopping list: rounded up to what is bought or measured (never less than needed).

    Anything counted is bought whole (4 1/2 shallots -> 5), and by the pack where the pack is known (14 cloves of
    garlic -> 2 heads); spoons and cups round up to a measure, never a compound, and more than 4 cups is quarts;
    weights round up to their step. Fresh produce, canned goods and shelf staples are also counted as the shop sells
    them (`Shown.bought`: 3/4 tsp of thyme is 1 bunch, 1 3/4 lb of crushed tomatoes 2 cans, 1 tbsp black pepper 1 jar;
    `bought_as`).
    """
    return _measured(amount, name, up=True)


def _measured(amount: Amount, name: str | None, *, up: bool, sized: bool = True) -> Shown:
    """The amount rounded to a measure (`up`: never below it); `sized`: a count of cans says which can."""
    unit: str | None
    text: str | None = None
    if not up and name and _sold_in(name, amount):  # '1 1/4 pints cherry tomatoes' as the recipe said, not '2 1/2 cups'
        rounded = _pick(amount.quantity, (4,), up=False, smallest=0.25)
        drift = abs(rounded - amount.quantity) / amount.quantity
        return Shown(rounded, amount.unit, amount_text(rounded, amount.unit), round(amount.quantity, 3) if drift > 0.02 else None)
    dry = bool(name) and is_dry(name or "")
    carton = bool(name) and by_the_carton(name or "")
    if amount.unit in _SPOONS or (amount.unit in _CUP_VOLUMES and (dry or not up)) or (carton and amount.unit in ("quart", "pint")):
        rounded, unit, text = _spoon_measure(convert(amount.quantity, amount.unit, "tsp"), up=up, dry=dry, carton=carton)
        if unit == "pinch":
            return Shown(rounded, unit, amount_text(rounded, unit), None)
    elif amount.unit in ("oz", "lb"):
        ounces = convert(amount.quantity, amount.unit, "oz")
        rounded, unit, text = _weight(ounces, up=up)
        cans = None if up or not name else _in_cans(ounces, name) or _in_cans(convert(rounded, unit, "oz"), name)
        if cans is not None:
            (rounded, text), unit = cans, "oz"
    elif dimension(amount.unit).startswith("count:"):
        pack = pack_of(name) if up and not _names_unit(name or "", amount.unit) else None
        if pack is not None and amount.unit == pack[1]:  # 14 cloves of garlic are bought as 2 heads
            amount = Amount(amount.quantity / pack[2], pack[0])
        unit = amount.unit
        rounded = _counted(amount.quantity, unit, name, up=up)
        size = can_size(name) if name and unit in _CANS and not up and sized and rounded > 0 else None
        if size is not None:  # a can says which can at any count: '1/4 (15-oz) can', '3 (15-oz) cans black beans'
            text = f"{quantity_text(rounded)} ({size:g}-oz) {unit_word('can', rounded)}"
    else:
        quantity, unit = _best_unit(amount)
        rounded = _round_for(quantity, unit, up=up)
        larger = _LARGER.get(unit or "")
        if larger is not None and rounded >= convert(1, larger, unit):
            unit, rounded = larger, _round_for(convert(rounded, unit, larger), larger, up=up)
    exact = convert(amount.quantity, amount.unit, unit)
    drift = abs(rounded - exact) / exact if exact else 0.0
    shown = text if text is not None else amount_text(rounded, unit)
    bought = _bought(exact, unit, name) if up and name else None
    return Shown(rounded, unit, shown, round(exact, 3) if drift > 0.02 else None, bought)


def _sold_in(name: str, amount: Amount) -> bool:
    """True when a recipe measures `name` in the volume the shop sells it by (a pint of cherry tomatoes or berries)
    and has at least a quarter of one: a cook keeps that unit, in quarters, rather than cups."""
    purchase = purchase_of(name) if amount.unit in _CUP_VOLUMES else None
    return purchase is not None and purchase.unit == amount.unit and amount.quantity >= 0.25 * (1 - _UP_SLACK)


def _bought(quantity: float, unit: str | None, name: str) -> tuple[float, str | None] | None:
    """How many of what the shop sells `name` as hold `quantity` of `unit` (rounded up), or None (bought as written)."""
    purchase = purchase_of(name)
    key = measure_key(unit, frozenset(VOLUME_ML), frozenset(MASS_G))
    if purchase is None or key not in purchase.holds or quantity <= 0 or _names_unit(name, unit) or unit in purchase.as_written:
        return None
    held = convert(quantity, unit, key) if key in ("ml", "g") else quantity
    return _pick(held / purchase.holds[key], (1,), up=True, smallest=1.0), purchase.unit


_UP_SLACK = 0.02
"""Rounding up forgives 2% (float noise and trimming): 1.01 lemons is 1 lemon, 1.9583 tbsp is 2 tbsp."""
_CUP_STEPS = (4, 3)


def _pick(exact: float, steps: tuple[int, ...], *, up: bool, smallest: float) -> float:
    """The nearest (or, `up`, the smallest not below) multiple of 1/step for any step, at least `smallest`."""
    if up:
        return max(smallest, min(_up(exact, step) for step in steps))
    return max(smallest, min((math.floor(exact * step + 0.5 + 1e-9) / step for step in steps), key=lambda c: (abs(c - exact) - 1e-9 * c, c)))


def _up(exact: float, step: int) -> float:
    """The multiple of 1/step just below `exact` when within the slack, else the one at or above it."""
    below = math.floor(exact * step + 1e-9) / step
    return below if below >= exact * (1 - _UP_SLACK) else math.ceil(exact * step - 1e-9) / step


def _spoon_measure(tsp: float, *, up: bool, dry: bool = False, carton: bool = False) -> tuple[float, str, str | None]:
    """(quantity, unit, text or None): tsp below 1 tbsp, then half tablespoons or tablespoons and teaspoons below 1/4
    cup (`_tablespoons_and_teaspoons`: '1 1/2 tbsp', '1 tbsp + 2 tsp'), tbsp below 1/2 cup where no cup measure holds
    it, cups (quarters and thirds) above, quarts above 8 cups (above 4 when buying) of what is poured; what is measured
    `dry` (flour, rice) stays in cups, and a liquid sold by the `carton` (broth) is in quarts only when they are whole
    ('9 cups', '3 quarts'). No other compound ('1/2 cup + 1 tbsp'); none when buying (`up`)."""
    if up:
        return _spoon_to_buy(tsp, dry=dry, carton=carton)
    quarts = convert(tsp, "tsp", "quart")
    if carton and not dry and quarts >= 2 - 1e-9 and abs(round(quarts) - quarts) <= 0.02 * quarts:
        return float(round(quarts)), "quart", None
    if carton and not dry and tsp / 48 > _CARTON_CUPS * (1 + 1e-9):
        return _quarts_and_cups(_pick(tsp / 48, (4,), up=False, smallest=1.0))
    if tsp > 8 * 48 * (1 + 1e-9) and not dry and not carton:  # more than 8 cups of what is poured is written in quarts
        return _pick(quarts, (4,), up=False, smallest=1.0), "quart", None
    tbsp = tsp / 3
    if tsp < 3 * 0.95:
        if tsp < 0.1:  # 1/8 tsp would be more than a quarter too much: a pinch
            return 1.0, "pinch", None
        return _teaspoons(tsp, up=False), "tsp", None
    if tbsp < 4 - 1e-9:
        return _tablespoons_and_teaspoons(tsp)
    halves = _pick(tbsp, (2,), up=False, smallest=1.0)
    cups = tsp / 48
    near_cup = _pick(cups, _CUP_STEPS, up=False, smallest=0.25)
    if halves == 4 and abs(halves - tbsp) < 0.1 * tbsp - 1e-9:  # 4 tbsp is 1/4 cup
        return 0.25, "cup", None
    if abs(near_cup - cups) <= (0.02 if cups < 0.5 else 0.08) * cups:
        return near_cup, "cup", None
    if cups < 0.5 - 1e-9:  # '4 1/2 tbsp', '6 tbsp': no cup measure holds it
        return (halves, "tbsp", None) if halves not in (4, 8) else (halves / 16, "cup", None)
    return near_cup, "cup", None  # from 1/2 cup the nearest cup measure: '1/2 cup' for 9 tbsp, not '1/2 cup + 1 tbsp'


_HALF_TBSP_NEAR = 0.05
"""How near (a share of the amount) a half tablespoon must be for a recipe to write it instead of tablespoons and
teaspoons: 4.4 tsp is '1 1/2 tbsp', 5 tsp '1 tbsp + 2 tsp' (a half tablespoon would be a tenth short)."""


def _tablespoons_and_teaspoons(tsp: float) -> tuple[float, str, str | None]:
    """From 1 tbsp to 1/4 cup, as a cook writes it: half tablespoons where one is the amount in half teaspoons or
    within 5% ('1 1/2 tbsp', '2 tbsp'), 1/4 cup for 3 3/4 tbsp and more, else whole tablespoons and the teaspoons left in
    halves ('1 tbsp + 2 tsp' for 5 tsp, '1 tbsp + 1/2 tsp' of baking powder for 3 1/2): the measure is in teaspoons
    ((5.0, 'tsp', '1 tbsp + 2 tsp')), the text what the cook reads."""
    teaspoons = max(3.0, math.floor(tsp * 2 + 0.5 + 1e-9) / 2)
    halves = max(1.0, round(tsp / 1.5) / 2)
    if halves >= 4 and abs(12 - tsp) < 0.1 * tsp:  # 3 3/4 tbsp is 1/4 cup
        return 0.25, "cup", None
    if math.isclose(halves * 3, teaspoons) or abs(halves * 3 - tsp) < _HALF_TBSP_NEAR * tsp:
        return halves, "tbsp", None
    whole = math.floor(teaspoons / 3 + 1e-9)
    return teaspoons, "tsp", f"{amount_text(whole, 'tbsp')} + {amount_text(teaspoons - 3 * whole, 'tsp')}"


def _spoon_to_buy(tsp: float, *, dry: bool = False, carton: bool = False) -> tuple[float, str, str | None]:
    """Rounded up to one measure: tsp below 1 tbsp, tbsp up to 4, cups above, quarts above 4 cups (not of what is
    measured `dry`: cups; of a liquid sold by the `carton`, only whole quarts from 2)."""
    if carton and not dry and tsp > 4 * 48 * (1 + _UP_SLACK):  # quarter cups: 10 1/2, not 10 1/3
        cups = _pick(tsp / 48, (4,), up=True, smallest=0.25)
        if cups > _CARTON_CUPS and not (cups / 4).is_integer():
            return _quarts_and_cups(cups)
        return (cups / 4, "quart", None) if cups >= 8 and (cups / 4).is_integer() else (cups, "cup", None)
    if tsp > 4 * 48 * (1 + _UP_SLACK) and not dry:
        return _pick(convert(tsp, "tsp", "quart"), (4,), up=True, smallest=1.0), "quart", None
    if tsp / 3 >= 4 - 1e-9:
        return _pick(tsp / 48, _CUP_STEPS, up=True, smallest=0.25), "cup", None
    if tsp >= 3 * (1 - _UP_SLACK):
        tbsp = _pick(tsp / 3, (2,), up=True, smallest=1.0)
        return (tbsp, "tbsp", None) if tbsp < 4 else (0.25, "cup", None)
    teaspoons = _teaspoons(tsp, up=True)
    return (1.0, "tbsp", None) if teaspoons >= 3 else (teaspoons, "tsp", None)  # rounded up to 3 tsp: 1 tbsp


_CARTON_CUPS = 12
"""Cups of a liquid sold by the carton a cook still measures in cups; above, whole quarts (cartons) and the rest in
cups ('3 quarts 1 1/2 cups', not '13 1/2 cups')."""


def _quarts_and_cups(cups: float) -> tuple[float, str, str | None]:
    """(cups, 'cup', '3 quarts 1 1/2 cups'): whole quarts, then the cups left (none left: '4 quarts')."""
    quarts, rest = divmod(cups, 4)
    if rest < 1e-9:
        return quarts, "quart", None
    return cups, "cup", f"{amount_text(quarts, 'quart')} {amount_text(rest, 'cup')}"


def _teaspoons(tsp: float, *, up: bool) -> float:
    """What measuring spoons hold: quarters of a teaspoon, and 1/8 below a quarter."""
    if tsp < 3 / 16 and not up:
        return 1 / 8
    return _pick(tsp, (4,), up=up, smallest=1 / 8)


def count_cut(quantity: float, unit: str | None) -> float:
    """The one rule a count of pieces or packs (bags, jars, bunches, heads) is rounded by wherever it is shown (a
    recipe's line, what the pantry holds, a note's 'about'): the nearest quarter or third (the true share: 2 1/3 bags
    for 7 servings of a recipe for 3 with 1 bag, never '2 1/2'); pieces in halves from one; cans in quarters at any
    count ('2 1/4 cans'). Things counted whole (cloves, pinches) are `_counted`."""
    if quantity <= 0:
        return 0.0
    if unit in _CANS:
        return _pick(quantity, (4,), up=False, smallest=0.25)
    if quantity < 1 or unit not in (None, "piece"):
        return _pick(quantity, (4, 3), up=False, smallest=0.25)
    return _pick(quantity, (2,), up=False, smallest=1.0)


def _counted(quantity: float, unit: str | None, name: str | None, *, up: bool) -> float:
    """Whole things whole; always up when buying; else `count_cut`, with pieces from 1 3/4 whole in a recipe (2 1/2
    lemons are 3: a cook uses whole ones)."""
    if quantity <= 0:
        return 0.0
    if up:
        return _pick(quantity, (1,), up=True, smallest=1.0)
    if unit in _WHOLE_COUNTS or (unit in (None, "piece") and _is_whole_thing(name)):
        return float(max(1, math.floor(quantity + 0.5)))
    if unit in (None, "piece") and quantity >= 1.75:
        return float(math.floor(quantity + 0.5))
    return count_cut(quantity, unit)


def _is_whole_thing(name: str | None) -> bool:
    return any(singular(word) in _WHOLE_PIECES for word in (name or "").lower().split())


def _best_unit(amount: Amount) -> tuple[float, str | None]:
    unit, quantity = amount.unit, amount.quantity
    for small, large, step in (("ml", "l", 1000.0), ("g", "kg", 1000.0), ("oz", "lb", 16.0)):
        if unit in (small, large):
            as_small = convert(quantity, unit, small)
            return (as_small / step, large) if as_small >= step else (as_small, small)
    return quantity, unit


def _in_cans(oz: float, name: str) -> tuple[float, str] | None:
    """(ounces, '1 1/4 (14-oz) cans'): a recipe's canned goods by the can when the weight is quarter cans from half
    a can (within 5%), else None (the weight is written)."""
    size = can_weight(name)
    if size is None or oz < 0.45 * size:
        return None
    cans = round(oz / size * 4) / 4
    if abs(cans * size - oz) > 0.05 * oz:
        return None
    return cans * size, f"{quantity_text(cans)} ({size:g}-oz) {unit_word('can', cans)}"


_PART_CANS = re.compile(r"^(?:(\d+) )?(\d+/\d+) \(\d+(?:\.\d+)?-oz\) cans?\b")
_NTH = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def part_can_use(text: str, name: str) -> str | None:
    """What to open and measure for a line of part cans ('2 1/4 (14-oz) cans crushed tomatoes': 'open 3 cans: 2 and
    about 1/2 cup of the third'; '1/4 (15-oz) can black beans': 'about 1/3 cup of the can'), measured by what a can of
    `name` holds; None for whole cans or a can whose content is not known."""
    found = _PART_CANS.match(text)
    purchase = produce_purchase_of(name)
    if purchase is None or purchase.unit != "can":  # beans, avocado: sold canned as well as dry or fresh
        purchase = produce_purchase_of(f"canned {name}")
    if found is None or purchase is None or purchase.unit != "can" or "ml" not in purchase.holds:
        return None
    whole, part = int(found.group(1) or 0), float(Fraction(found.group(2)))
    cups = part * purchase.holds["ml"] / VOLUME_ML["cup"]
    inside = amount_text(_pick(cups, _CUP_STEPS, up=False, smallest=0.25), "cup") if cups >= 0.2 \
        else sensible(Amount(cups, "cup"), name).text  # 'about': the nearest cup measure (7 tbsp is about 1/2 cup)
    if whole == 0:
        return f"about {inside} of the can"
    return f"open {whole + 1} cans: {whole} and about {inside} of the {_ordinal(whole + 1)}"


def _ordinal(number: int) -> str:
    """'second', 'third', ... 'tenth', then '11th', '22nd'."""
    if number <= len(_NTH):
        return _NTH[number - 1]
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _weight(oz: float, *, up: bool) -> tuple[float, str, str | None]:
    """(quantity, unit, text or None): ounces (quarters or thirds below 1, halves from 1) below a pound; pounds in
    quarters from 1 lb (always when buying), or in a recipe pounds and whole ounces below 3 lb where no quarter pound
    is within 7% ('1 lb 2 oz', not '18 oz' nor '1 1/8 lb'; '1 3/4 lb' for 30 oz)."""
    if oz < 1 - 1e-9:
        rounded = _pick(oz, (4, 3), up=up, smallest=0.25)
    else:
        rounded = _pick(oz, (2,), up=up, smallest=1.0)
    if rounded < 16 - 1e-9:
        return rounded, "oz", None
    pounds = _pick(oz / 16, (4,), up=up, smallest=1.0)
    if up or oz >= 48 or abs(pounds - oz / 16) <= 0.07 * oz / 16:  # bought by the quarter pound
        return pounds, "lb", None
    whole, ounces = divmod(round(oz), 16)
    return whole + ounces / 16, "lb", f"{amount_text(whole, 'lb')} {amount_text(ounces, 'oz')}"


def _round_for(quantity: float, unit: str | None, *, up: bool = False) -> float:
    if quantity <= 0:
        return 0.0
    if unit in ("ml", "g"):
        step = 5.0 if quantity >= 100 else 1.0 if quantity >= 10 else 0.5
        return _pick(quantity / step, (1,), up=up, smallest=1.0) * step
    if unit in ("l", "kg"):
        return _pick(quantity, (100,), up=up, smallest=0.05) if up else max(0.05, round(quantity, 2))
    if up:
        return _pick(quantity, (4,), up=True, smallest=0.25)
    return _kitchen_fraction(quantity)


def _kitchen_fraction(quantity: float) -> float:
    """The nearest multiple of 1/8 or 1/3 (a measuring-spoon amount), never 0."""
    candidates = [round(quantity * d) / d for d in (8, 3)]
    best = min(candidates, key=lambda c: (abs(c - quantity), c))
    return best if best > 0 else 1 / 8


def line_text(quantity: float | None, unit: str | None, name: str, *, buying: bool = False) -> str:
    """An ingredient line as every view shows it: the amount made sensible (`to_buy` on a shopping list, fresh produce
    as the shop sells it with the amount needed after it, `needed`: the recipe card's amount unless that is more than
    2% short, then the next measure up), then the name."""
    if quantity is None:
        return ingredient_text(None, None, unit, name)
    shown = (to_buy if buying else sensible)(Amount(float(quantity), unit), name)
    if shown.bought is not None:  # '1 bunch thyme (need 3/4 tsp)', '1 piece ginger (need 1 tbsp + 2 tsp)'
        count, sold_as = shown.bought
        taken = ingredient_text(quantity_text(count), count, None, name) if sold_as is None else f"{_taken(count, sold_as)} {name}"
        need = _need_beside(shown, Amount(float(quantity), unit), name)
        return taken if sold_as is not None and need == _taken(count, sold_as) else f"{taken}{NEED}{need})"  # '1 pint', not '(need 1 pint)'
    return ingredient_text(shown.text, shown.quantity, shown.unit, name)


def _need_beside(bought: Shown, amount: Amount, name: str) -> str:
    """The need a line bought as the shop sells it quotes: the recipe's amount (`needed`), or, where that counts what
    is bought ('3 (14-oz) cans' beside '3 cans'), the amount rounded up in its measure ('2 3/4 lb')."""
    need = needed(amount, name).text
    return bought.text if "-oz) can" in need else need


def needed(amount: Amount, name: str) -> Shown:
    """An amount needed as recipes_scale writes it ('1/4 cup + 2 tbsp'), unless that is less than the amount (10 1/2
    cups are 2 5/8 quarts, not 2 1/2): then rounded up to a measure (`to_buy`), never down."""
    shown = sensible(amount, name)
    exact = convert_for(name, amount.quantity, amount.unit, shown.unit) if shown.unit != "pinch" else None
    return to_buy(amount, name) if exact is not None and shown.quantity < exact * (1 - _UP_SLACK) else shown


def needed_text(quantity: float, unit: str | None, name: str) -> str:
    """'2 3/4 quarts vegetable broth': `needed` with the name, not counted in what the shop sells (a note on what the
    pantry holds says it)."""
    shown = needed(Amount(quantity, unit), name)
    return ingredient_text(shown.text, shown.quantity, shown.unit, name)


def amount_to_buy(quantity: float, unit: str | None, name: str) -> str:
    """The amount of a shopping line without its name: '1 1/2 cups', '1 bunch, need 3/4 tsp', '2, need 1 cup' (onions)."""
    shown = to_buy(Amount(quantity, unit), name)
    if shown.bought is None:
        return shown.text
    taken, need = _taken(*shown.bought), _need_beside(shown, Amount(quantity, unit), name)
    return taken if shown.bought[1] is not None and need == taken else f"{taken}, need {need}"


def _taken(count: float, sold_as: str | None) -> str:
    """'1 bunch', '2 pieces', '2' (the thing itself): what to take from the shelf."""
    return quantity_text(count) if sold_as is None else f"{quantity_text(count)} {unit_word(sold_as, count)}"


def ingredient_text(amount: str | None, quantity: float | None, unit: str | None, name: str) -> str:
    """The whole line a person reads: '2 salmon fillets' (not '2 fillets salmon fillets'), '1 lemon', '2 lemons',
    '1/2 cup + 1 tbsp pecorino romano', 'salt'. `amount` is the amount's text (`Shown.text`), None when unmeasured."""
    if quantity is None or amount is None:
        return " ".join(part for part in (unit if unit != "piece" else None, name) if part)
    if unit not in (None, "piece") and not _names_unit(name, unit):
        return f"{amount} {name}"
    return f"{quantity_text(quantity)} {counted_name(name, quantity)}"


def _names_unit(name: str, unit: str | None) -> bool:
    """True when the unit is already a word of the name ('fillet' in 'salmon fillets')."""
    return bool(unit) and unit in {singular(word) for word in name.lower().split()}


def amount_text(quantity: float | None, unit: str | None) -> str:
    """'1 1/2 cups', '1 tbsp', '2', '250 g': the quantity as text, then the unit (plural where a cook says it)."""
    if quantity is None:
        return unit or ""
    number = f"{quantity:.3f}".rstrip("0").rstrip(".") if unit in _METRIC else quantity_text(quantity)
    if unit is None or unit == "piece":
        return number
    return f"{number} {unit_word(unit, quantity)}"


def unit_word(unit: str, quantity: float | None) -> str:
    """'cups' for 2, 'cup' for 1 or 1/2; abbreviations (tbsp, g) never change."""
    if unit in _INVARIANT or quantity is None or 0 < quantity <= 1:
        return unit
    return plural(unit)


def quantity_text(quantity: float) -> str:
    """'1 1/2', '1/3', '2', '0.15': a fraction when the amount is one exactly (halves, thirds, quarters, eighths)."""
    whole = math.floor(quantity + 1e-9)
    rest = quantity - whole
    if abs(rest) < 1e-9:
        return str(int(whole))
    for denominator in _FRACTION_DENOMINATORS:
        numerator = rest * denominator
        if abs(numerator - round(numerator)) < 1e-9 * denominator:
            fraction = f"{round(numerator)}/{denominator}"
            return f"{int(whole)} {fraction}" if whole else fraction
    return repr(round(quantity, 9)).rstrip("0").rstrip(".") if "e" not in repr(quantity) else f"{quantity:.6f}".rstrip("0")


def _named(unit: str | None) -> str:
    return f"'{unit}'" if unit else "a count (no unit)"


def _kind(unit: str | None) -> str:
    kind = dimension(unit)
    return {"volume": "a volume", "mass": "a weight"}.get(kind, f"a count of {unit or 'pieces'}")


def _units_like(unit: str | None) -> set[str]:
    kind = dimension(unit)
    return set(VOLUME_ML) if kind == "volume" else set(MASS_G) if kind == "mass" else {unit or "piece"}
