"""An ingredient line on a recipe card as a cook writes it: what the notes say about the amount goes into the line.

A stored ingredient keeps its size, package size and range in its notes ('onion', notes 'large; finely chopped');
a cook writes them where they belong: '1 large onion, finely chopped', '1 (14-oz) can coconut milk', '2–3 tbsp
curry powder', '1 1/2 cups (190 g) basmati rice', 'salt and pepper to taste', '2 thumb-sized pieces ginger, grated'. `card_line` takes the line's
text (the amount and name, as `measures.line_text` writes them) and its notes, and returns both as the card shows
them: the text with those parts in it, and the notes left. Pure.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from alfred_mcp.kitchen.ingredient_kinds import CUT_AXES, FORM_WORDS
from alfred_mcp.kitchen.measures import Amount, part_can_use, quantity_text, unit_word
from alfred_mcp.kitchen.plurals import plural
from alfred_mcp.kitchen.units import parse_quantity

SEPARATOR = "; "
PACKAGES = frozenset({"can", "tin", "jar", "package", "packet", "bag", "box", "carton", "bottle", "container", "tub"})
"""Units bought as a package whose size a cook writes in parentheses before them: '1 (14-oz) can'."""
_SIZE = re.compile(
    r"^(?:small|medium|large|extra[- ]large|jumbo|big|[a-z]+-sized|heaping|heaped|level|scant|generous|"
    r"\d+(?:\s*\d/\d|/\d|\.\d+)?[- ]?(?:inch|cm))$", re.IGNORECASE)
_PACKAGE_SIZE = re.compile(r"^(\d+(?:[.,]\d+)?(?:\s+\d/\d)?)[\s-]*(oz|ounces?|lb|pounds?|g|grams?|kg|ml|l|fl oz)\.?$", re.IGNORECASE)
_RANGE = re.compile(r"^(\d+(?:\s+\d/\d|/\d|\.\d+)?)\s*(?:-|–|—|to)\s*(\d+(?:\s+\d/\d|/\d|\.\d+)?)$")
_SIZE_OF_THING = re.compile(r"^(?:small|medium|large|extra[- ]large|jumbo|big)$", re.IGNORECASE)
"""Sizes said of the thing itself ('3 large eggs'), not of a piece cut from it ('2 thumb-sized pieces ginger')."""
_PROPER = {word: word.title() for word in (
    "greek", "yukon gold", "kalamata", "san marzano", "dijon", "thai", "italian", "persian", "english", "japanese",
    "mexican", "french", "spanish", "indian", "chinese", "korean", "vietnamese", "parmigiano-reggiano", "gruyère",
    "gruyere", "worcestershire", "tabasco", "sriracha", "cajun", "creole", "turkish", "moroccan", "thai-style")}
_PROPER_WORDS = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _PROPER), key=len, reverse=True)) + r")\b", re.IGNORECASE)
"""Names of places and makers, capitalised wherever a card writes them: 'Greek yogurt', 'Yukon Gold'."""
_STATES = (
    "dry", "sweet", "unsalted", "salted", "ripe", "extra-virgin", "low-sodium", "reduced-sodium", "plain", "smoked",
    "toasted", "roasted", "raw", "cooked", "firm", "extra-firm", "full-fat", "low-fat", "packed", "light", "dark", "hot",
    "cold", "warm", "day-old", "stale", "russet",
)
"""States and grades a cook writes before the name that no vocabulary of the project holds: the kinds vocabulary
(`ingredient_kinds`: forms and cuts, what makes another purchase) and the taxonomy (what a thing is) say nothing of
how ripe, salted or toasted it is, which changes neither the purchase nor the thing; so they are listed here."""
STATE_WORDS = (*FORM_WORDS, *(cut for axis in CUT_AXES.values() for cut in axis.values()), *_STATES)
"""The forms, cuts and states a cook writes before the name ('skin-on', 'extra-virgin'), as they are written."""
QUALITY_WORDS = (*STATE_WORDS, *_PROPER)
_QUALITY = re.compile(
    "^(?:" + "|".join(re.escape(word).replace(r"\-", "[- ]").replace(r"\ ", "[- ]")
                      for word in sorted(set(QUALITY_WORDS), key=len, reverse=True)) + ")$", re.IGNORECASE)
"""A quality or variety a cook writes right before the name ('1/2 cup dry white wine', 'Yukon Gold potatoes'): the
forms and cuts of `ingredient_kinds`, the places and makers of `_PROPER`, and the states above."""
_QUALITY_AS_WRITTEN = {re.sub(r"[- ]", " ", word): word for word in QUALITY_WORDS}
"""Each quality as the vocabulary writes it ('skin on' is written 'skin-on' before the name)."""
_SAID_AFTER = re.compile(r"^(?:to taste|as needed|for garnish|for serving|for frying)$", re.IGNORECASE)
"""Notes a cook writes after the name without a comma: 'salt and pepper to taste'."""
_EACH = re.compile(r"\s+each\b", re.IGNORECASE)
_IMPERIAL = {"oz": "oz", "ounce": "oz", "ounces": "oz", "lb": "lb", "pound": "lb", "pounds": "lb"}


class CardLine(NamedTuple):
    text: str
    notes: str | None


def card_line(text: str, quantity: float | None, unit: str | None, name: str, notes: str | None,
              written: Amount | None = None, factor: float = 1.0) -> CardLine:
    """The line and its notes as a card shows them. `written` is the stored amount and `factor` what the line is
    scaled by: a range in the notes whose lower end is the stored quantity becomes the amount, both ends scaled in
    the stored unit ('2–3 tbsp' as written, '4–6 tbsp' for twice the servings). Part of a can says what to open and
    measure (`measures.part_can_use`)."""
    if notes and quantity is not None and quantity <= 1:  # 'each' of one thing: '1 cod fillet, about 6 oz'
        notes = _EACH.sub("", notes)
    shown = _written(text, quantity, unit, name, notes, written, factor)
    said = SEPARATOR.join(part for part in (shown.notes, part_can_use(shown.text, name)) if part) or None
    return CardLine(proper_names(shown.text), None if said is None else proper_names(said))


def proper_names(text: str) -> str:
    """Names of places and makers capitalised as a card writes them: 'kalamata olives' -> 'Kalamata olives'."""
    return _PROPER_WORDS.sub(lambda found: _PROPER[found.group(1).lower()], text)


def _before_name(parts: list[str], name: str) -> list[str]:
    """The notes with leading sizes and qualities said apart ('large, plus 1 extra yolk' -> 'large', 'plus 1 extra
    yolk'; 'bone-in, skin-on' -> 'bone-in', 'skin-on'), so they can go before the name; a quality the name already
    says stays where it is."""
    split: list[str] = []
    for part in parts:
        head, comma, rest = part.partition(", ")
        while comma and head.lower() not in name.lower() and (_SIZE.match(head) or _QUALITY.match(head)):
            split.append(head)
            head, comma, rest = rest.strip().partition(", ")
        split.append(f"{head}{comma}{rest}")
    return [part for part in split if part]


def _written(text: str, quantity: float | None, unit: str | None, name: str, notes: str | None,
             written: Amount | None, factor: float) -> CardLine:
    parts = [part.strip() for part in (notes or "").split(SEPARATOR) if part.strip()]
    if quantity is None or not text.endswith(_tail(text, name)):
        return _said_after(text, parts)
    parts = _before_name(parts, name)
    words = text.split(" ")
    count = len(_tail(text, name).split(" "))
    amount, named = words[:-count], words[-count:]
    unit_words = amount[-1:] if unit not in (None, "piece") and len(amount) >= 2 else []
    number = amount[: len(amount) - len(unit_words)]
    size: str | None = None
    package: str | None = None
    quality: list[str] = []
    kept: list[str] = []
    for part in parts:
        if size is None and _SIZE.match(part):
            size = part.lower()
        elif _QUALITY.match(part) and part.lower() not in name.lower():
            quality = [", ".join([*quality, _QUALITY_AS_WRITTEN.get(re.sub(r"[- ]", " ", part.lower()), part.lower())])]
        elif package is None and unit_words and (measure := _PACKAGE_SIZE.match(part)):
            package = f"({_package_text(measure)})" if unit in PACKAGES else f"({measure.group(1)} {measure.group(2)})"
        elif written is not None and (ranged := _RANGE.match(part)) and _is(ranged.group(1), written.quantity):
            number, unit_words = _range_words(ranged, written.unit, factor)
        else:
            kept.append(part)
    if unit == "piece" and size is not None and not _SIZE_OF_THING.match(size):  # '2 thumb-sized pieces', '3 large eggs'
        unit_words = ["piece" if quantity <= 1 else plural("piece")]
    if package is not None and any(word.startswith("(") for word in number):  # the notes' size for the one sensible wrote
        number = [word for word in number if not word.startswith("(")]
    if unit in PACKAGES:  # '1 (14-oz) large can': the package size first
        head = [*number, *([package] if package else []), *([size] if size else []), *unit_words]
    else:  # '1 1/2 heaping cups (190 g)', '2 large'
        head = [*number, *([size] if size else []), *unit_words, *([package] if package else [])]
    return _said_after(" ".join([*head, *quality, *named]), kept)


def _tail(text: str, name: str) -> str:
    """The words of `text` that are the name (the name may be written in its plural: 'lemons')."""
    size = len(name.split(" "))
    return " ".join(text.split(" ")[-size:]) if len(text.split(" ")) > size else ""


def _package_text(found: re.Match[str]) -> str:
    number, unit = found.group(1), found.group(2).lower()
    return f"{number}-{_IMPERIAL[unit]}" if unit in _IMPERIAL else f"{number} {unit}"


def _is(text: str, quantity: float) -> bool:
    read = parse_quantity(text)
    return read.value is not None and abs(read.value - quantity) < 1e-9


def _range_words(found: re.Match[str], unit: str | None, factor: float) -> tuple[list[str], list[str]]:
    """'2-3' of tbsp times 2 -> (['4–6'], ['tbsp']): both ends scaled, to the nearest quarter, in the stored unit."""
    low, high = (max(0.125, round((parse_quantity(end).value or 0.0) * factor * 4) / 4) for end in found.groups())
    return [f"{quantity_text(low)}–{quantity_text(high)}"], [] if unit in (None, "piece") else [unit_word(unit, high)]


def _said_after(text: str, parts: list[str]) -> CardLine:
    """'salt and pepper' with notes 'to taste' -> 'salt and pepper to taste'."""
    after = [part for part in parts if _SAID_AFTER.match(part)]
    rest = [part for part in parts if part not in after]
    return CardLine(" ".join([text, *after]), SEPARATOR.join(rest) or None)
