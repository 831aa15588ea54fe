"""The reply check: a reply is refused for what it claims without the state, or leaves out."""

from __future__ import annotations

import pytest

from alfred_mcp.state.reply_check import Item, ReplyFacts, check_reply, claims

DRAFT = Item("gen_recipe_1", "Honey Garlic Cod")
FAILED = Item("gen_recipe_2", "Lemon Butter Cod", "name is required")


@pytest.mark.parametrize(
    ("text", "claimed"),
    [
        pytest.param("I saved your recipes.", ["saved"], id="plain-claim"),
        pytest.param("Done! I've added shellfish and removed nothing else.", ["added", "removed"], id="two-claims"),
        pytest.param("Nothing was saved yet.", [], id="negated"),
        pytest.param("They are not saved yet.", [], id="not-yet"),
        pytest.param("Want me to save them? Once saved they stay.", [], id="question-and-conditional"),
        pytest.param("It couldn't be deleted.", [], id="contraction"),
        pytest.param("Here are 3 unsaved drafts.", [], id="unsaved-is-not-saved"),
    ],
)
def test_claims_are_past_tense_assertions_only(text: str, claimed: list[str]) -> None:
    assert claims(text) == claimed


@pytest.mark.parametrize(
    ("text", "facts", "problem"),
    [
        pytest.param("I saved Honey Garlic Cod.", ReplyFacts(done=frozenset({"generated"}), unsaved=[DRAFT]),
                     "it says 'saved', but no row was saved this turn", id="false-save"),
        pytest.param("Saved two of them.", ReplyFacts(done=frozenset({"saved"}), failed=[FAILED]),
                     "it leaves out gen_recipe_2 (Lemon Butter Cod), which failed: name is required", id="failure-left-out"),
        pytest.param("Here you go.", ReplyFacts(done=frozenset({"generated"}), unsaved=[DRAFT]),
                     "it leaves out the drafts generated and not saved: gen_recipe_1 (Honey Garlic Cod)", id="draft-left-out"),
        pytest.param("Here is Honey Garlic Cod.", ReplyFacts(done=frozenset({"generated"}), unsaved=[DRAFT]),
                     "it must say that gen_recipe_1 (Honey Garlic Cod) are not saved yet", id="draft-not-marked"),
        pytest.param("All done.", ReplyFacts(stopped="Step 1 failed twice"),
                     "it must tell the user the turn stopped before finishing", id="stop-left-out"),
        pytest.param("Deleted it.", ReplyFacts(done=frozenset({"read"})), "no row was deleted this turn", id="false-delete"),
    ],
)
def test_a_reply_that_contradicts_or_omits_the_state_is_refused_with_what_is_wrong(text: str, facts: ReplyFacts, problem: str) -> None:
    problems = check_reply(text, facts)
    assert any(problem in found for found in problems), problems


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        pytest.param("Honey Garlic Cod is ready, not saved yet. Want me to save it?",
                     ReplyFacts(done=frozenset({"generated"}), unsaved=[DRAFT]), id="draft-honest"),
        pytest.param("Saved Honey Garlic Cod; Lemon Butter Cod could not be saved.",
                     ReplyFacts(done=frozenset({"saved"}), failed=[FAILED], unsaved=[FAILED]), id="partial-save"),
        pytest.param("I couldn't finish: the recipe was refused.", ReplyFacts(stopped="blocked"), id="stop-acknowledged"),
        pytest.param("Added shellfish to your allergies.", ReplyFacts(done=frozenset({"updated"})), id="update-is-an-add"),
    ],
)
def test_a_truthful_reply_passes(text: str, facts: ReplyFacts) -> None:
    assert check_reply(text, facts) == []
