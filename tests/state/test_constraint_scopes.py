"""Constraints with a scope (about one ref) and a lifetime (the goal, or an occasion), merged deterministically.

A constraint about one ref filters nothing else; an occasion's constraints outlive every kind of goal
reset until the occasion is done; a new goal area carries the goal's exclusions over and says what ended.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alfred_mcp.state.constraints import (
    Constraint,
    ConstraintSnapshot,
    PermanentConstraints,
    ResetReason,
    SessionConstraints,
    compile_constraints,
    guest_allergies,
    merge_constraints,
    render_constraints,
)


def c(kind: str, field: str, value: Any, **extra: Any) -> Constraint:
    return Constraint.model_validate({"type": kind, "field": field, "value": value, **extra})


def merged(*snapshots: ConstraintSnapshot, permanent: PermanentConstraints | None = None, messages: dict[int, str] | None = None) -> SessionConstraints:
    """The store after merging `snapshots` in turns 1, 2, ... (message of a turn from `messages`)."""
    session = SessionConstraints(permanent=permanent or PermanentConstraints())
    for turn, snapshot in enumerate(snapshots, start=1):
        session = merge_constraints(session, snapshot, turn=turn, user_message=(messages or {}).get(turn)).constraints
    return session


GUESTS = ConstraintSnapshot(
    occasion_update="Saturday dinner, 6 guests",
    new_constraints=[c("allergy", "guests", ["shellfish", "sesame"], lifetime="occasion"),
                     c("servings", "people", 6, lifetime="occasion"), c("days", "when", "saturday", lifetime="occasion")],
    goal_update="a menu for Saturday", goal_subdomain="recipes",
)


# --- scope: about one ref ---


def test_a_constraint_about_one_recipe_filters_nothing_else() -> None:
    """'Make it dairy-free' (about recipe_3) is listed for recipe_3 only: the goal-wide view the searches read has no dairy."""
    session = merged(ConstraintSnapshot(new_constraints=[c("ingredient_excluded", "diet", "dairy", about="recipe_3")],
                                        goal_update="make recipe_3 dairy-free", goal_subdomain="recipes"))
    compiled = compile_constraints(session)
    assert compiled.must_exclude == [] and compiled.about == {"recipe_3": ["exclude dairy"]}
    assert "- Only for recipe_3: exclude dairy" in render_constraints(compiled)


def test_an_override_about_a_ref_leaves_the_goal_wide_constraint_alone() -> None:
    """(type, field) is replaced within its scope: a correction about recipe_3 does not replace the goal's own."""
    session = merged(
        ConstraintSnapshot(new_constraints=[c("time_limit", "max_minutes", 30)]),
        ConstraintSnapshot(overrides=[c("time_limit", "max_minutes", 60, about="recipe_3")]),
    )
    compiled = compile_constraints(session)
    assert compiled.max_minutes == 30 and compiled.about == {"recipe_3": ["time limit: 60"]}


@pytest.mark.parametrize("about", ["dairy", "recipe", "recipe_0", "3", ""])
def test_about_must_be_a_ref(about: str) -> None:
    with pytest.raises(ValueError, match="about takes a ref"):
        c("ingredient_excluded", "diet", "dairy", about=about)


# --- lifetime: the occasion ---

RESETS: list[tuple[ResetReason, ConstraintSnapshot, dict[int, str], int]] = [
    ("reset_all", ConstraintSnapshot(reset_all=True), {}, 2),
    ("trigger_phrase", ConstraintSnapshot(), {2: "never mind, something else"}, 2),
    ("reset_subdomain", ConstraintSnapshot(reset_subdomain="recipes"), {}, 2),
    ("new_subdomain", ConstraintSnapshot(goal_update="what is in my freezer", goal_subdomain="inventory"), {}, 2),
    ("stale", ConstraintSnapshot(), {}, 9),
]


@pytest.mark.parametrize(("reason", "snapshot", "messages", "turn"), RESETS, ids=[r[0] for r in RESETS])
def test_the_occasion_outlives_every_goal_reset(reason: ResetReason, snapshot: ConstraintSnapshot, messages: dict[int, str], turn: int) -> None:
    """The guests' shellfish and sesame, the servings and the day stand whatever ended the goal."""
    first = merged(GUESTS)
    result = merge_constraints(first, snapshot, turn=turn, user_message=messages.get(2))
    assert result.reset_reason == reason
    compiled = compile_constraints(result.constraints)
    assert compiled.guest_allergies == ["sesame", "shellfish"] and compiled.servings == 6 and compiled.days == ["saturday"]
    assert [(i.value, i.why) for i in compiled.must_exclude] == [("sesame", ["guest allergy"]), ("shellfish", ["guest allergy"])]
    assert compiled.occasion == "Saturday dinner, 6 guests"
    assert result.constraints.replaced is not None and result.constraints.replaced.reason == reason
    assert "- Replaced: Ended goal 'a menu for Saturday'" in render_constraints(compiled)


