"""A shopping line as a person writes it, and what it was listed for.

Text: the amount to buy (`measures.to_buy`), then the name ('5 shallots', '2/3 cup pecorino romano'); an amount
in a unit the line's own cannot be added to is kept on the same line, in its notes, as '+ 1 cup', and shown
there: '1 carton + 1 cup buttermilk'.

Source: what the line was listed for, one entry per recipe or meal, joined with '; ':
'Mushroom Risotto (Thu Jan 15 dinner, for 3)' for a planned meal, 'Mushroom Risotto (for 6)' for a
recipe listed at 6 servings. An entry's identity is the entry without its servings; an entry without
servings ('Mushroom Risotto', as a person writes it) covers every use of that recipe. Entries written
before this format (joined with ', ') are read too. Pure.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any, NamedTuple

from alfred_mcp.kitchen.dates import day_text, with_day_text
from alfred_mcp.kitchen.measures import (
    NEED,
    Amount,
    amount_text,
    convert,
    dimension,
    line_text,
    quantity_text,
    sensible,
    to_buy,
    unit_word,
)
from alfred_mcp.kitchen.plurals import counted_name
from alfred_mcp.kitchen.units import parse_quantity

SEPARATOR = "; "
SHORT = " (short "
EXTRA = "+ "
"""Notes segments starting with this are amounts of the line in another unit."""
PANTRY = "the pantry has "
"""A notes segment starting with this says what the pantry held when the line was listed: the line is the shortfall."""
PARTS = "with the "
"""A notes segment starting with this names the yolks or whites a line of eggs is bought for ('with the 3 yolks')."""
MAX_SOURCE = 2_000
_ENTRY = re.compile(r"^(?P<who>.+?)(?: \((?P<when>[^()]*?)(?:, )?(?:for (?P<servings>\d+))?\))?$")


class Listed(NamedTuple):
    """One entry of a line's source."""

    identity: str
    """The recipe or meal, without servings: 'Mushroom Risotto (Thu Jan 15 dinner)' or 'Mushroom Risotto'."""
    servings: int | None
    """The servings listed; None when the entry does not say (it then covers any servings)."""
    text: str


def meal_entry(recipe: str, day: date, meal_type: str, servings: int) -> Listed:
    identity = f"{_plain(recipe)} ({day_text(day)} {meal_type})"
    return Listed(identity, servings, f"{identity[:-1]}, for {servings})")


def recipe_entry(recipe: str, servings: int | None) -> Listed:
    name = _plain(recipe)
    return Listed(name, servings, name if servings is None else f"{name} (for {servings})")


def _plain(name: str) -> str:
    """The name as an entry holds it: one line, no separator inside."""
    return " ".join(name.replace(";", ",").split())


def source_entries(source: str | None) -> list[Listed]:
    """The entries of a line's source, in order (a person's free text is one entry, covering nothing listed)."""
    text = (source or "").strip()
    if not text:
        return []
    parts = text.split(SEPARATOR) if SEPARATOR in text or "(" in text else text.split(", ")
    return [_entry(part.strip()) for part in parts if part.strip()]


def _entry(text: str) -> Listed:
    text = with_day_text(text)  # an entry written before days were written one way is the same entry
    match = _ENTRY.match(text)
    if match is None or match.group("servings") is None:
        return Listed(text, None, text)
    when = (match.group("when") or "").strip(" ,")
    identity = f"{match.group('who')} ({when})" if when else match.group("who")
    return Listed(identity, int(match.group("servings")), text)


def listed_recipes(source: str | None) -> list[str]:
    """The recipes a line's source names: each entry's recipe ('Mushroom Risotto (Thu Jan 15 dinner, for 3)' ->
    'Mushroom Risotto'), and the whole source as one name too ('Chicken, Leek Pie' may be one recipe)."""
    names = [_recipe_of(entry) for entry in source_entries(source)]
    whole = " ".join((source or "").split())
    return [*names, whole] if whole and whole not in names else names


