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
    """'meal_3 (Salmon Tacos, recipe_2), meal_4 (no recipe)' -> 'Salmon Tacos and a meal with no recipe'."""
    names = []
    for _ref, inside in re.findall(r"(\S+) \(([^()]*)\)", text):
        first = inside.split(",")[0].strip()
        if first == "no recipe":
            names.append("a meal with no recipe")
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
        r"^(?P<where>\S+): (?P<label>.+?) already has (?P<taken>.+); this plans a second (?P<meal>\w+) that day$"), _double_booked),
    WarningKind("occasion_servings", "operations/occasion_servings.py", re.compile(
        r"^(?P<where>\S+): (?P<label>.+?) makes (?P<made>\d+) servings; the occasion \((?P<occasion>.*)\) is for (?P<servings>\d+)$"),
        _occasion),
    WarningKind("listed_twice", "operations/listed_twice.py", re.compile(
        r"^(?P<name>.+?) is already (?P<place>on the list|in the .+?): (?P<ref>\S+), (?P<amount>.+?); a second (?:line|row) was "
        r"added (?:\((?P<added>[^()]+)\): merge them if one|\(merge them if one\))\.$"), _listed_twice),
    WarningKind("note_kept", "operations/stale_notes.py", re.compile(
        r"^(?P<ref>\S+): (?P<label>.+?) keeps its note '(?P<note>.*)', written (?P<written>.+): tell the user, or change the note$",
        re.DOTALL), _note_kept),
    WarningKind("allergen_in_draft", "operations/constraint_warnings.py", re.compile(
        r"^(?P<where>.+?) '(?P<ingredient>.+?)' contains (?P<allergen>.+?): (?P<whose>.+?); draft_save will refuse it unless the "
        r"user explicitly accepts it \(allergy_override\)$"), _allergen),
    WarningKind("avoided", "operations/constraint_warnings.py", re.compile(
        r"^(?P<where>.+?) '(?P<text>.+?)' is (?P<value>.+?): (?P<why>the user dislikes it|the goal excludes it \(.*\)|"
        r"the user excluded it from .+)$"), _avoided),
    WarningKind("too_long", "operations/constraint_warnings.py", re.compile(
        r"^(?P<where>.+?) takes (?P<took>.+?): the goal's time limit is (?P<limit>.+)$"), _too_long),
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
