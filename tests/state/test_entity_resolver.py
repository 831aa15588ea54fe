"""The deterministic entity resolver of seed 000 §5.6: words -> refs, tiered, with a confidence, as people mean them."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.schema import HEALTH_TAGS, LOCATIONS, PARENT_CATEGORIES
from alfred_mcp.kitchen.taxonomy import default_taxonomy
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
        pytest.param("that fajita", "recipe_4", "high", "fuzzy", id="plural-folded"),
        pytest.param("Chicken Fajitas please", "recipe_4", "high", "exact", id="a-name-needs-no-cue"),
        pytest.param("the salmon one", "recipe_9", "medium", "fuzzy", id="one-background-match"),
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
    mentions = resolve("go with the fajitas and carbonara ones", ACTIVE + BACKGROUND)
    assert [(m.text, m.ref) for m in mentions] == [("fajita", "recipe_4"), ("carbonara", "recipe_5")]


@pytest.mark.parametrize(("text", "refs"), [("the pasta one", ["recipe_5"]), ("the fish one", ["recipe_1"])])
def test_a_category_word_is_a_filter_never_one_answer(text: str, refs: list[str]) -> None:
    """'the fish one' finds Lemon Cod by category, as a candidate to confirm, not as the answer."""
    mention = only(resolve(text, ACTIVE + BACKGROUND))
    assert (mention.ref, mention.resolution, mention.confidence) == (None, "ambiguous", "low")
    assert [c.ref for c in mention.candidates] == refs


def test_ordinals_count_in_the_order_of_the_last_list_shown() -> None:
    """'the second one' is the second row the user was shown, whatever the refs' numbers; a row of the list
    no longer among the candidates leaves its position unresolved, and without a list the latest group counts
    in ref order."""
    shown = ["recipe_6", "recipe_99", "recipe_1", "recipe_5", "recipe_4"]
    assert only(resolve("save the third one", ACTIVE, shown=shown)).ref == "recipe_1"
    assert only(resolve("save the second one", ACTIVE, shown=shown)).resolution == "unresolved"
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


# --- what people mean: lists shown, "that one", the conversation's own, category words ---

ORDINAL_WORDS = [("first", 0), ("second", 1), ("third", 2), ("fourth", 3), ("fifth", 4), ("last", -1)]


@given(st.permutations([c for c in ACTIVE + BACKGROUND if c.entity_type == "recipe"]), st.sampled_from(ORDINAL_WORDS))
def test_an_ordinal_is_the_row_at_that_place_of_the_list_shown(listed: list[Candidate], word: tuple[str, int]) -> None:
    """Whatever the refs' numbers and turns, 'the n-th one' is the n-th row of the list as shown."""
    name, index = word
    mention = only(resolve(f"save the {name} one", ACTIVE + BACKGROUND, shown=[c.ref for c in listed]))
    assert mention.ref == listed[index].ref


@pytest.mark.parametrize(("text", "ref"), [("plan the first one for friday", "recipe_6"), ("the first meal", "meal_2"),
                                           ("delete the first recipe", "recipe_6")])
def test_only_a_noun_after_the_ordinal_narrows_the_list(text: str, ref: str) -> None:
    """'plan' names no type here: 'plan the first one' counts in the list of recipes shown."""
    mention = next(m for m in resolve(text, ACTIVE, shown=["recipe_6", "recipe_1"]) if m.ref)
    assert mention.ref == ref


PRONOUNS = ["make it spicier", "save that one", "plan this recipe for friday", "delete that", "what's in it?"]


@pytest.mark.parametrize("text", PRONOUNS)
@pytest.mark.parametrize("single", [c.ref for c in ACTIVE + BACKGROUND])
def test_that_one_is_the_single_thing_of_the_previous_turn(text: str, single: str) -> None:
    """Any entity of the previous turn, active or background; 'this recipe' only ever names a recipe."""
    mentions = [m for m in resolve(text, ACTIVE + BACKGROUND, previous=[single]) if m.ref or m.candidates]
    if "recipe" in text and not single.startswith("recipe_"):
        assert mentions == []
    else:
        assert [(m.ref, m.confidence) for m in mentions] == [(single, "high")]


@pytest.mark.parametrize("text", PRONOUNS)
def test_that_one_after_a_turn_about_several_things_is_a_question(text: str) -> None:
    mention = next(m for m in resolve(text, ACTIVE, previous=["recipe_4", "recipe_6"]) if m.candidates)
    assert mention.ref is None and [c.ref for c in mention.candidates] == ["recipe_4", "recipe_6"]


