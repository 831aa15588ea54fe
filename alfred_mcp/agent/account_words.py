"""The state's account of a turn in a person's sentences: what each write did, told per table and action ('Added eggs and
milk to your shopping list.', 'Planned Air-Fryer Cod for dinner on Fri Dec 4.', 'Logged Crispy Chickpea Tacos as cooked
today (2 servings).'), repeated facts grouped ('Not taken out of the pantry: chickpeas, tortillas and lime (none
there).'), and the result's partial outcomes told once (a recipe still planned, lines already on the list or covered by
the pantry). No brackets, no table names in parentheses, no refs: the reply check reads it as it reads a model's reply.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from alfred_mcp.kitchen.dates import day_text
from alfred_mcp.state.note_facts import NameOf, NoteFact, fact_sentence, is_offer, result_note_facts
from alfred_mcp.state.reply_check import CONSTRAINTS_TABLE, Fact, Item, ReplyFacts
from alfred_mcp.state.shortfalls import DRAFT_AGAIN

MAX_NAMED = 5
"""Things named in one list of done things; past it, how many more (a part not done is always named whole)."""
MAX_NOT_DONE = 12
"""Parts not done named in one sentence: the reply check asks for each, so past this the model words it."""

_MEAL_LABEL = re.compile(r"^(?P<day>.+?) \[(?P<slot>[^\]]+)\]$")
_COOKED_LABEL = re.compile(r"^Cooked (?P<day>.+)$")
_REASON = re.compile(r"^(?P<what>.+?) \((?P<why>[^()]+)\)$")


@dataclass(frozen=True)
class Told:
    """What the turn's write results told beside their rows, by ref and name (labels, not refs)."""

    meal_recipes: Mapping[str, str] = field(default_factory=dict)
    """A meal's recipe name by the meal's ref."""
    cooked: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """A cooking log entry's (recipe name, servings) by the entry's ref."""
    still_planned: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """A recipe just cooked: its other meals still planned, as labels ('Sat Dec 5 [dinner]', '+2 more')."""
    already_listed: tuple[str, ...] = ()
    covered: tuple[str, ...] = ()
    undone: Mapping[str, str] = field(default_factory=dict)
    """What an undo did to each row by its ref: removed (an add undone), restored (a removal undone) or reverted."""
    already_bought: tuple[str, ...] = ()
    """Ingredients whose line for these meals was bought already (ticked: not on the list to buy)."""
    note_facts: tuple[NoteFact, ...] = ()
    """The facts the calls' notes told (`state/note_facts.py`): a line added to, a meal made for the household, an offer."""
    nothing_added: bool = False
    """A shopping_list_from call (not a preview) that put nothing on the list: everything listed, bought or covered."""

    def merged_refs(self) -> frozenset[str]:
        """The lines a `merged` fact tells (told by it, not as a plain update)."""
        return frozenset(str(fact["ref"]) for fact in self.note_facts if fact["kind"] == "merged")


def result_told(tool: str, result: Mapping[str, Any]) -> dict[str, Any]:
    """What a write's `result` tells beside its rows, by ref, for the account: each meal's recipe, a cook's recipe, servings
    and the meals still planned with it, a list's lines already there or covered by the pantry (empty: nothing)."""
    told: dict[str, Any] = {}
    meals = {str(row["id"]): row["recipe_id"] for row in _dicts(result.get("rows"))
             if str(row.get("id", "")).startswith("meal_") and isinstance(row.get("recipe_id"), str)}
    if meals:
        told["meal_recipes"] = meals
    if tool == "meal_cooked" and isinstance(result.get("log"), str) and isinstance(result.get("recipe"), str):
        told["cooked"] = {"log": result["log"], "recipe": result["recipe"], "servings": str(result.get("servings") or "")}
        planned = result.get("still_planned")
        if isinstance(planned, list) and planned:
            told["still_planned"] = [re.sub(r"^meal_\d+ ", "", str(entry)) for entry in planned]
    undone = {str(entry["ref"]): key for key in ("removed", "restored", "reverted") for entry in _dicts(result.get(key))
              if isinstance(entry.get("ref"), str)} if tool == "kitchen_undo" else {}
    if undone:
        told["undone"] = undone
    for key in ("already_listed", "covered"):
        names = [str(row["name"]) for row in _dicts(result.get(key)) if row.get("name") and not _bought(row)]
        if names:
            told[key] = names
    bought = [str(row["name"]) for row in _dicts(result.get("already_listed")) if row.get("name") and _bought(row)]
    if bought:  # a ticked line is not on the list to buy: told apart, never as 'already on your shopping list'
        told["already_bought"] = bought
    if facts := result_note_facts(result):
        told["note_facts"] = [dict(fact) for fact in facts]
    if tool == "shopping_list_from" and not result.get("preview") and not result.get("added") and not result.get("topped_up"):
        told["nothing_added"] = True
    return told


