"""Units, quantities and durations as recipes write them, normalized, converted and shown sensibly.

Text rules: 'Tablespoons' becomes 'tbsp', '1 1/2' becomes 1.5, '1 hr 15 min' or 'PT1H15M' becomes 75.
Conversion only within a dimension (volume: tsp, tbsp, cup, ml, ...; mass: g, kg, oz, lb); cups and
grams never meet without a density, and a count unit (clove, can) only adds to itself. Sensible
amounts pick the unit a cook would write (3 tsp -> 1 tbsp, 1500 g -> 1.5 kg) and round to kitchen
fractions, never to '0.333333 egg'. Anything a rule cannot read is reported, never guessed.
"""

from __future__ import annotations

import math
import re
from datetime import timedelta
from functools import lru_cache
from typing import NamedTuple

import isodate

from alfred_mcp.kitchen.schema import UNITS

EXTRA_UNITS: tuple[str, ...] = (
    "fl oz", "quart", "pint", "dash", "drop", "sprig", "stalk", "stick", "leaf", "handful", "jar",
    "package", "packet", "sheet", "ear", "strip", "wedge", "loaf", "inch", "cube", "scoop", "splash",
)
"""Common recipe units the schema does not list, but that are still units (kept without a warning)."""

KNOWN_UNITS: frozenset[str] = frozenset(UNITS + EXTRA_UNITS)

# Only these differ from their lowercase form: a capital T is a tablespoon, a small t a teaspoon.
_CASE_SENSITIVE_ALIASES = {"T": "tbsp", "t": "tsp", "Tb": "tbsp", "TB": "tbsp"}

UNIT_ALIASES: dict[str, str] = {
    **dict.fromkeys(("pound", "pounds", "lbs", "#"), "lb"),
    **dict.fromkeys(("ounce", "ounces", "ozs"), "oz"),
    **dict.fromkeys(("gram", "grams", "gr", "gm", "gms"), "g"),
    **dict.fromkeys(("kilogram", "kilograms", "kilo", "kilos", "kgs"), "kg"),
    **dict.fromkeys(("milliliter", "milliliters", "millilitre", "millilitres", "mls"), "ml"),
    **dict.fromkeys(("liter", "liters", "litre", "litres", "ltr", "ltrs"), "l"),
    **dict.fromkeys(("tablespoon", "tablespoons", "tbs", "tbl", "tbsps", "tblsp"), "tbsp"),
    **dict.fromkeys(("teaspoon", "teaspoons", "tsps"), "tsp"),
    **dict.fromkeys(("filet", "filets"), "fillet"),
    **dict.fromkeys(("pc", "pcs", "each", "ea", "whole", "count", "ct"), "piece"),
    **dict.fromkeys(("tin", "tins"), "can"),
    **dict.fromkeys(("gal", "gals"), "gallon"),
    **dict.fromkeys(("fluid ounce", "fluid ounces", "fl. oz", "floz"), "fl oz"),
    **dict.fromkeys(("qt", "qts"), "quart"),
    **dict.fromkeys(("pt", "pts"), "pint"),
    **dict.fromkeys(("pkg", "pkgs"), "package"),
    "leaves": "leaf",
    "loaves": "loaf",
}
"""Lowercase spellings (plurals of known units are folded without an entry) -> canonical unit."""

_FRACTIONS = {
    "½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅕": "1/5", "⅖": "2/5", "⅗": "3/5",
    "⅘": "4/5", "⅙": "1/6", "⅚": "5/6", "⅛": "1/8", "⅜": "3/8", "⅝": "5/8", "⅞": "7/8",
}
_NUMBER_WORDS = {
    "a": 1.0, "an": 1.0, "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "six": 6.0,
    "half": 0.5, "dozen": 12.0,
}
_NUM = r"(?:[0-9]+\s+[0-9]+/[0-9]+|[0-9]+/[0-9]+|[0-9]+(?:\.[0-9]+)?|\.[0-9]+)"
_MIXED_HYPHEN = re.compile(r"^([0-9]+)-([0-9]+/[0-9]+)(?![0-9/])")
_RANGE = re.compile(rf"^({_NUM})\s*(?:-|–|—|to|or)\s*({_NUM})")
_NUMBER = re.compile(rf"^({_NUM})")
_WORD = re.compile(r"^([a-z]+)\b", re.IGNORECASE)