def test_without_a_previous_thing_that_one_is_unresolved() -> None:
    assert only(resolve("save that one", ACTIVE)).resolution == "unresolved"


TACOS = [("recipe", "Fish Tacos", "Beef Tacos", "the tacos"), ("meal", "Tacos [dinner]", "Tacos [lunch]", "the tacos"),
         ("inventory", "Corn Tortillas", "Flour Tortillas", "the tortillas")]


@pytest.mark.parametrize(("entity_type", "mine", "other", "text"), TACOS)
@given(own_first=st.booleans(), own_tier=st.sampled_from(["active", "background"]), other_tier=st.sampled_from(["active", "background"]),
       own_turn=st.integers(0, 5), other_turn=st.integers(0, 5))
def test_a_name_prefers_the_conversations_own(
    entity_type: str, mine: str, other: str, text: str, own_first: bool, own_tier: str, other_tier: str, own_turn: int, other_turn: int,
) -> None:
    """Of two entities the name fits, the one created, saved, imported or planned here wins, whatever the tiers and order."""
    own = Candidate(f"{entity_type}_7", entity_type, mine, own_tier, "created", own_turn, own=True)  # type: ignore[arg-type]
    theirs = Candidate(f"{entity_type}_3", entity_type, other, other_tier, "read", other_turn)  # type: ignore[arg-type]
    pool = [own, theirs] if own_first else [theirs, own]
    mention = only(resolve(text, pool))
    assert (mention.ref, mention.confidence) == (own.ref, "high")
    both_own = only(resolve(text, [own, replace(theirs, own=True)]))
    assert both_own.ref is None and {c.ref for c in both_own.candidates} == {own.ref, theirs.ref}


CATEGORY_WORDS = sorted(w for w in ("fish", "seafood", "shellfish", "pasta", "dairy", "cheese", "poultry", "meat", "vegetables")
                        if default_taxonomy().resolve_category(w))


@pytest.mark.parametrize("word", CATEGORY_WORDS)
@pytest.mark.parametrize("phrase", ["the {} one", "that {}", "the {} ones", "the {} recipe"])
def test_a_category_word_is_never_a_single_entity_answer(word: str, phrase: str) -> None:
    """Even when one label falls under the category, or holds the word itself, the mention is a filter."""
    pool = [*ACTIVE, Candidate("recipe_30", "recipe", f"{word.title()} Bake", "active", "created", 3, own=True),
            Candidate("recipe_31", "recipe", "Garlic Shrimp with Penne and Parmesan", "active", "read", 3)]
    for mention in resolve(phrase.format(word), pool):
        assert mention.ref is None, mention


_SHOWN = [Candidate(f"recipe_{n}", "recipe", f"Dish {name}", "active", "read", 4)
          for n, name in zip(range(21, 27), ("Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot"))]
_COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


@pytest.mark.parametrize("size", range(2, 7))
@pytest.mark.parametrize("spelled", [True, False], ids=["word", "digit"])
def test_ordinal_plurals_count_in_the_list_shown(size: int, spelled: bool) -> None:
    """'the first two', 'the last three', 'both', 'all four': every ref they cover, in the list's order."""
    shown = [c.ref for c in _SHOWN[:size]]
    for count in range(2, size + 1):
        number = _COUNT_WORDS[count] if spelled else str(count)
        first = resolve(f"plan the first {number}", _SHOWN, shown=shown)
        last = resolve(f"delete the last {number} recipes", _SHOWN, shown=shown)
        assert [m.ref for m in first] == shown[:count] and [m.ref for m in last] == shown[-count:]
        assert all(m.confidence == "medium" for m in first + last)
    every = resolve(f"save all {_COUNT_WORDS[size] if spelled else size}", _SHOWN, shown=shown)
    assert [m.ref for m in every] == shown
    both = [m.ref for m in resolve("save both", _SHOWN, shown=shown) if m.ref]
    assert both == (shown if size == 2 else [])  # 'both' of a longer list is no answer


def test_a_plural_ordinal_past_the_list_resolves_nothing() -> None:
    shown = [c.ref for c in _SHOWN[:2]]
    assert all(m.ref is None for m in resolve("the first three", _SHOWN, shown=shown))


_NAMED_KINDS = [("recipe", "Eggs Benedict"), ("inv", "eggs"), ("shop", "Eggs"), ("task", "buy eggs")]


