"""The deterministic entity resolver of seed 000 §5.6: words -> refs, tiered, with a confidence."""

from __future__ import annotations

import pytest

from alfred_mcp.state.entity_resolver import Candidate, Mention, resolve

ACTIVE = [
    Candidate("recipe_1", "recipe", "Lemon Garlic Baked Cod", "active", "read", 3),
    Candidate("recipe_4", "recipe", "Chicken Fajitas", "active", "read", 3),
    Candidate("recipe_6", "recipe", "Chicken Tikka Masala", "active", "read", 3),
    Candidate("recipe_5", "recipe", "Spaghetti Carbonara", "active", "read", 3),
    Candidate("meal_2", "meal", "Tue Jan 13 [dinner]", "active", "read", 2),
]
BACKGROUND = [
    Candidate("recipe_9", "recipe", "Miso-Glazed Salmon with Bok Choy", "background", "recent"),
    Candidate("recipe_12", "recipe", "Thai Green Curry", "background", "name has: curry"),
    Candidate("recipe_13", "recipe", "Red Curry Noodles", "background", "name has: curry"),
]


def only(mentions: list[Mention]) -> Mention:
    assert len(mentions) == 1, mentions
    return mentions[0]


@pytest.mark.parametrize(
    ("text", "ref", "confidence", "resolution"),
    [
        pytest.param("the pasta one", "recipe_5", "high", "fuzzy", id="category-word-one-active-match"),
        pytest.param("that fajita", "recipe_4", "high", "fuzzy", id="plural-folded"),
        pytest.param("Chicken Fajitas please", "recipe_4", "high", "exact", id="a-name-needs-no-cue"),
        pytest.param("the salmon one", "recipe_9", "medium", "fuzzy", id="one-background-match"),
        pytest.param("the fish one", "recipe_1", "high", "fuzzy", id="fish-finds-cod-by-category"),
        pytest.param("delete recipe_6", "recipe_6", "high", "exact", id="explicit-ref"),
    ],
)
def test_a_single_match_resolves_with_the_tier_confidence(text: str, ref: str, confidence: str, resolution: str) -> None:
    mention = only(resolve(text, ACTIVE + BACKGROUND))
    assert (mention.ref, mention.confidence, mention.resolution) == (ref, confidence, resolution)


def test_several_active_matches_are_candidates_to_ask_about() -> None:
    mention = only(resolve("the chicken one", ACTIVE + BACKGROUND))
    assert mention.ref is None and mention.resolution == "ambiguous" and mention.confidence == "low"
    assert [c.ref for c in mention.candidates] == ["recipe_4", "recipe_6"]


def test_background_is_searched_only_when_no_active_entity_matches() -> None:
    assert [c.ref for c in only(resolve("that curry", ACTIVE + BACKGROUND)).candidates] == ["recipe_12", "recipe_13"]
    with_active = [*ACTIVE, Candidate("recipe_20", "recipe", "Weeknight Curry", "active", "read", 3)]
    assert only(resolve("that curry", with_active + BACKGROUND)).ref == "recipe_20"


def test_two_mentions_in_one_message() -> None:
    mentions = resolve("go with the fajitas and pasta ones", ACTIVE + BACKGROUND)
    assert [(m.text, m.ref) for m in mentions] == [("fajita", "recipe_4"), ("pasta", "recipe_5")]


def test_ordinals_count_in_the_order_of_the_last_list_shown() -> None:
    """'the second one' is the second row the user was shown, whatever the refs' numbers; refs of the list
    outside the candidates are passed over, and without a list the latest group counts in ref order."""
    shown = ["recipe_6", "recipe_99", "recipe_1", "recipe_5", "recipe_4"]
    assert only(resolve("save the second one", ACTIVE, shown=shown)).ref == "recipe_1"
    assert only(resolve("the last one", ACTIVE, shown=shown)).ref == "recipe_4"
    assert only(resolve("save the second one", ACTIVE, shown=[])).ref == "recipe_4"


def test_ordinals_count_the_latest_group_in_ref_order() -> None:
    assert only(resolve("delete the second", ACTIVE)).ref == "recipe_4"
    assert only(resolve("the last one", ACTIVE)).ref == "recipe_6"


def test_words_that_only_say_what_is_wanted_are_not_mentions() -> None:
    mention = only(resolve("I want fish recipes", ACTIVE + BACKGROUND))
    assert mention.resolution == "unresolved" and mention.ref is None


def test_entity_type_narrows_the_candidates() -> None:
    assert only(resolve("the dinner", ACTIVE, entity_type="meal")).ref == "meal_2"


def test_same_inputs_same_answer() -> None:
    assert resolve("the chicken and pasta ones", ACTIVE + BACKGROUND) == resolve("the chicken and pasta ones", ACTIVE + BACKGROUND)