@lru_cache(maxsize=4096)
def normalize_unit(text: str | None) -> str | None:
    """The canonical unit for `text` ('Tbsp.' -> 'tbsp'); unknown units come back trimmed and lowercased."""
    if text is None:
        return None
    stripped = " ".join(text.split())
    if not stripped:
        return None
    if stripped.rstrip(".") in _CASE_SENSITIVE_ALIASES:
        return _CASE_SENSITIVE_ALIASES[stripped.rstrip(".")]
    lowered = stripped.lower().rstrip(".")
    if lowered in KNOWN_UNITS:
        return lowered
    if lowered in UNIT_ALIASES:
        return UNIT_ALIASES[lowered]
    return _singular_unit(lowered) or stripped.lower()


def _singular_unit(text: str) -> str | None:
    """'cups' -> 'cup', 'bunches' -> 'bunch', for known units only."""
    for suffix in ("es", "s"):
        if text.endswith(suffix) and text[: -len(suffix)] in KNOWN_UNITS:
            return text[: -len(suffix)]
    return None


def is_known_unit(unit: str | None) -> bool:
    """True for a canonical unit: the schema's UNITS or one of EXTRA_UNITS."""
    return unit in KNOWN_UNITS


class Quantity(NamedTuple):
    """A quantity as read from a number or text."""

    value: float | None
    """The amount; None when no number could be read (or nothing was given)."""
    unit: str | None
    """A known unit written after the number ('2 lb'), else None."""
    issue: str | None
    """Why the text is not captured exactly by (value, unit): a range, extra words, no number."""


@lru_cache(maxsize=4096)
def parse_quantity(value: float | int | str | None) -> Quantity:
    """Read 2, 1.5, '1/2', '1 1/2', '1-1/2', '½', 'a', '2 lb' and ranges such as '2-3' (lower bound).

    Never raises: what cannot be read is described in `issue`.
    """
    if value is None:
        return Quantity(None, None, None)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return Quantity(None, None, f"{value!r} is not a number")
    if isinstance(value, (int, float)):
        if math.isfinite(value) and value >= 0:
            return Quantity(float(value), None, None)
        return Quantity(None, None, f"{value!r} is not a quantity (it must be a finite number, 0 or more)")
    return _parse_quantity_text(value)


def _parse_quantity_text(text: str) -> Quantity:
    original = " ".join(text.split())
    if not original:
        return Quantity(None, None, None)
    spaced = _spell_fractions(original)
    amount, rest, issue = _leading_amount(spaced, original)
    if amount is None or not math.isfinite(amount):
        return Quantity(None, None, f"'{original}' is not a number")
    if not rest:
        return Quantity(amount, None, issue)
    unit = normalize_unit(rest)
    if is_known_unit(unit):
        return Quantity(amount, unit, issue)
    return Quantity(amount, None, issue or f"'{original}' has words after the number that are not a unit")


def _spell_fractions(text: str) -> str:
    """'1½' -> '1 1/2', '⅓' -> '1/3', '1⁄2' -> '1/2'."""
    text = text.replace("⁄", "/")
    for glyph, spelled in _FRACTIONS.items():
        text = re.sub(rf"([0-9])\s*{glyph}", rf"\1 {spelled}", text).replace(glyph, spelled)
    return text