def covering(sources: Iterable[str | None], identity: str, recipe: str) -> Listed | None:
    """The entry of these sources that already lists a use: the same identity, or the recipe named without servings
    (the whole of a source counts as one name too: 'Chicken, Leek Pie' is not two recipes)."""
    for source in sources:
        for entry in source_entries(source):
            if entry.identity == identity or (entry.servings is None and entry.identity == recipe):
                return entry
        if source and " ".join(source.split()) == recipe:
            return Listed(recipe, None, recipe)
    return None


def joined_source(entries: Iterable[Listed]) -> str:
    """The entries as one source, each once; the recipe named without servings is left out where an entry names it
    with them ('Carbonara; Carbonara (for 12)' is 'Carbonara (for 12)': the line was topped up for that use)."""
    every = list(entries)
    specific = {_recipe_of(entry) for entry in every if entry.servings is not None}
    kept = [entry for entry in every if entry.servings is not None or entry.identity not in specific]
    return SEPARATOR.join(dict.fromkeys(entry.text for entry in kept))[:MAX_SOURCE]


def source_text(source: str | None) -> str | None:
    """What a line is for as a person reads it, each recipe named once: 'Mushroom Risotto (Fri Nov 27 dinner, for 3;
    Sun Nov 29 lunch, for 2); Red Lentil Soup (for 6)'; the recipe named without servings gives way to its uses."""
    entries = source_entries(source)
    if not entries or not any(entry.servings for entry in entries):
        return source
    uses: dict[str, list[str]] = {}
    for entry in entries:
        recipe = _recipe_of(entry)
        said = entry.text[len(recipe):].strip()
        uses.setdefault(recipe, [])
        if entry.servings is not None and said.startswith("(") and said.endswith(")"):
            uses[recipe].append(said[1:-1])
        elif entry.servings is not None or said:
            uses[recipe].append(entry.text)  # not of the usual shape: kept whole
    return SEPARATOR.join(f"{recipe} ({SEPARATOR.join(said)})" if said and all(not part.startswith(recipe) for part in said)
                          else SEPARATOR.join(said) or recipe for recipe, said in uses.items())


def _recipe_of(entry: Listed) -> str:
    """The recipe an entry names: 'Mushroom Risotto (Thu Jan 15 dinner, for 3)' -> 'Mushroom Risotto'."""
    match = _ENTRY.match(entry.text)
    return (match.group("who") if match else entry.text).strip()


def extra_amounts(notes: str | None) -> list[str]:
    """The line's amounts in other units ('1 cup'), as its notes keep them."""
    return [part[len(EXTRA):] for part in _segments(notes) if part.startswith(EXTRA)]


def with_extra_amounts(notes: str | None, amounts: Iterable[str]) -> str | None:
    """The notes with the extra amounts replaced by `amounts` (first), the person's own notes kept after them."""
    own = [part for part in _segments(notes) if not part.startswith(EXTRA)]
    joined = SEPARATOR.join([EXTRA + amount for amount in amounts] + own)
    return joined or None


def parsed_amount(text: str) -> tuple[float, str | None] | None:
    """(quantity, unit) of an extra amount such as '1 cup' or '200 g'; None when it does not read."""
    read = parse_quantity(text)
    return None if read.value is None or read.issue else (read.value, read.unit)


def own_notes(notes: str | None) -> str | None:
    """The notes a person wrote (extra amounts and what the pantry held left out)."""
    own = [part for part in _segments(notes) if not part.startswith((EXTRA, PANTRY, PARTS))]
    return SEPARATOR.join(own) or None


def egg_parts(notes: str | None) -> dict[str, float]:
    """The yolks and whites a line's notes say its eggs are for ('with the 3 yolks': {'yolk': 3.0})."""
    found: dict[str, float] = {}
    for part in _segments(notes):
        match = re.fullmatch(rf"{PARTS}(\d+) (yolk|white)s?(?: and (\d+) (yolk|white)s?)?", part)
        if match:
            found[match.group(2)] = float(match.group(1))
            if match.group(3):
                found[match.group(4)] = float(match.group(3))
    return found


