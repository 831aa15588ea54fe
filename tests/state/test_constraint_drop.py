"""Dropping named constraints: one or several, by the text or key a context shows, the rest of the goal kept."""

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

HELD = [
    {"type": "ingredient_excluded", "field": "gluten", "value": "gluten"},
    {"type": "ingredient_excluded", "field": "dairy", "value": "dairy"},
    {"type": "time_limit", "field": "max_minutes", "value": 30},
    {"type": "cuisine", "field": "cuisine", "value": "thai"},
    {"type": "servings", "field": "servings", "value": 6, "about": "recipe_1"},
    {"type": "allergy", "field": "guest", "value": "sesame", "lifetime": "occasion"},
]


def held() -> list[Constraint]:
    return [Constraint.model_validate(data) for data in HELD]


def session_holding() -> SessionConstraints:
    merged = merge_constraints(SessionConstraints(), ConstraintSnapshot(new_constraints=held(), goal_update="dinner"), turn=1)
    return merged.constraints


def names_of(constraint: Constraint) -> list[str]:
    """Every way a context shows `constraint`: its value, its phrase, its key, in any case."""
    phrase = describe_constraint(constraint)
    shown = [str(constraint.value), phrase, f"goal:{constraint.field}", phrase.upper()]
    return [*shown, f"{constraint.about}: {phrase}"] if constraint.about else shown


def in_force(session: SessionConstraints) -> list[Constraint]:
    goal = session.active_goal.constraints if session.active_goal else []
    return [*(session.occasion.constraints if session.occasion else []), *goal]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_dropping_named_constraints_drops_exactly_those_and_says_so(data: Any) -> None:
    """Any subset, each named any way the context shows it, goes; the others stay in order; the context names what went."""
    chosen = data.draw(st.lists(st.sampled_from(held()), min_size=1, unique=True))
    names = [data.draw(st.sampled_from(names_of(c))) for c in chosen]
    after = merge_constraints(session_holding(), ConstraintSnapshot(drop=names), turn=2).constraints
    kept = [(c.type, c.field, c.about) for c in in_force(after)]
    occasion_first = sorted(held(), key=lambda c: c.lifetime != "occasion")
    assert kept == [(c.type, c.field, c.about) for c in occasion_first if c not in chosen]
    assert after.active_goal is not None and after.active_goal.description == "dinner", "the goal itself stays"
    compiled = compile_constraints(after)
    assert sorted(compiled.dropped) == sorted(
        f"{c.about}: {describe_constraint(c)}" if c.about else describe_constraint(c) for c in chosen)
    assert f"- Dropped: {'; '.join(compiled.dropped)}" in render_constraints(compiled)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([d["field"] for d in HELD]), min_size=1, max_size=3))
def test_merging_a_drop_again_in_its_turn_changes_nothing(names: list[str]) -> None:
    snapshot = ConstraintSnapshot(drop=names)
    once = merge_constraints(session_holding(), snapshot, turn=2).constraints
    assert merge_constraints(once, snapshot, turn=2).constraints == once


def test_the_next_turn_no_longer_reports_the_drop_and_reset_all_still_ends_the_goal() -> None:
    dropped = merge_constraints(session_holding(), ConstraintSnapshot(drop=["gluten"]), turn=2).constraints
    assert compile_constraints(merge_constraints(dropped, ConstraintSnapshot(), turn=3).constraints).dropped == []
    reset = merge_constraints(dropped, ConstraintSnapshot(reset_all=True), turn=3).constraints
    assert reset.active_goal is None


def test_a_drop_and_a_new_constraint_in_one_turn_keep_the_new_one() -> None:
    """'Forget the gluten thing, no nuts instead': the drop goes first, the addition stays."""
    nuts = Constraint(type="ingredient_excluded", field="gluten", value="nuts")
    after = merge_constraints(session_holding(), ConstraintSnapshot(drop=["gluten"], new_constraints=[nuts]), turn=2)
    excluded = [c.value for c in in_force(after.constraints) if c.type == "ingredient_excluded"]
    assert excluded == ["dairy", "nuts"]
