"""One ingredient line of a recipe as text, read into quantity / unit / name / notes, and written back.

'1 1/2 cups all-purpose flour, sifted' -> 1.5, cup, 'all-purpose flour', 'sifted'; 'a pinch of salt' ->
1, pinch, 'salt'; '1 (14 oz) can tomatoes' -> 1, can, 'tomatoes', notes '14 oz'; 'salt to taste' -> 'salt',
notes 'to taste'; '3 garlic cloves' -> 3, clove, 'garlic' (the count is of the part the name ends with); 'a
thumb-sized piece of ginger' -> 1, piece, 'ginger', notes 'thumb-sized'; 'juice of half a lemon' -> 0.5, 'lemon',
notes 'juiced'. `ingredient_line` writes the inverse, so a line written here reads back the same.
Rules, not a model: what a rule cannot place stays in the name, and the issue says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from alfred_mcp.kitchen.measures import convert, convertible, dimension, quantity_text, unit_word
from alfred_mcp.kitchen.units import is_known_unit, normalize_unit, parse_quantity

_BULLET = re.compile(r"^(?:[-*•·▢☐◦‣]|\d+[.)](?=\s))\s*")
_NUMBER = r"(?:\d+\s+\d+/\d+|\d+/\d+|\d+(?:\.\d+)?|\.\d+)"
_AMOUNT = re.compile(rf"^(?P<amount>{_NUMBER}(?:\s*(?:-|–|—|to)\s*{_NUMBER})?)(?=\s|[a-zA-Z(]|$)\s*")
_ARTICLE = re.compile(r"^(?:a|an|one)\s+(?!few\b|couple\b|little\b|bit\b)", re.IGNORECASE)
_PAREN = re.compile(r"^\(([^()]{1,60})\)\s*")
_OF = re.compile(r"^of\s+", re.IGNORECASE)
_PART_OF = re.compile(r"^(?:the\s+)?(juice|zest|zest\s+and\s+juice|juice\s+and\s+zest)\s+of\s+(?=\S)", re.IGNORECASE)
"""'juice of 1 lime': the part of the fruit, which is the line's note ('1 lime, juiced')."""
_PART_NOTE = {"juice": "juiced", "zest": "zested"}
_OPTIONAL = re.compile(r"(?:\s*\(optional\)|,\s*optional)\s*$", re.IGNORECASE)
_TRAILING_PAREN = re.compile(r"\s*\(([^()]{1,120})\)$")
_SIZE = re.compile(
    r"^(small|medium|large|extra[- ]large|jumbo|big|[a-z]+-sized|heaping|heaped|level|scant|generous|"
    r"\d+(?:\s*\d/\d|/\d|\.\d+)?[- ]?(?:inch|in|cm)(?:es)?(?![a-z]))\s+(?=\S)", re.IGNORECASE)
"""A size said before the unit ('a thumb-sized piece of ginger', '1 heaping tbsp', '2 1-inch pieces') or the name
('2 large eggs'): a note."""
_DONE = (r"(?:chopped|minced|diced|sliced|shredded|grated|crumbled|melted|softened|beaten|whisked|mashed|peeled|"
         r"deveined|seeded|pitted|cored|trimmed|crushed|cubed|halved|quartered|julienned|torn|sifted|packed|rinsed|"
         r"drained|squeezed|zested|juiced|separated|cut|ripe|room[- ]temperature|(?<=freshly )ground)")
_PREPARED = re.compile(
    rf"^((?:(?:finely|thinly|roughly|coarsely|freshly|lightly|firmly|very|well|loosely|tightly|cold|hot)\s+)*{_DONE}"
    rf"(?:(?:\s*,\s*|\s+and\s+|\s+)(?:(?:finely|thinly|roughly|coarsely|freshly|lightly|firmly)\s+)*{_DONE})*)\s+(?=\S)",
    re.IGNORECASE)