def with_egg_parts(notes: str | None, parts: Mapping[str, float]) -> str | None:
    """The notes naming `parts` as what the eggs are for ('with the 3 yolks'), in place of what they named before."""
    kept = [part for part in _segments(notes) if not part.startswith(PARTS)]
    said = [f"{quantity_text(count)} {part}{'' if count == 1 else 's'}" for part, count in sorted(parts.items(), reverse=True) if count > 0]
    return SEPARATOR.join(kept + ([PARTS + " and ".join(said)] if said else [])) or None


def pantry_held(notes: str | None) -> str | None:
    """What the pantry held when the line was listed ('8 oz'), or None."""
    return next((part[len(PANTRY):] for part in _segments(notes) if part.startswith(PANTRY)), None)


def with_own_note(notes: str | None, note: str) -> str:
    """The notes with `note` after them, once (a line listed again does not say it twice)."""
    parts = _segments(notes)
    return SEPARATOR.join(parts if note in parts else [*parts, note])


def with_pantry_held(notes: str | None, held: str) -> str:
    """The notes saying the pantry held `held` when the line was listed (a segment already there is kept)."""
    return notes if notes and pantry_held(notes) is not None else SEPARATOR.join([*_segments(notes), PANTRY + held])


def shopping_text(row: Mapping[str, Any]) -> str:
    """'5 shallots', '1 carton + 1 cup buttermilk', '1 bunch thyme (need 3/4 tsp)', 'arugula': the line as a shopper
    reads it. A line listed for what the pantry lacks says so, in one shape: '1 pack cremini mushrooms (short 1 oz; the
    pantry has 8 oz)', '1 lemon (short 1; the pantry has 3)', '1 1/2 lb spaghetti (short 1 1/2 lb; the pantry has 1 lb)'."""
    text = _amounts_text(row)
    held = pantry_held(row.get("notes")) if row.get("quantity") is not None else None
    if held is None:
        return text
    if text.endswith(")") and NEED in text:
        return f"{text.replace(NEED, SHORT, 1)[:-1]}; {PANTRY}{held})"
    if extra_amounts(row.get("notes")):
        return f"{text} ({PANTRY}{held})"
    quantity, unit, name = float(row["quantity"]), row.get("unit"), str(row["name"])
    shown = to_buy(Amount(quantity, unit), name)  # why buy one: the pantry's 3 are not enough
    counted = dimension(shown.unit).startswith("count")
    parts = next((part for part in _segments(row.get("notes")) if part.startswith(PARTS)), None)
    if parts is not None and unit in (None, "piece") and (total := _held_count(held)) is not None:
        return f"{text}{NEED}{quantity_text(total + quantity)} {parts}; {PANTRY}{held})"  # 'need 11 with the 3 yolks'
    if counted and dimension(unit) == dimension(shown.unit) and shown.quantity > convert(quantity, unit, shown.unit) + 1e-6:
        total = _held_count(held)  # short of part of one: what is needed in all, never 'short 1' for a quarter bunch
        if total is not None:
            need = math.ceil((total + convert(quantity, unit, shown.unit)) * 4 - 1e-6) / 4  # to the quarter, up
            said = quantity_text(need) if unit in (None, "piece") else f"{quantity_text(need)} {unit_word(shown.unit or 'piece', need)}"
            return f"{text}{NEED}{said}; {PANTRY}{held})"
    short = quantity_text(shown.quantity) if counted else shown.text
    return f"{text}{SHORT}{short}; {PANTRY}{held})"  # a count's noun is the line's, as the pantry's is


def _held_count(held: str) -> float | None:
    """The count the pantry held, as a line's notes say it ('1', '2 1/2'); None when that is not a bare count."""
    read = parse_quantity(held)
    return read.value if read.value is not None and not read.issue and read.unit in (None, "piece") else None


def _amounts_text(row: Mapping[str, Any]) -> str:
    quantity = None if row.get("quantity") is None else float(row["quantity"])
    main = line_text(quantity, row.get("unit"), str(row["name"]), buying=True)
    extras = extra_amounts(row.get("notes"))
    if not extras or quantity is None:
        return main
    if main.endswith(")") and NEED in main:  # '1 bunch thyme (need 3/4 tsp + 2 sprigs)'
        return f"{main[:-1]} + {' + '.join(extras)})"
    amount = main[: len(main) - len(str(row["name"]))].strip() if main.endswith(str(row["name"])) else None
    if amount is None:
        return f"{main} + {' + '.join(extras)}"
    return f"{amount} + {' + '.join(extras)} {row['name']}"


