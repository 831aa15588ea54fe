"""Every kind of note fact, over generated fields: its note names the refs the model needs, its person's sentence names
no ref, reads as one sentence, and an offer asks; a result's notes no fact tells are left to the model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from alfred_mcp.state.note_facts import (
    NOTE_KINDS,
    NoteFact,
    already_on_list,
    fact_sentence,
    household_servings,
    is_offer,
    lines_for_dropped_recipe,
    merged,
    note_text,
    noted,
    nothing_stocked,
    pantry_followed,
    result_note_facts,
    ticked_not_stocked,
    told_in,
    untold_notes,
)
from alfred_mcp.state.refs import refs_in

_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz -", min_size=2, max_size=12).map(str.strip).filter(lambda name: name[:1].isalpha())
_AMOUNT = st.builds(lambda n, unit: f"{n} {unit}", st.integers(1, 12), st.sampled_from(["cup", "jar", "gallons", "piece"]))
_REFS = st.lists(st.integers(1, 99), min_size=1, max_size=4, unique=True)

FACTS: dict[str, st.SearchStrategy[NoteFact]] = {
    "merged": st.builds(lambda n, name, added, now, had: merged(f"shop_{n}", name, added, now, had), st.integers(1, 99), _NAME, _AMOUNT,
                        _AMOUNT, st.one_of(st.none(), st.just(""), _AMOUNT)),
    "already_on_list": st.builds(lambda n, name, amount: already_on_list(f"shop_{n}", name, amount), st.integers(1, 99), _NAME,
                                 st.one_of(st.just(""), _AMOUNT)),
    "nothing_stocked": st.builds(nothing_stocked, st.lists(_NAME, min_size=1, max_size=4)),
    "household_servings": st.builds(lambda refs, servings: household_servings([f"meal_{r}" for r in refs], servings, "2 adults, 1 kid"),
                                    _REFS, st.integers(1, 12)),
    "lines_for_dropped_recipe": st.builds(lambda refs, names, more, recipe: lines_for_dropped_recipe(
        [f"shop_{r}" for r in refs], names[:len(refs)], more, recipe), _REFS, st.lists(_NAME, min_size=4, max_size=4), st.integers(0, 3), _NAME),
    "ticked_not_stocked": st.builds(ticked_not_stocked, st.integers(1, 20)),
    "pantry_followed": st.builds(lambda n, name, gone, now: pantry_followed(f"shop_{n}", name, name, gone, now),
                                 st.integers(1, 99), _NAME, st.booleans(), _AMOUNT),
}

_NAMES: Callable[[str], str | None] = lambda ref: f"the row {ref.rsplit('_', 1)[1]}"  # noqa: E731


def test_every_kind_has_a_strategy_here() -> None:
    assert sorted(FACTS) == sorted(NOTE_KINDS)


@given(st.one_of(*FACTS.values()))
def test_a_facts_note_names_its_refs_and_its_sentence_names_none(fact: NoteFact) -> None:
    refs = [str(fact["ref"])] if "ref" in fact else [str(ref) for ref in fact.get("refs", ())]
    assert all(ref in refs_in(note_text(fact)) for ref in refs), note_text(fact)
    for name_of in (_NAMES, lambda ref: None):
        sentence = fact_sentence(fact, name_of)
        assert sentence is not None and not refs_in(sentence) and sentence[:1].isupper(), sentence
        assert sentence.endswith("?" if is_offer(fact) else "."), sentence


@given(st.lists(st.one_of(*FACTS.values()), max_size=4), st.lists(st.text(min_size=1, max_size=30), max_size=3))
def test_a_results_notes_no_fact_tells_are_the_models(facts: list[NoteFact], own: list[str]) -> None:
    result: dict[str, Any] = noted(facts)
    result["notes"] = [*result.get("notes", []), *own]
    assert result_note_facts(result) == [dict(fact) for fact in facts]
    told = {note_text(fact) for fact in facts}
    assert untold_notes(result) == [note for note in own if note not in told]


def test_a_result_without_facts_gives_no_keys_and_leaves_every_note_to_the_model() -> None:
    assert noted([]) == {}
    assert untold_notes({"notes": ["a note", 3], "note_facts": [{"kind": "unknown"}]}) == ["a note"]


@given(st.one_of(*FACTS.values()))
@settings(max_examples=300)
def test_a_fact_is_told_by_its_own_sentence_and_by_a_reply_saying_its_words_but_an_offer_never_is(fact: NoteFact) -> None:
    """A reply that already tells a fact in its own words (its sentence, or the thing and amount it is said by) gets it
    not again; an offer the model could not foresee is always asked; a reply saying something else never tells it."""
    said = NOTE_KINDS[str(fact["kind"])].said_by(fact)
    if is_offer(fact):
        assert not said and not told_in(fact, str(fact_sentence(fact, _NAMES)))
        return
    assert told_in(fact, str(fact_sentence(fact, _NAMES))), fact_sentence(fact, _NAMES)
    assert told_in(fact, "Done: " + ", ".join(said) + ".")
    assert not told_in(fact, "Done: I saved it.")