def test_the_occasion_ends_when_it_is_done() -> None:
    session = merged(GUESTS, ConstraintSnapshot(occasion_done=True))
    compiled = compile_constraints(session)
    assert session.occasion is None and compiled.guest_allergies == [] and compiled.servings is None


def test_a_required_ingredient_holding_a_guests_allergen_is_blocked_while_the_occasion_lasts() -> None:
    """'Shrimp for the main' while a guest is allergic to shellfish: blocked, naming the allergy; back when the party is over."""
    session = merged(GUESTS, ConstraintSnapshot(new_constraints=[c("ingredient_required", "main", "shrimp")]))
    compiled = compile_constraints(session)
    assert compiled.must_include == [] and [(i.value, i.why) for i in compiled.blocked] == [("shrimp", ["allergy:shellfish"])]
    after = merge_constraints(session, ConstraintSnapshot(occasion_done=True), turn=3).constraints
    assert [i.value for i in compile_constraints(after).must_include] == ["shrimp"]


def test_a_new_goal_area_keeps_the_exclusions_and_what_is_about_one_thing_and_says_what_ended() -> None:
    """Exclusions (goal-wide) and constraints about one ref ('make recipe_3 dairy-free': as long as recipe_3 is) carry into
    the new goal; the rest of the old goal ends, and Think reads both."""
    first = ConstraintSnapshot(
        new_constraints=[c("ingredient_excluded", "avoid", "mushrooms"), c("cuisine", "style", "thai"),
                         c("ingredient_excluded", "diet", "dairy", about="recipe_3")],
        goal_update="thai curry night", goal_subdomain="recipes")
    session = merged(first, ConstraintSnapshot(goal_update="use up the freezer", goal_subdomain="inventory"))
    compiled = compile_constraints(session)
    assert [i.value for i in compiled.must_exclude] == ["mushrooms"] and compiled.cuisine == []
    assert compiled.about == {"recipe_3": ["exclude dairy"]}
    assert compiled.goal == "use up the freezer" and compiled.subdomain == "inventory"
    assert compiled.replaced == ("Ended goal 'thai curry night' (a new goal area), dropped: cuisine: thai, "
                                 "kept: exclude mushrooms; exclude dairy")


def test_the_replacement_is_reported_in_its_turn_only() -> None:
    session = merged(ConstraintSnapshot(goal_update="a", goal_subdomain="recipes", new_constraints=[c("cuisine", "s", "thai")]),
                     ConstraintSnapshot(goal_subdomain="shopping"), ConstraintSnapshot(new_constraints=[c("cuisine", "s", "greek")]))
    assert session.replaced is None and "Replaced" not in render_constraints(compile_constraints(session))


def test_guest_allergies_are_the_goal_wide_allergy_constraints_in_force() -> None:
    session = merged(GUESTS, ConstraintSnapshot(new_constraints=[c("allergy", "nephew", "peanuts", about="recipe_3"),
                                                                 c("allergy", "friend", "Kiwi")]))
    assert guest_allergies(session) == ["kiwi", "sesame", "shellfish"]


def test_a_session_stored_before_scopes_and_lifetimes_still_loads() -> None:
    """Stored sessions have no about, lifetime, occasion or replaced: they load with the defaults."""
    stored = {"permanent": {"allergies": ["peanuts"], "dietary_restrictions": [], "equipment": [], "dislikes": []},
              "active_goal": {"description": "fish", "subdomain": "recipes", "started_turn": 1,
                              "constraints": [{"type": "ingredient_excluded", "field": "avoid", "value": "cod",
                                               "confidence": 1.0, "source_turn": 1}]},
              "last_touched_turn": 1}
    session = SessionConstraints.model_validate(stored)
    assert session.occasion is None and session.replaced is None
    assert session.active_goal is not None and session.active_goal.constraints[0].lifetime == "goal"
    assert session.active_goal.constraints[0].about is None
    assert SessionConstraints.model_validate_json(session.model_dump_json()) == session


# --- generated cases ---

WORDS = ["cod", "shrimp", "dairy", "sesame", "rice", "peanuts"]
REFS = [None, None, "recipe_3", "gen_recipe_1"]
scoped_constraints = st.builds(
    lambda kind, field, value, about, lifetime: c(kind, field, value, about=about, lifetime=lifetime),
    st.sampled_from(["ingredient_required", "ingredient_excluded", "allergy", "cuisine"]),
    st.sampled_from(["main", "avoid", "guests"]),
    st.sampled_from(WORDS),
    st.sampled_from(REFS),
    st.sampled_from(["goal", "occasion"]),
) | st.builds(
    lambda value, about, lifetime: c("servings", "people", value, about=about, lifetime=lifetime),
    st.integers(min_value=1, max_value=12), st.sampled_from(REFS), st.sampled_from(["goal", "occasion"]),
)
AREAS = st.sampled_from(["recipes", "inventory", "shopping"]) | st.none()
scoped_snapshots = st.builds(
    ConstraintSnapshot,
    new_constraints=st.lists(scoped_constraints, max_size=4),
    overrides=st.lists(scoped_constraints, max_size=2),
    reset_all=st.booleans(),
    reset_subdomain=AREAS,
    goal_update=st.sampled_from(["party menu", "freezer"]) | st.none(),
    goal_subdomain=AREAS,
    occasion_update=st.sampled_from(["Saturday dinner"]) | st.none(),
    occasion_done=st.booleans(),
)