def told_of(calls: Iterable[Mapping[str, Any]], label_of: Callable[[str], str]) -> Told:
    """The `result_told` of a turn's calls merged, refs read as names through `label_of` (ref -> label or None)."""
    meals: dict[str, str] = {}
    cooked: dict[str, tuple[str, str]] = {}
    planned: dict[str, tuple[str, ...]] = {}
    listed: list[str] = []
    covered: list[str] = []
    bought: list[str] = []
    undone: dict[str, str] = {}
    facts: list[NoteFact] = []
    nothing_added = False
    for told in calls:
        undone.update(told.get("undone", {}))
        facts += [fact for fact in told.get("note_facts", ()) if fact not in facts]
        nothing_added = nothing_added or bool(told.get("nothing_added"))
        meals.update({meal: label_of(recipe) or "" for meal, recipe in told.get("meal_recipes", {}).items()})
        if (cook := told.get("cooked")) is not None:
            recipe = label_of(cook["recipe"]) or ""
            cooked[cook["log"]] = (recipe, cook.get("servings", ""))
            if told.get("still_planned") and recipe:
                planned[recipe] = tuple(told["still_planned"])
        listed += [name for name in told.get("already_listed", ()) if name not in listed]
        covered += [name for name in told.get("covered", ()) if name not in covered]
        bought += [name for name in told.get("already_bought", ()) if name not in bought]
    return Told(meals, cooked, planned, tuple(listed), tuple(covered), undone, tuple(bought), tuple(facts), nothing_added)


def _bought(row: Mapping[str, Any]) -> bool:
    """An `already_listed` entry whose line was bought already (its note says so)."""
    return str(row.get("note", "")) == "bought already"


def row_words(label: str) -> str:
    """A row's label as said in a sentence: a meal as 'dinner on Fri Dec 4', a cooking log entry as 'the meal cooked on
    Fri Nov 27', anything else as it is."""
    cooked = _COOKED_LABEL.match(label)
    return f"the meal cooked on {cooked['day']}" if cooked else meal_words(label)


def meal_words(label: str, recipe: str = "") -> str:
    """'Fri Dec 4 [dinner]' -> 'Air-Fryer Cod for dinner on Fri Dec 4' (without a recipe, 'dinner on Fri Dec 4')."""
    found = _MEAL_LABEL.match(label)
    if found is None:
        return f"{recipe} ({label})" if recipe else label
    slot = f"{found['slot']} on {found['day']}"
    return f"{recipe} for {slot}" if recipe else slot


def _thing(fact: Fact, told: Told) -> str:
    if fact.table == "meal_plans":
        return meal_words(fact.label, told.meal_recipes.get(fact.ref, ""))
    if fact.table == "cooking_log":
        recipe, _ = told.cooked.get(fact.ref, ("", ""))
        found = _COOKED_LABEL.match(fact.label)
        return f"{recipe}, cooked {found['day']}" if recipe and found else recipe or fact.show()
    return fact.show()


_PLACES = {"shopping_list": "your shopping list", "inventory": "your pantry", "recipes": "your recipes", "tasks": "your tasks",
           "meal_plans": "your meal plan", "preferences": "your preferences", "cooking_log": "your cooking log"}
_VERB = {"created": "Added", "saved": "Saved", "updated": "Updated", "deleted": "Removed", "discarded": "Discarded",
         "undone": "Undid the change to", "revised": "Revised"}
_PREPOSITION = {"created": "to", "saved": "to", "deleted": "from"}
_SAID_BY_TOOL = {("updated", "inventory", "meal_cooked"): "Took from your pantry: {}.",
                 ("updated", "shopping_list", "shopping_list_from"): "Topped up {} on your shopping list.",
                 ("updated", "shopping_list", "shopping_list_check"): "Checked off {} on your shopping list."}
"""How a tool's own writes are told where the plain verb would mislead ('updated olive oil' for what a cook took)."""
_SAID_BY_UNDO = {"removed": "Undid adding {} to {}.", "restored": "Restored {} to {}.", "reverted": "Undid the change to {} in {}."}
"""An undo told by what it did to its row: an add taken back, a removal brought back, a change set back."""
_SAID = {("created", "meal_plans"): "Planned {}.", ("saved", "meal_plans"): "Planned {}.",
         ("created", "cooking_log"): "",
         ("discarded", None): "Discarded the draft {}.", ("revised", None): "Revised the draft {}.",
         ("saved", "preferences"): "Saved your preferences.", ("updated", "preferences"): "Updated your preferences.",
         ("created", "preferences"): "Saved your preferences."}
