"""Amounts of ingredients: converted within a dimension, added up, and shown the way a cook writes them.

Volume (tsp, tbsp, cup, fl oz, pint, quart, gallon, ml, l) and mass (g, kg, oz, lb) convert within
themselves; cups and grams never meet (that needs a density, which recipes do not give). Every other
unit is a count of itself: cloves add to cloves, and a missing unit counts pieces. `sensible` picks the
unit a cook would write (3 tsp -> 1 tbsp, 1500 g -> 1.5 kg) and rounds to kitchen fractions; a count is
never shown as '0.333333 egg' (rounded to a half, and the result says it was rounded).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from alfred_mcp.errors import UnitMismatchError

VOLUME_ML: dict[str, float] = {
    "ml": 1.0, "l": 1000.0, "tsp": 4.92892159375, "tbsp": 14.78676478125, "cup": 236.5882365,
    "fl oz": 29.5735295625, "pint": 473.176473, "quart": 946.352946, "gallon": 3785.411784,
}
MASS_G: dict[str, float] = {"g": 1.0, "kg": 1000.0, "oz": 28.349523125, "lb": 453.59237}
_SPOONS = ("tsp", "tbsp", "cup")
_WHOLE_COUNTS = frozenset({"pinch", "dash", "drop", "splash", "handful", "sprig", "leaf"})
_LARGER = {"g": "kg", "ml": "l", "oz": "lb"}
_METRIC = frozenset({"g", "kg", "ml", "l"})
_INVARIANT = frozenset({"g", "kg", "ml", "l", "oz", "lb", "tsp", "tbsp", "fl oz"})
_PLURALS = {"leaf": "leaves", "loaf": "loaves", "pinch": "pinches", "bunch": "bunches", "dash": "dashes", "box": "boxes"}
_FRACTION_DENOMINATORS = (2, 3, 4, 8)


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


def dimension(unit: str | None) -> str:
    """'volume', 'mass', or 'count:<unit>' (a missing unit and 'piece' both count pieces)."""
    if unit in VOLUME_ML:
        return "volume"
    if unit in MASS_G:
        return "mass"
    return f"count:{unit or 'piece'}"


def convertible(a: str | None, b: str | None) -> bool:
    return dimension(a) == dimension(b)


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


def sensible(amount: Amount) -> Shown:
    """The amount in the unit a cook would write, rounded to kitchen fractions."""
    unit: str | None
    if amount.unit in _SPOONS:
        rounded, unit = _spoon_measure(convert(amount.quantity, amount.unit, "tsp"))
    else:
        quantity, unit = _best_unit(amount)
        rounded = _round_for(quantity, unit)
        larger = _LARGER.get(unit or "")
        if larger is not None and rounded >= convert(1, larger, unit):
            unit, rounded = larger, _round_for(convert(rounded, unit, larger), larger)
    exact = convert(amount.quantity, amount.unit, unit)
    drift = abs(rounded - exact) / exact if exact else 0.0
    return Shown(rounded, unit, amount_text(rounded, unit), round(exact, 3) if drift > 0.02 else None)


def _spoon_measure(tsp: float) -> tuple[float, str]:
    """The largest of cup, tbsp, tsp that measures `tsp` within 5% (1/4 cup and 1 tbsp at least): 3 tsp -> 1 tbsp."""
    for unit, smallest, steps in (("cup", 0.25, (4, 3)), ("tbsp", 1.0, (2,))):
        exact = convert(tsp, "tsp", unit)
        rounded = min((round(exact * step) / step for step in steps), key=lambda c: abs(c - exact))
        if rounded >= smallest and abs(rounded - exact) <= 0.05 * exact:
            return rounded, unit
    return _kitchen_fraction(tsp), "tsp"


def _best_unit(amount: Amount) -> tuple[float, str | None]:
    unit, quantity = amount.unit, amount.quantity
    for small, large, step in (("ml", "l", 1000.0), ("g", "kg", 1000.0), ("oz", "lb", 16.0)):
        if unit in (small, large):
            as_small = convert(quantity, unit, small)
            return (as_small / step, large) if as_small >= step else (as_small, small)
    return quantity, unit


def _round_for(quantity: float, unit: str | None) -> float:
    if quantity <= 0:
        return 0.0
    if unit in ("ml", "g"):
        step = 5.0 if quantity >= 100 else 1.0 if quantity >= 10 else 0.5
        return max(step, round(quantity / step) * step)
    if unit in ("l", "kg"):
        return max(0.05, round(quantity, 2))
    if unit in VOLUME_ML or unit in MASS_G:
        return _kitchen_fraction(quantity)
    if unit in _WHOLE_COUNTS:
        return float(max(1, round(quantity)))
    return max(0.5, round(quantity * 2) / 2)


def _kitchen_fraction(quantity: float) -> float:
    """The nearest multiple of 1/8 or 1/3 (a measuring-spoon amount), never 0."""
    candidates = [round(quantity * d) / d for d in (8, 3)]
    best = min(candidates, key=lambda c: (abs(c - quantity), c))
    return best if best > 0 else 1 / 8


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
    return _PLURALS.get(unit, unit + "s")


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
