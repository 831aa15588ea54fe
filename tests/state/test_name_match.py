"""`entity_resolver.match_name`: what a name given where a ref is asked means, over generated labels."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.taxonomy import ingredient_words
from alfred_mcp.state.entity_resolver import Candidate, match_name, name_words

WORDS = st.sampled_from(["lemon", "garlic", "cod", "baked", "pancakes", "oat", "blueberry", "chicken", "fajitas",
                         "tikka", "masala", "red", "lentil", "soup", "with", "and", "the", "eggs", "berries"])
LABELS = st.lists(st.lists(WORDS, min_size=1, max_size=4).map(" ".join), min_size=1, max_size=8)


def _candidates(labels: list[str]) -> list[Candidate]:
    return [Candidate(f"recipe_{index + 1}", "recipe", label, "background") for index, label in enumerate(labels)]


@given(LABELS, st.data())
def test_a_label_in_any_case_and_spacing_is_an_exact_match_of_every_row_so_named(labels: list[str], data: st.DataObject) -> None:
    chosen = data.draw(st.sampled_from(labels))
    written = data.draw(st.sampled_from([chosen.upper(), chosen.title(), f"  {chosen}  ", chosen.replace(" ", "   ")]))
    resolution, matches = match_name(written, _candidates(labels))
    assert resolution == "exact"
    assert [c.label for c in matches] == [label for label in labels if label.casefold() == chosen.casefold()]


@given(LABELS, st.lists(WORDS, min_size=1, max_size=3).map(" ".join))
def test_a_name_no_label_equals_matches_exactly_the_labels_holding_all_its_words(labels: list[str], name: str) -> None:
    candidates = _candidates(labels)
    resolution, matches = match_name(name, candidates)
    if resolution == "exact":
        assert all(" ".join(c.label.casefold().split()) == " ".join(name.casefold().split()) for c in matches)
        return
    words = name_words(name)
    holding = [c for c in candidates if words and words <= set(ingredient_words(c.label))]
    assert list(matches) == holding and resolution == ("fuzzy" if holding else "unresolved")


@given(LABELS)
def test_a_name_of_only_words_that_name_nothing_matches_no_label_but_its_own(labels: list[str]) -> None:
    resolution, matches = match_name("the and with", _candidates(labels))
    assert resolution == ("exact" if "the and with" in labels else "unresolved")
    assert all(c.label == "the and with" for c in matches)