"""How an action on a table is told where '<verb> <things> <preposition> <place>' reads badly (a cook's log entry: its own
sentence, `_cooked_sentences`)."""


def _clause(action: str, table: str | None, tool: str, names: list[str]) -> str:
    """One sentence for one action on one table's things (`tool`: the tool that wrote them, or what an undo did)."""
    listed = listed_names(names)
    place = _PLACES.get(table or "", "")
    if action == "undone" and tool in _SAID_BY_UNDO and place:
        return _SAID_BY_UNDO[tool].format(listed, place)
    said = _SAID_BY_TOOL.get((action, table or "", tool), _SAID.get((action, table), _SAID.get((action, None))))
    if said is not None:
        return said.format(listed) if said else ""
    preposition = _PREPOSITION.get(action, "in" if table != "shopping_list" else "on")
    return f"{_VERB.get(action, action.capitalize())} {listed}" + (f" {preposition} {place}." if place else ".")


def done_sentences(facts: ReplyFacts, told: Told, wrote_by: Mapping[str, str]) -> str:
    """'Added eggs and milk to your shopping list. Planned Air-Fryer Cod for dinner on Fri Dec 4.' from this turn's writes
    (`wrote_by`: the tool that wrote each ref), a cook's log entry first and what its recipe is still planned for last."""
    groups: dict[tuple[str, str | None, str], list[str]] = {}
    undone = {fact.ref for fact in facts.things if fact.action == "undone"}
    merged = told.merged_refs()
    for fact in facts.things:
        if (fact.action == "deleted" and fact.ref in undone) or (fact.action == "updated" and fact.ref in merged):
            continue  # what an undo removed is told as the undo, a line added to as its `merged` fact, not a second time
        if fact.action in _VERB and fact.table not in ("recipe_ingredients", CONSTRAINTS_TABLE):
            how = told.undone.get(fact.ref, "") if fact.action == "undone" else wrote_by.get(fact.ref, "")
            names = groups.setdefault((fact.action, fact.table, how), [])
            if (name := _thing(fact, told)) not in names:
                names.append(name)
    logged, planned = _cooked_sentences(facts, told, day_text(date.today()))
    ordered = sorted(groups.items(), key=lambda group: (group[0][1], group[0][2]) in _BESIDE)
    sentences = [*logged, *(_clause(action, table, tool, names) for (action, table, tool), names in ordered), *planned]
    return " ".join(sentence for sentence in sentences if sentence)


_BESIDE = {("inventory", "meal_cooked"), ("inventory", "shopping_list_check")}
"""Pantry rows a cook or a check wrote beside what was asked: told after it."""


def _cooked_sentences(facts: ReplyFacts, told: Told, today: str) -> tuple[list[str], list[str]]:
    """Each cook logged ('Logged Crispy Chickpea Tacos as cooked today (2 servings).'), and what its recipe is still
    planned for ('Crispy Chickpea Tacos is still planned for dinner on Sat Nov 28.')."""
    out = []
    for fact in facts.things:
        if fact.action == "created" and fact.table == "cooking_log":
            recipe, servings = told.cooked.get(fact.ref, ("", ""))
            found = _COOKED_LABEL.match(fact.label)
            day = found["day"] if found else ""
            when = " today" if day == today else f" on {day}" if day else ""
            portions = f" ({servings} serving{'' if servings == '1' else 's'})" if servings else ""
            out.append(f"Logged {recipe or 'the meal'} as cooked{when}{portions}.")
    planned = [f"{recipe} is still planned for {listed_names([_planned(meal) for meal in meals], cap=len(meals))}."
               for recipe, meals in told.still_planned.items()]
    return out, planned


def _planned(label: str) -> str:
    more = re.match(r"^\+(\d+) more$", label)
    return f"{more[1]} more" if more else meal_words(label)


def outcome_sentences(told: Told) -> str:
    """What a list's lines the call did not change: 'Already on your list: eggs. Your pantry covers parmesan.' (first,
    when a list was made and nothing was put on it, 'Nothing was added to your shopping list.')."""
    parts = ["Nothing was added to your shopping list."] if told.nothing_added else []
    if told.already_listed:
        parts.append(f"Already on your shopping list: {listed_names(list(told.already_listed))}.")
    if told.already_bought:
        parts.append(f"Ticked as bought on your list already: {listed_names(list(told.already_bought))}.")
    if told.covered:
        parts.append(f"Your pantry covers {listed_names(list(told.covered))}.")
    return " ".join(parts)


_IN_PLACE = {"shopping_list": "on your shopping list", "recipes": "among your recipes", "tasks": "among your tasks"}