"""How the thing is prepared, said before its name ('1 cup shredded red cabbage', '2 tbsp finely chopped parsley',
'peeled and deveined shrimp'): the notes, so the name is what the pantry and the catalog call it."""
_PREPARED_PRODUCTS = re.compile(r"^(?:tomato(?:es)?|almonds?|coconut|red pepper(?: flakes)?|chilli(?:es)?|chili(?:es)?)\b", re.IGNORECASE)
"""Names a preparation word is part of, as they are sold: 'crushed tomatoes', 'sliced almonds', 'shredded coconut',
'crushed red pepper'."""
_HALF = re.compile(r"^(?:half\s+(?:a|an)|a\s+half|one\s+half)\s+(?:of\s+)?(?=\S)", re.IGNORECASE)
"""'half a lemon' (juice of half a lemon): one half."""
PART_UNITS = frozenset({"clove", "sprig", "stalk", "head", "bunch"})
"""Units a name may end with ('3 garlic cloves'): the count is of those, and the name is what the pantry holds."""
_PLURAL_MARK = re.compile(r"\((?:e?s)\)$", re.IGNORECASE)
"""'slice(s)', 'pinch(es)': a unit written for one or many."""
_DECIMAL_COMMA = re.compile(r"^(\d+),(\d{1,2})(?![\d,])")
"""'1,5 TL', '0,5 stk': a decimal comma in a leading amount (never '1,500', a thousands separator)."""
_THOUSANDS = re.compile(r"^(\d{1,3}(?:,\d{3})+)(?![\d,])")
_TRAILING_NOTE = re.compile(r"\s+(to taste|as needed|for garnish|for serving|for frying)$", re.IGNORECASE)
_FRACTIONS = {
    "½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅛": "1/8", "⅜": "3/8", "⅝": "5/8", "⅞": "7/8",
    "⅕": "1/5", "⅖": "2/5", "⅗": "3/5", "⅘": "4/5", "⅙": "1/6", "⅚": "5/6",
}
MAX_NAME = 200
MAX_NOTES = 500


@dataclass(frozen=True)
class IngredientLine:
    """An ingredient as a recipe draft holds it."""

    name: str
    quantity: float | str | None = None
    """A number, or text the draft keeps as written (a range such as '2-3')."""
    unit: str | None = None
    notes: str | None = None
    is_optional: bool = False
    issue: str | None = None
    """What the rules could not place (the line is still kept, whole, in the name)."""

    def as_item(self) -> dict[str, object]:
        """The line as a recipe draft's ingredient."""
        item: dict[str, object] = {"name": self.name}
        for key in ("quantity", "unit", "notes"):
            if getattr(self, key) is not None:
                item[key] = getattr(self, key)
        if self.is_optional:
            item["is_optional"] = True
        return item


def parse_ingredient_line(text: str) -> IngredientLine:
    """The line read into its parts; never raises (an unreadable line becomes a name with an issue)."""
    line = _spell_fractions(" ".join(text.split()))
    line = _BULLET.sub("", line)
    part = _PART_OF.match(line)
    if part:
        read = parse_ingredient_line(line[part.end():])
        said = " ".join(part.group(1).lower().split())
        noted = "; ".join(n for n in (_PART_NOTE.get(said, said), read.notes) if n)
        return read if read.issue else replace(read, notes=noted[:MAX_NOTES])
    optional = bool(_OPTIONAL.search(line))
    line = _OPTIONAL.sub("", line)
    quantity, line, said_a = _take_amount(line)
    notes: list[str] = []
    line = _take_paren(line, notes)
    unit, line = _take_unit(line, counted=quantity is not None or said_a)
    quantity, unit, line = _take_added(quantity, unit, line)
    sized = _SIZE.match(line) if unit is None else None
    if sized:
        unit, rest = _take_unit(line[sized.end():], counted=quantity is not None or said_a)
        if unit is not None:
            notes.append(sized.group(1).lower())
            line = rest
    if said_a:
        quantity = 1.0
    line = _take_paren(line, notes)
    name, _, rest = line.partition(", ")
    if rest:
        notes.append(rest.strip())
    trailing = _TRAILING_NOTE.search(name)
    if trailing:
        notes.append(trailing.group(1))
        name = name[: trailing.start()]
    name = _apart(_OF.sub("", name.strip(" ,")), notes)
    if unit is None and quantity is not None:
        unit, name = _part_unit(name)
    if not name:
        return IngredientLine(name=_clip(" ".join(text.split())), issue=f"'{text.strip()}' names no ingredient")
    return IngredientLine(
        name=_clip(name), quantity=quantity, unit=unit, notes="; ".join(notes)[:MAX_NOTES] or None, is_optional=optional,
    )