@st.composite
def scoped_sessions(draw: st.DrawFn) -> tuple[SessionConstraints, int]:
    session = SessionConstraints(permanent=PermanentConstraints(allergies=draw(st.lists(st.sampled_from(["peanuts", "shellfish"]), max_size=1))))
    turn = 0
    for snapshot in draw(st.lists(scoped_snapshots, max_size=4)):
        turn += draw(st.integers(min_value=1, max_value=5))
        session = merge_constraints(session, snapshot, turn=turn).constraints
    return session, turn + draw(st.integers(min_value=0, max_value=5))


@settings(max_examples=150)
@given(scoped_sessions(), scoped_snapshots, st.booleans())
def test_scoped_merges_are_idempotent_and_deterministic(state: tuple[SessionConstraints, int], snapshot: ConstraintSnapshot, referenced: bool) -> None:
    session, turn = state
    once = merge_constraints(session, snapshot, turn=turn, entities_referenced=referenced)
    assert merge_constraints(session.model_copy(deep=True), snapshot, turn=turn, entities_referenced=referenced) == once
    twice = merge_constraints(once.constraints, snapshot, turn=turn, entities_referenced=referenced)
    assert twice.constraints == once.constraints and twice.rejected == once.rejected


@settings(max_examples=150)
@given(scoped_sessions(), scoped_snapshots)
def test_the_occasion_is_kept_unless_done(state: tuple[SessionConstraints, int], snapshot: ConstraintSnapshot) -> None:
    """Every constraint the occasion held is still held after any merge that does not end the occasion."""
    session, turn = state
    after = merge_constraints(session, snapshot, turn=turn, user_message="never mind").constraints
    before = session.occasion.constraints if session.occasion else []
    if snapshot.occasion_done:
        assert after.occasion is None or after.occasion.started_turn == turn
    else:
        held = {(x.type, x.field, x.about) for x in (after.occasion.constraints if after.occasion else [])}
        assert {(x.type, x.field, x.about) for x in before} <= held


@settings(max_examples=150)
@given(scoped_sessions())
def test_constraints_about_a_ref_never_reach_the_goal_wide_view(state: tuple[SessionConstraints, int]) -> None:
    """Removing every ref-scoped constraint changes nothing the searches read, only `about`."""
    session, _ = state

    def unscoped(held: list[Constraint]) -> list[Constraint]:
        return [x for x in held if x.about is None]

    goal = session.active_goal
    occasion = session.occasion
    bare = session.model_copy(update={
        "active_goal": goal.model_copy(update={"constraints": unscoped(goal.constraints)}) if goal else None,
        "occasion": occasion.model_copy(update={"constraints": unscoped(occasion.constraints)}) if occasion else None,
    })
    full, without = compile_constraints(session), compile_constraints(bare)
    assert full.model_copy(update={"about": {}}) == without
    scoped = {x.about for x in [*(goal.constraints if goal else []), *(occasion.constraints if occasion else [])] if x.about}
    assert set(full.about) == scoped


PER_REF = st.lists(st.tuples(st.sampled_from(["ingredient_required", "ingredient_excluded"]),
                             st.sampled_from(["chicken", "dairy", "potatoes", "cilantro", "rice"]),
                             st.sampled_from(["meal_2", "recipe_3"])), min_size=1, max_size=5)


@settings(max_examples=60, deadline=None)
@given(scoped=PER_REF, named=st.sampled_from([None, "a chicken dinner for Saturday"]),
       general=st.sampled_from([None, ("ingredient_excluded", "olives")]))
def test_a_constraint_about_one_ref_is_said_once_and_a_goal_only_when_it_says_more(
        scoped: list[tuple[str, str, str]], named: str | None, general: tuple[str, str] | None) -> None:
    """'plan something with chicken for it' (about meal_2): the goal no one named is labelled by that constraint, so
    the constraints say it once ('Only for meal_2: include chicken'), not again as '- Goal: Include chicken'; a goal
    the user named, or one labelled by a goal-wide constraint, is still shown."""
    constraints = [c(kind, "protein", value, about=ref) for kind, value, ref in scoped]
    constraints += [c(general[0], "diet", general[1])] if general else []
    compiled = compile_constraints(merged(ConstraintSnapshot(new_constraints=constraints, goal_update=named)))
    text = render_constraints(compiled)
    for ref, phrases in compiled.about.items():
        assert text.count(f"- Only for {ref}: {'; '.join(phrases)}") == 1
    goal_lines = [line for line in text.splitlines() if line.startswith("- Goal:")]
    assert len(goal_lines) == (1 if named or general else 0), text
    if named:
        assert goal_lines == [f"- Goal: {named}"]
