"""Each kind of warning a tool's result gives, said to a person: names, no refs, no instructions to the model.

A tool's `warnings` are written for the model ('meal_3 (Salmon Tacos, recipe_2)', 'merge them if one',
'allergy_override'). `person_sentence` reads one with its kind's pattern (the shape the operation that made it
writes, `WARNING_KINDS`) and says it to the person ('Fri 28 Nov dinner already had Salmon Tacos; both are planned
now.'), refs turned into names by `name_of`. A warning no kind reads has no sentence: its turn's reply is the model's
to write. Pure: the same warning and names give the same sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from alfred_mcp.state.refs import is_ref, refs_in

NameOf = Callable[[str], str | None]
"""A ref's name as a person reads it ('Salmon Tacos'), or None when the session has no name for it."""


@dataclass(frozen=True)
class WarningKind:
    """One kind of warning: the operation that writes it, the pattern its lines have, and how a person is told."""

    name: str
    made_by: str
    pattern: re.Pattern[str]
    say: Callable[[re.Match[str], NameOf], str]
    about: Callable[[re.Match[str], NameOf], tuple[str, ...]] = lambda found, name_of: ()
    """The things the warning is about, by name ('Greek Lemon Chicken', a note's words): a reply that names one of them
    (and the warning's day, when it has one) has told it."""


_REF_THEN_NAME = re.compile(r"^\s*(?:[a-z]+_\d+(?:\.[\w\[\]]+)?|data(?:\[\d+\])?(?:\.\w+)?)\s*")


def _thing(where: str) -> str:
    """The name a warning's place gives its thing: 'gen_recipe_1 (Lemon Cod): ingredient' -> 'Lemon Cod',
    'data.recipe_id (recipe_2 Lasagna, ingredient)' -> 'Lasagna'; '' when it names none."""
    found = re.search(r"\(([^()]*)\)", where)
    if found is None:
        return ""
    inside = found.group(1).split(",")[0]
    name = _REF_THEN_NAME.sub("", inside).strip()
    return "" if name in ("shopping item", "pantry item", "recipe", "task") else name


def _day(label: str) -> str:
    """'Fri 28 Nov [dinner]' -> 'Fri 28 Nov dinner'."""
    return label.replace(" [", " ").replace("]", "")


def _named(text: str, name_of: NameOf) -> str:
    """`text` with each ref replaced by its name ('recipe_2' -> 'Lasagna', else 'a recipe')."""
    for ref in sorted(refs_in(text), key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(ref)}\b", name_of(ref) or f"a {ref.rsplit('_', 1)[0].removeprefix('gen_')}", text)
    return text


def _taken(text: str, name_of: NameOf) -> str:
    """'meal_3 (Salmon Tacos, recipe_2), meal_4 (no recipe)' -> 'Salmon Tacos and a meal with no recipe' (one planned
    as a note: 'a meal planned as "leftover chili"')."""
    names = []
    for _ref, inside in re.findall(r"(\S+) \(([^()]*)\)", text):
        first = inside.split(",")[0].strip()
        if first == "no recipe":
            note = re.search(r'planned as "([^"]*)"', inside)
            names.append(f'a meal planned as "{note.group(1)}"' if note else "a meal with no recipe")
        elif first in ("a recipe", "") or is_ref(first):
            names.append((name_of(first) if is_ref(first) else None) or "another meal")
        else:
            names.append(first)
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names) or "another meal"


def _double_booked(found: re.Match[str], name_of: NameOf) -> str:
    taken = _taken(found["taken"], name_of)
    if found["where"].startswith("gen_"):  # a draft: nothing is planned by it yet
        return f"{_day(found['label'])} already has {taken}; this one would be a second {found['meal']} that day."
    return f"{_day(found['label'])} already had {taken}; both are planned now."


def _occasion(found: re.Match[str], name_of: NameOf) -> str:
    return (f"{_day(found['label'])} makes {found['made']} servings, but the occasion ({_named(found['occasion'], name_of)}) "
            f"is for {found['servings']}.")


def _listed_twice(found: re.Match[str], name_of: NameOf) -> str:
    amount = "" if found["amount"] == "no amount" else f" ({found['amount']})"
    if found["place"] == "on the list":
        added = f" ({found['added']})" if found["added"] and found["added"] != "no amount" else ""
        return f"{found['name']} was already on your shopping list{amount}, so it has a second line now{added}."
    return f"{found['name']} was already {found['place']}{amount}, so it has a second row there now."


def _note_kept(found: re.Match[str], name_of: NameOf) -> str:
    written = found["written"].replace(", its recipe before,", ",")
    return f"{_day(found['label'])} still has its note '{found['note']}', written {_named(written, name_of)}."


_WHY = {"the user dislikes it": "which you dislike"}


def _avoided(found: re.Match[str], name_of: NameOf) -> str:
    why = found["why"]
    said = _WHY.get(why) or re.sub(r"^the goal excludes it \((.*)\)$", r"which you asked to leave out (\1)", why)
    said = re.sub(r"^the user excluded it from ", "which you asked to leave out of ", said)
    said = said.replace("which this draft is a version of", "which this is a version of")
    thing = _thing(found["where"])
    inside = f" (in {thing})" if thing and thing.casefold() != found["text"].casefold() else ""
    if found["text"].casefold() == found["value"].casefold():  # 'Black pepper is something you asked to leave out'
        return f"{found['text']}{inside} is something {_named(said.removeprefix('which '), name_of)}."
    return f"{found['text']}{inside} is {found['value']}, {_named(said, name_of)}."