def _apart(name: str, notes: list[str]) -> str:
    """What belongs in the notes taken out of the name: a closing parenthesis ('chicken thighs (skin-on)') and a
    size ('large eggs' -> eggs, large), so the name is what the pantry and the catalog call it."""
    while (trailing := _TRAILING_PAREN.search(name)) and trailing.start() > 0:
        notes.insert(0, trailing.group(1).strip())
        name = name[: trailing.start()].rstrip(" ,")
    said: list[str] = []
    while True:
        size = _SIZE.match(name)
        prepared = _PREPARED.match(name) if size is None else None
        found = size or prepared
        rest = name[found.end():] if found else ""
        if not found or len(rest.strip()) <= 1 or (prepared and _PREPARED_PRODUCTS.match(rest)):
            break
        said.append(" ".join(found.group(1).lower().split()))
        name = rest
    notes[:0] = said
    return name.strip(" ,")


def ingredient_line(name: str, quantity: float | None, unit: str | None, notes: str | None, is_optional: bool) -> str:
    """The line `parse_ingredient_line` reads back as these parts: '1 1/2 cups flour, sifted (optional)'."""
    if quantity is None:
        head = f"{unit} of {name}" if unit else name
    else:
        head = " ".join(part for part in (quantity_text(quantity), unit and unit_word(unit, quantity), name) if part)
    line = f"{head}, {notes}" if notes else head
    return f"{line} (optional)" if is_optional else line


def _part_unit(name: str) -> tuple[str | None, str]:
    """'garlic cloves' -> ('clove', 'garlic'): a name ending with a part the count is of."""
    head, _, last = name.rpartition(" ")
    unit = normalize_unit(last) if head.strip() else None
    return (unit, head.strip()) if unit in PART_UNITS else (None, name)


def _take_amount(line: str) -> tuple[float | str | None, str, bool]:
    """(quantity, rest, whether the line began with 'a'/'an'/'one' instead of a number)."""
    half = _HALF.match(line)
    if half:
        return 0.5, line[half.end():], False
    match = _AMOUNT.match(line)
    if match:
        text = match.group("amount")
        parsed = parse_quantity(text)
        quantity: float | str | None = parsed.value if parsed.issue is None else text.replace(" to ", "-")
        return quantity, line[match.end():], False
    article = _ARTICLE.match(line)
    if article:
        return None, line[article.end():], True
    return None, line, False


_ADDED = re.compile(rf"^(?:\+|plus)\s+(?P<amount>{_NUMBER})\s+", re.IGNORECASE)
"""'+ 2 tsp' or 'plus 2 teaspoons' after an amount: a second measure added to the first ('1 tbsp + 2 tsp')."""


def _take_added(quantity: float | str | None, unit: str | None, line: str) -> tuple[float | str | None, str | None, str]:
    """A measure added to the first ('1 tbsp + 2 tsp ginger', '1 cup plus 2 tablespoons flour'): the sum, in the smaller
    unit (5 tsp, 18 tbsp); the line unchanged when what follows is no measure of the same kind."""
    added = _ADDED.match(line)
    if added is None or not isinstance(quantity, float) or unit is None or dimension(unit).startswith("count:"):
        return quantity, unit, line
    more, rest = _take_unit(line[added.end():], counted=True)
    value = parse_quantity(added.group("amount")).value
    if more is None or value is None or not convertible(unit, more):
        return quantity, unit, line
    return round(convert(quantity, unit, more) + value, 6), more, rest


def _take_paren(line: str, notes: list[str]) -> str:
    match = _PAREN.match(line)
    if match:
        notes.append(match.group(1).strip())
        return line[match.end():]
    return line


def _take_unit(line: str, *, counted: bool) -> tuple[str | None, str]:
    """A known unit at the start ('cups', 'Tbsp.', 'fl oz'); without a number it must be followed by 'of'."""
    words = line.split(" ")
    for size in (2, 1):
        if len(words) <= size:
            continue
        candidate = _PLURAL_MARK.sub("", " ".join(words[:size]))
        unit = normalize_unit(candidate)
        if unit is None or not is_known_unit(unit) or "-" in candidate:
            continue
        rest = " ".join(words[size:])
        if _OF.match(rest):
            return unit, _OF.sub("", rest)
        if counted:
            return unit, rest
    return None, line


def _spell_fractions(text: str) -> str:
    text = text.replace("⁄", "/")
    for glyph, spelled in _FRACTIONS.items():
        text = re.sub(rf"(\d)\s*{glyph}", rf"\1 {spelled}", text).replace(glyph, spelled)
    text = _THOUSANDS.sub(lambda match: match.group(1).replace(",", ""), _DECIMAL_COMMA.sub(r"\1.\2", text))
    return re.sub(r"^(\d+(?:\.\d+)?)([a-zA-Z]+)\b", r"\1 \2", text)


def _clip(text: str) -> str:
    return text[:MAX_NAME]
