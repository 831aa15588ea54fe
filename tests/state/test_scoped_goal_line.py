"""Constraints about one thing (a recipe, a draft, a meal) never name the session's goal: the Goal line reads as
session-wide, so they appear once, under their ref, in the compiled constraints every role's context shows."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from alfred_mcp.state.constraints import (
    Constraint,
    ConstraintSnapshot,
    SessionConstraints,
    compile_constraints,
    describe_constraint,
    merge_constraints,
    render_constraints,
)

VALUES = ["buttermilk", "oat milk", "gluten", "cilantro", "peanut oil"]


def constraints() -> st.SearchStrategy[Constraint]:
    return st.builds(
        lambda kind, value, about: Constraint(type=kind, field=value.replace(" ", "_"), value=value, about=about),
        st.sampled_from(["ingredient_excluded", "ingredient_required"]), st.sampled_from(VALUES),
        st.sampled_from([None, "recipe_1", "gen_meal_2"]))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(constraints(), min_size=1, max_size=4), min_size=1, max_size=3))
def test_scoped_constraints_never_name_the_goal_and_show_once_with_their_ref(turns: list[list[Constraint]]) -> None:
    """Over any turns stating scoped and goal-wide constraints (no goal named), the Goal line holds no scoped phrase
    that is not also goal-wide, and each scoped phrase is on its ref's line exactly once."""
    session = SessionConstraints()
    for turn, stated in enumerate(turns, start=1):
        session = merge_constraints(session, ConstraintSnapshot(new_constraints=stated), turn=turn).constraints
    held = session.active_goal.constraints if session.active_goal else []
    text = render_constraints(compile_constraints(session))
    goal_line = next((line for line in text.splitlines() if line.startswith("- Goal:")), "")
    general = {describe_constraint(c) for c in held if c.about is None}
    for scoped in (c for c in held if c.about is not None):
        phrase = describe_constraint(scoped)
        assert phrase in general or phrase.lower() not in goal_line.lower(), (phrase, goal_line)
        ref_line = next(line for line in text.splitlines() if line.startswith(f"- Only for {scoped.about}:"))
        assert ref_line.count(phrase) == 1 and text.count(f"- Only for {scoped.about}:") == 1


def test_a_goal_of_one_recipe_is_named_by_its_ref_and_its_constraints_listed_once() -> None:
    """b5: 'no buttermilk, oat milk instead, for 6' about recipe_1 was the session's Goal line, and again under recipe_1.
    Now the goal is named 'About recipe_1', and its Goal line is left out: the 'Only for' line says all of it."""
    stated: list[dict[str, Any]] = [
        {"type": "ingredient_excluded", "field": "dairy", "value": "buttermilk", "about": "recipe_1"},
        {"type": "ingredient_required", "field": "milk", "value": "oat milk", "about": "recipe_1"},
        {"type": "servings", "field": "servings", "value": 6, "about": "recipe_1"}]
    snapshot = ConstraintSnapshot.model_validate({"new_constraints": stated})
    text = render_constraints(compile_constraints(merge_constraints(SessionConstraints(), snapshot, turn=2).constraints))
    session = merge_constraints(SessionConstraints(), snapshot, turn=2).constraints
    assert session.active_goal is not None and session.active_goal.description == "About recipe_1"
    assert "- Goal:" not in text
    assert text.count("buttermilk") == 1 and "- Only for recipe_1: exclude buttermilk; include oat milk; servings: 6" in text


def test_an_unnamed_goal_is_renamed_by_what_it_keeps_to_after_a_drop_and_a_named_one_keeps_its_name() -> None:
    gluten = Constraint(type="ingredient_excluded", field="gluten", value="gluten")
    thai = Constraint(type="cuisine", field="cuisine", value="thai")
    unnamed = merge_constraints(SessionConstraints(), ConstraintSnapshot(new_constraints=[gluten, thai]), turn=1).constraints
    dropped = merge_constraints(unnamed, ConstraintSnapshot(drop=["gluten"]), turn=2).constraints
    assert dropped.active_goal is not None and dropped.active_goal.description == "Cuisine: thai"
    named = merge_constraints(SessionConstraints(), ConstraintSnapshot(new_constraints=[gluten, thai], goal_update="thai night"),
                              turn=1).constraints
    assert merge_constraints(named, ConstraintSnapshot(drop=["gluten"]), turn=2).constraints.active_goal.description == "thai night"  # type: ignore[union-attr]