def _leading_amount(text: str, original: str) -> tuple[float | None, str, str | None]:
    """(amount, text after it, issue) for the number, mixed number, range or number word at the start."""
    mixed = _MIXED_HYPHEN.match(text)
    if mixed:
        return _number(f"{mixed.group(1)} {mixed.group(2)}"), text[mixed.end():].strip(), None
    ranged = _RANGE.match(text)
    if ranged:
        low = _number(ranged.group(1))
        issue = f"'{original}' is a range" if low is not None else None
        return low, text[ranged.end():].strip(), issue
    number = _NUMBER.match(text)
    if number:
        return _number(number.group(1)), text[number.end():].strip(), None
    word = _WORD.match(text)
    if word and word.group(1).lower() in _NUMBER_WORDS:
        return _NUMBER_WORDS[word.group(1).lower()], text[word.end():].strip(), None
    return None, text, None


def _number(text: str) -> float | None:
    """'1 1/2' -> 1.5, '3/4' -> 0.75, '2.5' -> 2.5; None for a zero denominator or an overflow."""
    whole, _, fraction = text.rpartition(" ") if "/" in text and " " in text else ("", "", text)
    try:
        if "/" in fraction:
            numerator, denominator = fraction.split("/")
            return (float(whole) if whole else 0.0) + int(numerator) / int(denominator)
        return float(fraction)
    except (ZeroDivisionError, OverflowError):
        return None


_DURATION_PART = re.compile(
    r"([0-9]+(?:\.[0-9]+)?)\s*(h|hr|hrs|hour|hours|m|min|mins|minute|minutes)(?![a-z])", re.IGNORECASE
)


def parse_minutes(value: int | float | str) -> int:
    """Whole minutes from 25, '25', '25 min', '1 hr 15 min', '1.5 hours' or an ISO 8601 duration ('PT1H15M', 'P0DT20M').

    Raises:
        ValueError: not a single duration (ranges such as '20-25 min' included), or negative.
    """
    if isinstance(value, bool):
        raise ValueError("must be a number of minutes, such as 25")
    if isinstance(value, (int, float)):
        return _whole_minutes(float(value))
    text = value.strip()
    if re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", text):
        return _whole_minutes(float(text))
    if text[:1].upper() == "P":
        return iso_minutes(text)
    return _minutes_from_words(text)


def iso_minutes(text: str) -> int:
    """Whole minutes of an ISO 8601 duration such as 'PT1H30M', 'P0DT0H20M' or 'PT90.5M'.

    Raises:
        ValueError: not an ISO 8601 duration, or one in months or years (not a cooking time).
    """
    try:
        duration = isodate.parse_duration(text.strip().upper())
    except (isodate.ISO8601Error, ValueError):
        raise ValueError(f"{text!r} is not an ISO 8601 duration such as PT1H30M") from None
    if not isinstance(duration, timedelta):
        raise ValueError(f"{text!r} is counted in months or years, not a cooking time")
    return _whole_minutes(duration.total_seconds() / 60)


def iso_duration(minutes: int) -> str:
    """'PT1H30M' for 90, 'PT20M' for 20, 'PT0M' for 0: how schema.org writes a cooking time."""
    hours, rest = divmod(minutes, 60)
    return "PT" + (f"{hours}H" if hours else "") + (f"{rest}M" if rest or not hours else "")


def _minutes_from_words(text: str) -> int:
    parts = list(_DURATION_PART.finditer(text))
    leftover = re.sub(r"\band\b", "", _DURATION_PART.sub("", text), flags=re.IGNORECASE).strip(" ,")
    if not parts or leftover:
        raise ValueError(f"{text!r} is not a duration; give whole minutes, such as 25")
    total = sum(float(p.group(1)) * (60 if p.group(2).lower().startswith("h") else 1) for p in parts)
    return _whole_minutes(total)


def _whole_minutes(minutes: float) -> int:
    if not math.isfinite(minutes) or minutes < 0:
        raise ValueError("must be 0 minutes or more")
    return round(minutes)