def absent_sentence(absent: Sequence[Mapping[str, str]], *, changed: bool) -> str:
    """'Nothing was changed: I found no eggs on your shopping list.' for calls refused because what the person named is
    not there, or 'there was nothing to undo' (`changed`: the turn changed something else, so only 'I found no eggs on
    your shopping list.')."""
    places: dict[str, list[str]] = {}
    nothing = list(dict.fromkeys(entry["nothing"] for entry in absent if entry.get("nothing")))
    for entry in absent:
        table = entry.get("table", "")
        place = _IN_PLACE.get(table) or (f"in {_PLACES[table]}" if table in _PLACES else "in your kitchen")
        if entry.get("name") and entry["name"] not in (names := places.setdefault(place, [])):
            names.append(entry["name"])
    found = "; ".join([*(f"I found no {listed_names(names, cap=MAX_NOT_DONE)} {place}" for place, names in places.items() if names),
                       *(f"there was nothing {what}" for what in nothing)])
    if not found:
        return ""
    return f"{found[:1].upper()}{found[1:]}." if changed else f"Nothing was changed: {found}."


def note_sentences(told: Told, name_of: NameOf) -> tuple[list[str], list[str]]:
    """The calls' note facts in a person's sentences (`note_facts.fact_sentence`): the facts, and the offers (told last)."""
    facts = [(is_offer(fact), sentence) for fact in told.note_facts if (sentence := fact_sentence(fact, name_of))]
    return [said for offer, said in facts if not offer], [said for offer, said in facts if offer]


def unlinked_sentence(items: Sequence[Item]) -> str:
    """'Still there, but no longer linked to what is gone: dinner on Fri Dec 4 and Buy pancetta.'"""
    names = list(dict.fromkeys(row_words(item.label) if item.label else item.ref for item in items))
    return f"Still there, but no longer linked to what is gone: {listed_names(names)}." if names else ""


def relinked_sentence(items: Sequence[Item]) -> str:
    """'Linked again: dinner on Fri Dec 4.' for rows an undo pointed at a restored row again."""
    names = list(dict.fromkeys(row_words(item.label) if item.label else item.ref for item in items))
    return f"Linked again: {listed_names(names)}." if names else ""


def not_done_sentence(facts: ReplyFacts) -> str:
    """'Lemon Cod was not saved. Kept Lasagna as a draft, not saved. Drafted Tzatziki, not saved yet.' (kept: a draft an undo
    left open again)."""
    failed = list(dict.fromkeys(item.label or item.ref for item in facts.failed))
    kept = [name for name in dict.fromkeys(item.label or item.ref for item in facts.unsaved if item.reason == DRAFT_AGAIN)
            if name not in failed]
    unsaved = [name for name in dict.fromkeys(item.label or item.ref for item in facts.unsaved) if name not in failed and name not in kept]
    parts = []
    if failed:
        parts.append(f"{listed_names(failed, cap=MAX_NOT_DONE)} {'was' if len(failed) == 1 else 'were'} not saved.")
    if kept:  # an undone save: the recipe is gone from the kitchen, its draft kept
        parts.append(f"Kept {listed_names(kept, cap=MAX_NOT_DONE)} as a draft, not saved.")
    if unsaved:
        parts.append(f"Drafted {listed_names(unsaved, cap=MAX_NOT_DONE)}, not saved yet.")
    return " ".join(parts)


def partial_sentence(facts: ReplyFacts) -> str:
    """'Not taken out of the pantry: chickpeas, tortillas and lime (none there).' for what the turn's calls did less than
    asked, one sentence per reason, each thing named once."""
    groups: dict[str, list[str]] = {}
    for item in facts.partial:
        found = _REASON.match(item.reason)
        what, why = (found["what"], found["why"]) if found else (item.reason, "")
        if what == "is a draft again, not saved":
            what = "A draft again, not saved"
        if why == "not in the pantry" and "pantry" in what:
            why = "none there"
        names = groups.setdefault(f"{what[:1].upper()}{what[1:]}" + (f"\0{why}" if why else ""), [])
        if item.label and item.label not in names:
            names.append(item.label)
    parts = []
    for key, names in groups.items():
        what, _, why = key.partition("\0")
        tail = f" ({why})" if why else ""
        parts.append(f"{what}: {listed_names(names, cap=MAX_NOT_DONE)}{tail}." if names else f"{what}{tail}.")
    return " ".join(parts)


def listed_names(names: Sequence[str], *, cap: int = MAX_NAMED) -> str:
    """'a', 'a and b', 'a, b and c'; past `cap`, 'a, b, c, d, e and 3 more'."""
    shown = list(names[:cap]) + ([f"{len(names) - cap} more"] if len(names) > cap else [])
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _dicts(value: Any) -> list[Mapping[str, Any]]:
    return [entry for entry in value if isinstance(entry, Mapping)] if isinstance(value, list) else []
