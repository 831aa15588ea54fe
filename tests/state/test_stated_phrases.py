"""Substitutions and what stays, compiled from the user's words in fixed forms: every form with any thing's words,
scoped by the refs the turn refers to, never from a negated, pronoun-only or 'leave it out' phrase; merged with the
snapshot without doubling what the model stated, deterministically, and living as long as what they are about."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alfred_mcp.state.constraints import (
    Constraint,
    ConstraintSnapshot,
    SessionConstraints,
    compile_constraints,
    merge_constraints,
)
from alfred_mcp.state.stated_phrases import stated_constraints, with_stated

THINGS = st.sampled_from(["milk", "oat milk", "butter", "olive oil", "chicken", "greek yogurt", "brown sugar", "salmon"])
SUBSTITUTIONS = [
    "use {new} instead of {old}", "Make it for 6 and use {new} instead of {old}.", "try {new} in place of the {old}",
    "with {new} rather than {old} please", "swap the {old} for {new}", "replace {old} with {new}, thanks",
    "substitute {new} for {old}",
]
KEEPS = ["Leave the {what} for now. What can I cook tonight?", "keep the {what} as is", "leave my {what} alone",
         "Don't delete the {what}", "do not remove the {what} please", "Keep the {what} where it is."]


def _pairs(found: list[Constraint]) -> list[tuple[str, object, str | None]]:
    return [(c.type, c.value, c.about) for c in found]


@settings(max_examples=60)
@given(st.sampled_from(SUBSTITUTIONS), THINGS, THINGS)
def test_every_substitution_form_excludes_the_old_thing_and_includes_the_new(form: str, old: str, new: str) -> None:
    found = stated_constraints(form.format(old=old, new=new), {})
    assert _pairs(found) == ([] if old == new else [("ingredient_excluded", old, None), ("ingredient_required", new, None)])


@settings(max_examples=40)
@given(st.sampled_from(KEEPS), THINGS)
def test_every_keep_form_says_what_stays(form: str, what: str) -> None:
    assert _pairs(stated_constraints(form.format(what=what), {})) == [("keep", what, None)]


@pytest.mark.parametrize(("refs", "about"), [
    ({"recipe_1": "Blueberry Oat Pancakes"}, "recipe_1"),
    ({"gen_recipe_2": "Pancakes (oat milk)", "meal_1": "Sun Nov 29 [breakfast]"}, "gen_recipe_2"),
    ({"recipe_1": "Pancakes", "recipe_2": "Waffles"}, None),
    ({"meal_1": "Sun Nov 29 [breakfast]"}, None),
])
def test_a_substitution_is_about_the_one_recipe_the_turn_refers_to(refs: dict[str, str], about: str | None) -> None:
    found = stated_constraints("use oat milk instead of milk", refs)
    assert {c.about for c in found} == {about}


@pytest.mark.parametrize(("refs", "about"), [
    ({"recipe_3": "Greek Lemon Chicken and Potatoes", "meal_2": "Sat Nov 28 [dinner]"}, "recipe_3"),
    ({"recipe_3": "Greek Lemon Chicken", "recipe_4": "Chicken Fajitas"}, None),
    ({"recipe_5": "Salmon Tacos"}, None),
])
def test_what_stays_is_about_the_one_ref_whose_label_names_it(refs: dict[str, str], about: str | None) -> None:
    assert [c.about for c in stated_constraints("Leave the chicken for now.", refs)] == [about]


@pytest.mark.parametrize("message", [
    "leave the onions out", "keep it under 30 minutes", "leave it for now", "don't keep the chicken as is",
    "don't use butter instead of oil", "what can I cook tonight?", "swap it for something else", "I'll leave that to you",
])
def test_nothing_is_compiled_from_words_that_state_neither(message: str) -> None:
    assert stated_constraints(message, {"recipe_1": "Pancakes"}) == []


def test_a_thing_is_cut_where_its_name_ends() -> None:
    found = stated_constraints("use butter instead of oil and eggs tonight", {})
    assert _pairs(found) == [("ingredient_excluded", "oil", None), ("ingredient_required", "butter", None)]


MODEL = Constraint(type="ingredient_excluded", field="dairy milk", value="milk", about="recipe_1")


def test_what_the_model_stated_is_not_added_twice_and_its_scope_wins() -> None:
    snapshot = ConstraintSnapshot(new_constraints=[MODEL.model_copy(update={"about": None})])
    merged = with_stated(snapshot, "use oat milk instead of milk", {"recipe_1": "Pancakes"})
    assert _pairs(merged.new_constraints) == [("ingredient_excluded", "milk", None), ("ingredient_required", "oat milk", "recipe_1")]


def test_a_reset_or_no_message_adds_nothing() -> None:
    reset = ConstraintSnapshot(reset_all=True)
    assert with_stated(reset, "leave the chicken for now", {}) is reset
    assert with_stated(ConstraintSnapshot(), None, {}) == ConstraintSnapshot()


@settings(max_examples=40)
@given(st.sampled_from([*SUBSTITUTIONS, *KEEPS]), THINGS, THINGS)
def test_merging_what_the_words_state_is_deterministic_and_idempotent(form: str, old: str, new: str) -> None:
    message = form.format(old=old, new=new, what=new)
    snapshot = with_stated(ConstraintSnapshot(), message, {"recipe_1": "Pancakes"})
    assert with_stated(ConstraintSnapshot(), message, {"recipe_1": "Pancakes"}) == snapshot
    once = merge_constraints(SessionConstraints(), snapshot, turn=1, user_message=message).constraints
    assert merge_constraints(once, snapshot, turn=1, user_message=message).constraints == once


def test_a_constraint_about_a_ref_outlives_staleness_and_a_new_area_and_a_keep_a_new_area() -> None:
    stated = with_stated(ConstraintSnapshot(goal_subdomain="recipes"), "use oat milk instead of milk. Leave the chicken for now",
                         {"recipe_1": "Pancakes"})
    session = merge_constraints(SessionConstraints(), stated, turn=1).constraints
    moved = merge_constraints(session, ConstraintSnapshot(goal_subdomain="meal_plans", goal_update="plan Sunday"), turn=2).constraints
    compiled = compile_constraints(moved)
    assert compiled.about == {"recipe_1": ["exclude milk", "include oat milk"]} and compiled.keep == ["chicken"]
    later = merge_constraints(moved, ConstraintSnapshot(), turn=9).constraints
    assert compile_constraints(later).about == compiled.about and compile_constraints(later).keep == []
    again = merge_constraints(later, ConstraintSnapshot(), turn=20).constraints
    assert again.active_goal == later.active_goal and again.replaced is None  # what lasts is never reset as stale again