def shown_name(row: Mapping[str, Any]) -> str:
    """The name as the line shows it, in the number its amount gives it ('salmon fillet' for '1 salmon fillet',
    'shallots' for '3 shallots'), so a note about the line names it the same way."""
    name, text = str(row["name"]), shopping_text(row)
    for said in (counted_name(name, 1), counted_name(name, 2)):
        if re.search(rf"(?<![\w-]){re.escape(said)}(?![\w-])", text):
            return said
    return name


def shown_gain(before: Mapping[str, Any], after: Mapping[str, Any]) -> str | None:
    """What a topped-up line shows more than it did, as the difference of the two amounts a shopper reads
    ('1 tbsp' -> '1 1/2 tbsp' adds '1 1/2 tsp'; '6 oz' -> '1 1/4 lb' adds '14 oz'; '1 bunch thyme (need 3/4 tsp)' ->
    '1 bunch thyme (need 1 1/2 tsp)' adds nothing: None), extra amounts in other units included."""
    name = str(after["name"])
    gains = [_gain(_taken(before, name), _taken(after, name), name)]
    had = {amount[1]: amount[0] for amount in map(parsed_amount, extra_amounts(before.get("notes"))) if amount}
    for amount in map(parsed_amount, extra_amounts(after.get("notes"))):
        if amount is not None:
            gains.append(_gain(None if amount[1] not in had else (had[amount[1]], amount[1], False), (*amount, False), name))
    shown = [gain for gain in gains if gain]
    return " + ".join(shown) if shown else None


def bought_amounts(row: Mapping[str, Any]) -> list[Amount]:
    """What the line tells a shopper to take, as bought: its shown amount ('1 bottle' for '1 bottle mirin (need 1 1/2
    tbsp)', 2 (pieces) for '2 onions (need 1 cup)', '1 1/2 cups') and its amounts in other units ('+ 1 cup'); none
    when it has no amount."""
    taken = _taken(row, str(row["name"]))
    if taken is None:
        return []
    extras = [amount for amount in map(parsed_amount, extra_amounts(row.get("notes"))) if amount is not None]
    return [Amount(taken[0], taken[1]), *(Amount(*amount) for amount in extras)]


def _taken(row: Mapping[str, Any], name: str) -> tuple[float, str | None, bool] | None:
    """(quantity, unit, bought as a pack or the thing itself) the line shows to take; None when it has no amount."""
    if row.get("quantity") is None:
        return None
    shown = to_buy(Amount(float(row["quantity"]), row.get("unit")), name)
    return (*shown.bought, True) if shown.bought is not None else (shown.quantity, shown.unit, False)


def _gain(was: tuple[float, str | None, bool] | None, now: tuple[float, str | None, bool] | None, name: str) -> str | None:
    if now is None:
        return None
    quantity, unit, whole = now
    if was is not None and was[1] == unit and (whole or was[2]):  # '1 carton' -> '2 cartons (need 6 cups)' adds 1 carton
        quantity -= was[0]
    elif was is not None and was[2] == whole and not whole and dimension(was[1]) == dimension(unit):
        quantity -= convert(was[0], was[1], unit)
    elif was is not None:
        return _amount(quantity, unit, whole, name)  # a shown amount of another kind: the whole of the new one
    return _amount(quantity, unit, whole, name) if quantity > 1e-6 else None


def _amount(quantity: float, unit: str | None, whole: bool, name: str) -> str:
    if whole:
        return quantity_text(quantity) if unit is None else f"{quantity_text(quantity)} {unit_word(unit, quantity)}"
    shown = sensible(Amount(quantity, unit), name)
    return shown.text if shown.rounded_from is None and parsed_amount(shown.text) is not None else amount_text(quantity, unit)


def _segments(notes: str | None) -> list[str]:
    return [part.strip() for part in (notes or "").split(SEPARATOR) if part.strip()]