@pytest.mark.parametrize("in_view", [kind for kind, _ in _NAMED_KINDS])
def test_a_name_several_tables_hold_gives_a_candidate_from_each(in_view: str) -> None:
    """'egg': the shopping line in view and the pantry's eggs (not yet seen) are both candidates, whatever is in view."""
    pool = [Candidate(f"{kind}_{i}", kind, label, "active" if kind == in_view else "background", "x", 2 if kind == in_view else 0)
            for i, (kind, label) in enumerate(_NAMED_KINDS, start=1)]
    mention = only(resolve("the egg", pool))
    assert mention.ref is None and {c.entity_type for c in mention.candidates} == {kind for kind, _ in _NAMED_KINDS}
    assert mention.candidates[0].entity_type == in_view  # the one in view first
    assert f"{len(_NAMED_KINDS)} candidates" in mention.line()


def test_one_candidate_is_not_counted_as_several() -> None:
    mention = only(resolve("the egg", [Candidate("shop_13", "shop", "eggs", "active", "read", 2)]))
    assert "1 candidate:" in mention.line()


KIND_NAMES = sorted({*LOCATIONS, *HEALTH_TAGS, *PARENT_CATEGORIES})
"""Every place and kind the kitchen names: its storage locations, its health tags, its ingredient categories."""
KINDS_AND_PLACES = [
    Candidate("inv_7", "inv", "butter", "active", "read", 3),
    Candidate("inv_8", "inv", "buttermilk", "active", "read", 3),
    Candidate("task_2", "task", "Move the cod from the freezer to the fridge to thaw", "background", "title has: fridge"),
    Candidate("task_3", "task", "Wipe down the fridge shelves", "background", "title has: fridge"),
    Candidate("recipe_9", "recipe", "Miso-Glazed Salmon with Bok Choy", "background", "recent"),
]


@pytest.mark.parametrize("word", KIND_NAMES)
@pytest.mark.parametrize("sentence", ["make it {}", "what's in the {}?", "the {} ones"])
def test_a_word_that_names_a_kind_or_a_place_pulls_in_no_row(sentence: str, word: str) -> None:
    """'make it dairy-free' is about what is wanted, 'the fridge' about where: neither names butter nor a task."""
    mentions = resolve(sentence.format(word), KINDS_AND_PLACES)
    assert [m.candidates for m in mentions] == [()], mentions


@pytest.mark.parametrize("word", KIND_NAMES)
def test_a_kind_word_after_a_name_leaves_the_name(word: str) -> None:
    mention = only(resolve(f"make the salmon {word}", KINDS_AND_PLACES))
    assert (mention.text, mention.ref) == ("salmon", "recipe_9")


FREE_FROM = [  # (how the user says it, a word of the item, the plain row made of it, the row free of it)
    ("dairy-free", "yogurt", "Greek yogurt", "Dairy-Free Coconut Yogurt"),
    ("non-dairy", "milk", "whole milk", "non-dairy oat milk"),
    ("gluten-free", "spaghetti", "spaghetti", "gluten-free spaghetti"),
    ("vegan", "butter", "unsalted butter", "vegan butter"),
    ("egg-free", "mayonnaise", "egg mayonnaise", "egg-free mayonnaise"),
    ("vegan", "tacos", "Chicken Tacos", "Vegan Black Bean Tacos"),
]


@pytest.mark.parametrize(("free", "word", "plain", "variant"), FREE_FROM)
@pytest.mark.parametrize("tier", ["active", "background"])
def test_a_free_from_word_in_a_name_never_matches_a_row_made_of_that_thing(
        free: str, word: str, plain: str, variant: str, tier: str) -> None:
    """'the dairy-free yogurt' is not the Greek yogurt, though both say 'yogurt': alone the plain row is no match at all,
    beside the free-from row that one is the answer."""
    plain_row = Candidate("inv_1", "inv", plain, tier, "read", 3)  # type: ignore[arg-type]
    variant_row = Candidate("inv_2", "inv", variant, tier, "read", 3)  # type: ignore[arg-type]
    alone = resolve(f"use the {free} {word}", [plain_row])
    assert all(plain_row not in m.candidates for m in alone), alone
    mention = only(resolve(f"use the {free} {word}", [plain_row, variant_row]))
    assert mention.ref == "inv_2" and mention.candidates == (variant_row,)
    assert only(resolve(f"use the {word}", [plain_row])).ref == "inv_1"  # without the word, the plain row is meant
