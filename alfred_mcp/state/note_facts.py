"""The notes a write's result gives, kept as facts: what the call did beside what was asked (a line added to the one
already on the list, a meal made for the household), or what the person may want next (lines listed for a recipe no
longer planned: an offer).

A producer builds each as a `NoteFact` (a kind and its fields, refs where the model needs them) and gives both: the
note in the result's `notes`, worded for the model as ever (`note_text`), and the fact itself in `note_facts` (left out
of what a client reads: `for_the_client`). The
state's account tells a fact in a person's sentence (`fact_sentence`: names, no refs), an offer as its last sentence, so
a turn whose notes are all facts ends answered; a note that is no fact stays the model's to word. Pure: the same fact
and names give the same words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from alfred_mcp.state.refs import refs_in
from alfred_mcp.state.warning_words import name_said

NameOf = Callable[[str], str | None]
"""A ref's name as a person reads it ('Fri Dec 4 dinner'), or None when the session has no name for it."""

NoteFact = Mapping[str, Any]
"""One fact a note tells: {"kind": <a NOTE_KINDS name>, ...its fields}, JSON as the result carries it."""

Role = Literal["fact", "offer"]


@dataclass(frozen=True)
class NoteKind:
    """One kind of note: who writes it, whether it is a fact or an offer, its words for the model and for a person."""

    made_by: str
    role: Role
    note: Callable[[NoteFact], str]
    say: Callable[[NoteFact, NameOf], str]
    said_by: Callable[[NoteFact], tuple[str, ...]] = lambda fact: ()
    """What a text says when it tells the fact in its own words, every one of them ('black pepper', '2 jars'): none, never
    told so (an offer the model could not foresee is always asked)."""


def merged(ref: str, name: str, added: str, now: str, had: str | None = None) -> NoteFact:
    """A shopping payload added to the open line that already held its item: the line's ref, item, amount added, what
    the line says now; `had`: its amount before ('' when it had none)."""
    return {"kind": "merged", "ref": ref, "name": name, "added": added, "now": now, **({"had": had} if had is not None else {})}


def already_on_list(ref: str, name: str, amount: str) -> NoteFact:
    """An item named with no amount that an open line already holds (`amount`: the line's, '' when none): nothing written."""
    return {"kind": "already_on_list", "ref": ref, "name": name, "amount": amount}


def household_servings(refs: Sequence[str], servings: int, household: str) -> NoteFact:
    """Meals written without servings, made for the household ('2 adults, 1 kid')."""
    return {"kind": "household_servings", "refs": list(refs), "servings": servings, "household": household}


def lines_for_dropped_recipe(refs: Sequence[str], names: Sequence[str], more: int, recipe: str) -> NoteFact:
    """Unbought shopping lines listed only for a recipe no meal plans any more (`names` of the first, `more` past them)."""
    return {"kind": "lines_for_dropped_recipe", "refs": list(refs), "names": list(names), "more": more, "recipe": recipe}


def ticked_not_stocked(lines: int) -> NoteFact:
    """Shopping lines ticked bought with db_update: the pantry was left as it is."""
    return {"kind": "ticked_not_stocked", "lines": lines}


def nothing_stocked(names: Sequence[str]) -> NoteFact:
    """Shopping lines with no amount ticked bought with shopping_list_check: the pantry got nothing of them."""
    return {"kind": "nothing_stocked", "names": list(names)}


def pantry_followed(ref: str, name: str, pantry: str, gone: bool, now: str) -> NoteFact:
    """An open shopping line that counted what a pantry row held, rewritten because that row was deleted or changed."""
    return {"kind": "pantry_followed", "ref": ref, "name": name, "pantry": pantry, "gone": gone, "now": now}


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _day(label: str) -> str:
    """'Fri Dec 4 [dinner]' -> 'Fri Dec 4 dinner'."""
    return label.replace(" [", " ").replace("]", "")


def _merged_note(fact: NoteFact) -> str:
    return f"added {fact['added']} to the {fact['name']} already on the list: {fact['ref']}, now {fact['now']}"


def _merged_say(fact: NoteFact, name_of: NameOf) -> str:
    if fact.get("had") == "":
        return f"{fact['name']} was already on your shopping list with no amount; it says {fact['now']} now."
    return f"{fact['name']} was already on your shopping list, so it has {fact['added']} more: {fact['now']} now."


def _on_list_note(fact: NoteFact) -> str:
    amount = f", {fact['amount']}" if fact["amount"] else ", no amount"
    return f"{fact['name']} is already on the list: {fact['ref']}{amount}; no amount was given, so nothing was added"


def _on_list_say(fact: NoteFact, name_of: NameOf) -> str:
    amount = f" ({fact['amount']})" if fact["amount"] else ""
    return f"{fact['name']} is already on your shopping list{amount}."


def _household_note(fact: NoteFact) -> str:
    return f"{', '.join(fact['refs'])}: made for {fact['servings']} (the household: {fact['household']}); no servings were given"


def _household_say(fact: NoteFact, name_of: NameOf) -> str:
    meals = [_day(name) for ref in fact["refs"] if (name := name_of(ref))]
    which = f" ({_names(meals)})" if len(fact["refs"]) > 1 and len(meals) == len(fact["refs"]) else ""
    return f"Made for your household{which}: {fact['servings']} servings ({fact['household']})."


def _dropped_note(fact: NoteFact) -> str:
    many = len(fact["refs"]) > 1 or fact["more"]
    named = ", ".join(f"{ref} {name}" for ref, name in zip(fact["refs"], fact["names"], strict=False))
    more = f" and {fact['more']} more" if fact["more"] else ""
    return (f"{named}{more} {'were' if many else 'was'} listed for {fact['recipe']}, no longer planned: offer to remove "
            f"{'them' if many else 'it'}")