def _too_long(found: re.Match[str], name_of: NameOf) -> str:
    thing = _thing(found["where"]) or "That recipe"
    return f"{thing} takes {found['took']}, longer than your {found['limit']} limit."


def _allergen(found: re.Match[str], name_of: NameOf) -> str:
    thing = _thing(found["where"])
    whose = found["whose"].replace("the user is", "you are")
    inside = f" in {thing}" if thing and thing.casefold() != found["ingredient"].casefold() else ""
    return f"{found['ingredient']}{inside} contains {found['allergen']} ({whose}); it can't be saved unless you accept that."


def _more(found: re.Match[str], name_of: NameOf) -> str:
    return f"There are {found['count']} more warnings like these."


WARNING_KINDS: tuple[WarningKind, ...] = (
    WarningKind("double_booked", "operations/double_booking.py", re.compile(
        r"^(?P<where>\S+): (?P<label>.+?) already has (?P<taken>.+); this plans a second (?P<meal>\w+) that day$"), _double_booked,
        lambda found, name_of: tuple(_taken(found["taken"], name_of).split(" and "))),
    WarningKind("occasion_servings", "operations/occasion_servings.py", re.compile(
        r"^(?P<where>\S+): (?P<label>.+?) makes (?P<made>\d+) servings; the occasion \((?P<occasion>.*)\) is for (?P<servings>\d+)$"),
        _occasion, lambda found, name_of: (f"{found['made']} servings", f"for {found['servings']}")),
    WarningKind("listed_twice", "operations/listed_twice.py", re.compile(
        r"^(?P<name>.+?) is already (?P<place>on the list|in the .+?): (?P<ref>\S+), (?P<amount>.+?); a second (?:line|row) was "
        r"added (?:\((?P<added>[^()]+)\): merge them if one|\(merge them if one\))\.$"), _listed_twice,
        lambda found, name_of: (found["name"],)),
    WarningKind("note_kept", "operations/stale_notes.py", re.compile(
        r"^(?P<ref>\S+): (?P<label>.+?) keeps its note '(?P<note>.*)', written (?P<written>.+): tell the user, or change the note$",
        re.DOTALL), _note_kept, lambda found, name_of: (found["note"],)),
    WarningKind("allergen_in_draft", "operations/constraint_warnings.py", re.compile(
        r"^(?P<where>.+?) '(?P<ingredient>.+?)' contains (?P<allergen>.+?): (?P<whose>.+?); draft_save will refuse it unless the "
        r"user explicitly accepts it \(allergy_override\)$"), _allergen, lambda found, name_of: (found["ingredient"],)),
    WarningKind("avoided", "operations/constraint_warnings.py", re.compile(
        r"^(?P<where>.+?) '(?P<text>.+?)' is (?P<value>.+?): (?P<why>the user dislikes it|the goal excludes it \(.*\)|"
        r"the user excluded it from .+)$"), _avoided, lambda found, name_of: (found["text"],)),
    WarningKind("too_long", "operations/constraint_warnings.py", re.compile(
        r"^(?P<where>.+?) takes (?P<took>.+?): the goal's time limit is (?P<limit>.+)$"), _too_long,
        lambda found, name_of: (_thing(found["where"]) or found["took"],)),
    WarningKind("more_warnings", "operations/constraint_warnings.py", re.compile(r"^\+(?P<count>\d+) more warnings$"), _more),
)
"""Every kind of warning a tool's result gives (beside a shortfall's, told as a part not done), by the operation that
writes it."""


def warning_kind(warning: str) -> WarningKind | None:
    """The kind whose pattern reads `warning`, or None."""
    return next((kind for kind in WARNING_KINDS if kind.pattern.match(warning)), None)


def person_sentence(warning: str, name_of: NameOf) -> str | None:
    """The warning said to a person, names and no refs; None when no kind reads it (or its sentence would name a ref)."""
    for kind in WARNING_KINDS:
        found = kind.pattern.match(warning)
        if found is not None:
            sentence = kind.say(found, name_of)
            said = sentence[:1].upper() + sentence[1:]
            return None if refs_in(said) else said
    return None


_WORD = re.compile(r"[a-z0-9]+", re.IGNORECASE)
_SMALL = frozenset("a an the and or of for with to in on it its is was be".split())
_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def told_in(warning: str, name_of: NameOf, reply: str) -> bool:
    """Whether `reply` already tells the warning in its own words: it names one of the things the warning is about (every
    word of a name that is no small word: 'Greek Lemon Chicken and Potatoes', a note's 'use the salmon before it turns')
    and, when the warning is about a day, that day ('Sunday', 'Sun'). A warning no kind reads is never told so."""
    kind = warning_kind(warning)
    found = kind.pattern.match(warning) if kind is not None else None
    if kind is None or found is None:
        return False
    label = found.groupdict().get("label") or ""
    day = next((day for day in _DAYS if label[:3].lower() == day), None)
    if day is not None and not any(word.lower().startswith(day) for word in _WORD.findall(reply)):
        return False
    return any(name_said(name, reply) for name in kind.about(found, name_of))


def name_said(name: str, text: str) -> bool:
    """Whether `text` says every word of `name` that is no small word (a name of small words only: all of them), plurals
    folded ('Greek Lemon Chicken and Potatoes', '2 jars'); an empty name is never said."""
    every = {word.lower().rstrip("s") for word in _WORD.findall(name)}
    words = every - _SMALL or every
    return bool(words) and words <= {word.lower().rstrip("s") for word in _WORD.findall(text)}