def _dropped_say(fact: NoteFact, name_of: NameOf) -> str:
    many = len(fact["names"]) > 1 or fact["more"]
    names = _names([*fact["names"], *([f"{fact['more']} more"] if fact["more"] else [])])
    return (f"{names} {'are' if many else 'is'} on your shopping list for {fact['recipe']}, which is no longer planned: "
            f"shall I take {'them' if many else 'it'} off?")


def _ticked_note(fact: NoteFact) -> str:
    noun = "line" if fact["lines"] == 1 else "lines"
    return (f"shopping_list: {fact['lines']} {noun} ticked bought; the pantry was not changed (db_update only ticks): add what "
            "was bought to inventory with db_update/db_create.")


def _ticked_say(fact: NoteFact, name_of: NameOf) -> str:
    return "Your pantry was not changed: shall I add what you bought to it?"


def _unstocked_note(fact: NoteFact) -> str:
    return (f"{', '.join(fact['names'])}: ticked bought; no amount on the line, so nothing was put in the pantry: ask how much "
            "was bought to stock it (db_create inventory).")


def _unstocked_say(fact: NoteFact, name_of: NameOf) -> str:
    many = len(fact["names"]) > 1
    return (f"{_names(fact['names'])} had no amount on your list, so nothing was added to your pantry for "
            f"{'them' if many else 'it'}: how much did you buy?")


def _followed_note(fact: NoteFact) -> str:
    gone = "was deleted" if fact["gone"] else "changed"
    return f"{fact['ref']} ({fact['name']}) counted what the pantry's {fact['pantry']} held, which {gone}: {fact['now']}"


def _followed_say(fact: NoteFact, name_of: NameOf) -> str:
    gone = "is gone" if fact["gone"] else "changed"
    return f"The {fact['name']} on your shopping list says {fact['now']} now: it counted the pantry's {fact['pantry']}, which {gone}."


NOTE_KINDS: dict[str, NoteKind] = {
    "merged": NoteKind("operations/listed_twice.py", "fact", _merged_note, _merged_say, lambda fact: (fact["name"], fact["now"])),
    "already_on_list": NoteKind("operations/listed_twice.py", "fact", _on_list_note, _on_list_say, lambda fact: (fact["name"],)),
    "household_servings": NoteKind("operations/meal_servings.py", "fact", _household_note, _household_say,
                                   lambda fact: (f"{fact['servings']} servings",)),
    "lines_for_dropped_recipe": NoteKind("operations/dropped_recipe_lines.py", "offer", _dropped_note, _dropped_say),
    "ticked_not_stocked": NoteKind("operations/shopping_checklist.py", "offer", _ticked_note, _ticked_say),
    "nothing_stocked": NoteKind("operations/shopping_checklist.py", "offer", _unstocked_note, _unstocked_say),
    "pantry_followed": NoteKind("operations/pantry_followers.py", "fact", _followed_note, _followed_say,
                                lambda fact: (fact["name"], fact["now"])),
}
"""Every kind of note a write's result gives as a fact, by the operation that writes it."""


def note_text(fact: NoteFact) -> str:
    """The fact's note as the result's `notes` give it to the model."""
    return NOTE_KINDS[str(fact["kind"])].note(fact)


def notes_of(facts: Sequence[NoteFact]) -> list[str]:
    """The notes of `facts`, in order."""
    return [note_text(fact) for fact in facts]


def noted(facts: Sequence[NoteFact]) -> dict[str, list[Any]]:
    """{"notes": [...], "note_facts": [...]} for a result: each fact's note for the model and the facts themselves (none
    when there are none)."""
    return {"notes": notes_of(facts), "note_facts": [dict(fact) for fact in facts]} if facts else {}


def for_the_client(result: dict[str, Any]) -> dict[str, Any]:
    """`result` as a client reads it: without `note_facts`, which only the state's account reads (its `notes` say the
    same to a model in words)."""
    return {key: value for key, value in result.items() if key != "note_facts"} if "note_facts" in result else result


def result_note_facts(result: Mapping[str, Any]) -> list[NoteFact]:
    """A result's `note_facts` of a known kind (others, and anything that is not one, left out)."""
    found = result.get("note_facts")
    entries = found if isinstance(found, list) else []
    return [entry for entry in entries if isinstance(entry, Mapping) and entry.get("kind") in NOTE_KINDS]


def untold_notes(result: Mapping[str, Any]) -> list[str]:
    """A result's `notes` that no fact of its `note_facts` tells: the model's to word."""
    told = set(notes_of(result_note_facts(result)))
    notes = result.get("notes")
    return [note for note in notes if isinstance(note, str) and note not in told] if isinstance(notes, list) else []


def fact_sentence(fact: NoteFact, name_of: NameOf) -> str | None:
    """The fact said to a person, names and no refs; None when it would name a ref."""
    said = NOTE_KINDS[str(fact["kind"])].say(fact, name_of)
    said = said[:1].upper() + said[1:]
    return None if refs_in(said) else said


def is_offer(fact: NoteFact) -> bool:
    """An offer (a question to the person): told last in the account."""
    return NOTE_KINDS[str(fact["kind"])].role == "offer"


def told_in(fact: NoteFact, text: str) -> bool:
    """Whether `text` already tells the fact in its own words (each of what its kind says it by: `NoteKind.said_by`)."""
    said = NOTE_KINDS[str(fact["kind"])].said_by(fact)
    return bool(said) and all(name_said(name, text) for name in said)
