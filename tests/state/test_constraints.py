"""The constraint store: deterministic merge, resets, allergy protection and the compiled view."""

from __future__ import annotations

import random
from datetime import date
from typing import Any, get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from alfred_mcp.errors import ConfigError
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.state.constraints import (
    ActiveGoal,
    CompiledItem,
    Constraint,
    ConstraintSnapshot,
    MergeResult,
    PermanentConstraints,
    ResetConfig,
    SessionConstraints,
    Subdomain,
    compile_constraints,
    describe_constraint,
    find_trigger_phrase,
    merge_constraints,
    permanent_from_preferences,
    render_constraints,
)


def c(kind: str, field: str, value: Any, **extra: Any) -> Constraint:
    return Constraint.model_validate({"type": kind, "field": field, "value": value, **extra})


def snap(*new: Constraint, **fields: Any) -> ConstraintSnapshot:
    return ConstraintSnapshot(new_constraints=list(new), **fields)


def goal_constraints(result: MergeResult) -> list[tuple[str, str, Any]]:
    goal = result.constraints.active_goal
    assert goal is not None
    return [(x.type, x.field, x.value) for x in goal.constraints]


SHELLFISH = PermanentConstraints(allergies=["shellfish", "peanuts"], dislikes=["cilantro"])


# --- the seed 000 scenarios ---


def test_fish_then_cod_then_simple_accumulates_across_turns() -> None:
    """Seed scenario 3: three turns build one goal with protein=cod and style=simple."""
    session = SessionConstraints()
    turns = [
        snap(c("ingredient_required", "category", "fish"), goal_update="fish recipes", goal_subdomain="recipes"),
        snap(c("ingredient_required", "protein", "cod")),
        snap(c("difficulty", "style", "simple")),
    ]
    for turn, snapshot in enumerate(turns, start=1):
        session = merge_constraints(session, snapshot, turn=turn).constraints
    assert session == SessionConstraints(
        active_goal=ActiveGoal(
            description="fish recipes",
            subdomain="recipes",
            started_turn=1,
            constraints=[
                c("ingredient_required", "category", "fish", source_turn=1),
                c("ingredient_required", "protein", "cod", source_turn=2),
                c("difficulty", "style", "simple", source_turn=3),
            ],
        ),
        last_touched_turn=3,
    )
    compiled = compile_constraints(session)
    assert compiled.must_include == [
        CompiledItem(value="cod", why=["goal:protein"]),
        CompiledItem(value="fish", why=["goal:category"]),
    ]
    assert compiled.difficulty == ["simple"]


def test_forget_those_and_make_chicken_starts_a_new_goal() -> None:
    """Seed scenario 2: the trigger phrase ends the fish goal and the same turn's chicken starts a new one."""
    fish = merge_constraints(
        SessionConstraints(), snap(c("ingredient_required", "protein", "fish"), goal_update="2 fish recipes"), turn=1
    ).constraints
    result = merge_constraints(
        fish,
        snap(c("ingredient_required", "protein", "chicken"), goal_update="chicken recipes"),
        turn=2,
        user_message="Actually, forget those and make chicken instead",
    )
    assert result.reset_reason == "trigger_phrase"
    assert result.constraints.active_goal == ActiveGoal(
        description="chicken recipes",
        started_turn=2,
        constraints=[c("ingredient_required", "protein", "chicken", source_turn=2)],
    )


# --- merge rules ---


def test_override_replaces_same_type_and_field_in_place() -> None:
    """An override swaps the value of its (type, field) and keeps the goal's order."""
    session = merge_constraints(
        SessionConstraints(),
        snap(c("flavor", "heat", "mild"), c("cuisine", "style", "thai"), c("flavor", "heat", "smoky")),
        turn=1,
    ).constraints
    result = merge_constraints(session, ConstraintSnapshot(overrides=[c("flavor", "heat", "spicy")]), turn=2)
    assert goal_constraints(result) == [("flavor", "heat", "spicy"), ("cuisine", "style", "thai")]


def test_new_constraint_with_another_value_accumulates() -> None:
    """Multi-valued types keep every value: cod and rice are both required."""
    session = merge_constraints(SessionConstraints(), snap(c("ingredient_required", "ingredient", "cod")), turn=1)
    result = merge_constraints(session.constraints, snap(c("ingredient_required", "ingredient", "rice")), turn=2)
    assert goal_constraints(result) == [
        ("ingredient_required", "ingredient", "cod"),
        ("ingredient_required", "ingredient", "rice"),
    ]


def test_repeated_constraint_keeps_its_first_turn() -> None:
    """A constraint already in the goal is not added again, and keeps the turn it was first stated."""
    session = merge_constraints(SessionConstraints(), snap(c("cuisine", "style", "Thai")), turn=1).constraints
    result = merge_constraints(session, snap(c("cuisine", "style", " thai ")), turn=2)
    goal = result.constraints.active_goal
    assert goal is not None and goal.constraints == [c("cuisine", "style", "thai", source_turn=1)]


@pytest.mark.parametrize(
    ("kind", "field", "first", "second"),
    [
        pytest.param("servings", "people", 4, 2, id="servings"),
        pytest.param("time_limit", "max_minutes", 30, 20, id="time-limit"),
        pytest.param("difficulty", "style", "simple", "challenging", id="difficulty"),
    ],
)
def test_single_valued_new_constraint_replaces_the_older_value(kind: str, field: str, first: Any, second: Any) -> None:
    """A number or level cannot accumulate: the newer statement wins even without an override."""
    session = merge_constraints(SessionConstraints(), snap(c(kind, field, first)), turn=1).constraints
    result = merge_constraints(session, snap(c(kind, field, second)), turn=2)
    assert goal_constraints(result) == [(kind, field, second)]


def test_goal_is_only_created_when_the_snapshot_contributes() -> None:
    """An empty snapshot leaves a goal-less session goal-less (seed code would invent 'User request')."""
    result = merge_constraints(SessionConstraints(), ConstraintSnapshot(goal_subdomain="recipes"), turn=1)
    assert result.constraints == SessionConstraints()


@pytest.mark.parametrize("stated", [
    [c("servings", "people", 2)], [c("ingredient_excluded", "dairy", "dairy")],
    [c("time_limit", "max_minutes", 30), c("cuisine", "style", "thai")],
    [c("ingredient_excluded", "dairy", "dairy", about="recipe_3")],
    [c("days", "when", ["monday", "tuesday"]), c("meal_type", "meal", "dinner"), c("flavor", "taste", "spicy"), c("servings", "people", 4)],
], ids=lambda stated: "+".join(constraint.type for constraint in stated))
def test_a_goal_no_one_named_is_called_by_what_it_keeps_to(stated: list[Constraint]) -> None:
    """Constraints with no stated goal start a goal named by them ('Exclude dairy'), never a placeholder such as
    'User request'; a reset that carries exclusions over names the goal it leaves by them too. Constraints about one
    ref never name it (the Goal line reads as session-wide): those alone name it by their ref."""
    result = merge_constraints(SessionConstraints(), snap(*stated), turn=3)
    goal = result.constraints.active_goal
    assert goal is not None and goal.started_turn == 3
    if all(constraint.about for constraint in stated):
        assert goal.description == "About " + ", ".join(sorted({str(constraint.about) for constraint in stated}))
        return
    first = min(describe_constraint(constraint) for constraint in stated)
    assert goal.description.lower().startswith(first.lower()) and "request" not in goal.description.lower(), goal.description
    assert goal.description.count(";") == min(len(stated), 3) - 1 + (len(stated) > 3)


def test_a_goal_carried_into_a_new_area_is_named_by_what_it_carries() -> None:
    session = merge_constraints(SessionConstraints(), snap(c("ingredient_excluded", "nuts", "peanuts"), goal_update="nut-free cookies",
                                                            goal_subdomain="recipes"), turn=1).constraints
    result = merge_constraints(session, ConstraintSnapshot(goal_subdomain="shopping"), turn=2)
    goal = result.constraints.active_goal
    assert goal is not None and goal.description == "Exclude peanuts"


def test_goal_update_renames_the_goal_and_keeps_constraints() -> None:
    """A new goal text in the same area keeps what was gathered."""
    session = merge_constraints(
        SessionConstraints(), snap(c("equipment", "appliance", "air-fryer"), goal_update="fish"), turn=1
    ).constraints
    result = merge_constraints(session, snap(goal_update="3 fish recipes for the air fryer"), turn=2)
    goal = result.constraints.active_goal
    assert goal is not None
    assert (goal.description, goal.started_turn, len(goal.constraints)) == ("3 fish recipes for the air fryer", 1, 1)


# --- resets ---


def recipe_goal(turn: int = 1) -> SessionConstraints:
    return merge_constraints(
        SessionConstraints(permanent=SHELLFISH),
        snap(c("ingredient_required", "protein", "cod"), goal_update="cod recipes", goal_subdomain="recipes"),
        turn=turn,
    ).constraints


@pytest.mark.parametrize(
    ("snapshot", "message", "reason"),
    [
        pytest.param(ConstraintSnapshot(reset_all=True), None, "reset_all", id="reset-all"),
        pytest.param(ConstraintSnapshot(), "Never mind.", "trigger_phrase", id="never-mind"),
        pytest.param(ConstraintSnapshot(), "ok SCRATCH   THAT please", "trigger_phrase", id="scratch-that-spacing"),
        pytest.param(ConstraintSnapshot(reset_subdomain="recipes"), None, "reset_subdomain", id="reset-subdomain"),
        pytest.param(ConstraintSnapshot(goal_subdomain="shopping"), None, "new_subdomain", id="new-subdomain"),
    ],
)
def test_reset_clears_the_goal(snapshot: ConstraintSnapshot, message: str | None, reason: str) -> None:
    """Each reset trigger ends the goal and names itself; allergies stay."""
    result = merge_constraints(recipe_goal(), snapshot, turn=2, user_message=message)
    assert (result.reset_reason, result.constraints.active_goal) == (reason, None)
    assert result.constraints.permanent == SHELLFISH


@pytest.mark.parametrize(
    ("snapshot", "message"),
    [
        pytest.param(ConstraintSnapshot(reset_subdomain="meal_plans"), None, id="other-subdomain-reset"),
        pytest.param(ConstraintSnapshot(goal_subdomain="recipes"), None, id="same-subdomain"),
        pytest.param(ConstraintSnapshot(), "don't forget that I have an air fryer", id="negated-phrase"),
        pytest.param(ConstraintSnapshot(), "I forgot the thatch", id="no-whole-words"),
    ],
)
def test_non_resets_keep_the_goal(snapshot: ConstraintSnapshot, message: str | None) -> None:
    """Near misses leave the goal alone."""
    session = recipe_goal()
    result = merge_constraints(session, snapshot, turn=2, user_message=message)
    assert result.reset_reason is None
    assert result.constraints.active_goal == session.active_goal


@pytest.mark.parametrize(
    ("stale_after", "turn", "stale"),
    [
        pytest.param(3, 4, False, id="3-turns-later-default"),
        pytest.param(3, 5, True, id="4-turns-later-default"),
        pytest.param(1, 3, True, id="configured-1"),
        pytest.param(0, 2, True, id="configured-0"),
        pytest.param(None, 99, False, id="disabled"),
    ],
)
def test_goal_goes_stale_after_configured_turns(stale_after: int | None, turn: int, stale: bool) -> None:
    """A goal untouched for more than `stale_after_turns` turns is dropped."""
    config = ResetConfig(stale_after_turns=stale_after)
    result = merge_constraints(recipe_goal(turn=1), ConstraintSnapshot(), turn=turn, config=config)
    assert (result.reset_reason == "stale", result.constraints.active_goal is None) == (stale, stale)


def test_referring_to_entities_keeps_the_goal_fresh() -> None:
    """A turn that refers to session entities touches the goal, so it does not go stale."""
    touched = merge_constraints(recipe_goal(turn=1), ConstraintSnapshot(), turn=4, entities_referenced=True)
    assert touched.constraints.last_touched_turn == 4
    later = merge_constraints(touched.constraints, ConstraintSnapshot(), turn=7)
    assert later.reset_reason is None and later.constraints.active_goal is not None


def test_custom_trigger_phrases_replace_the_defaults() -> None:
    """The trigger list is configuration."""
    config = ResetConfig(trigger_phrases=("clean slate",))
    kept = merge_constraints(recipe_goal(), ConstraintSnapshot(), turn=2, config=config, user_message="never mind")
    assert kept.reset_reason is None
    result = merge_constraints(recipe_goal(), ConstraintSnapshot(), turn=2, config=config, user_message="Clean slate!")
    assert result.reset_reason == "trigger_phrase"
    assert find_trigger_phrase("never mind", config.trigger_phrases) is None


@pytest.mark.parametrize(
    "config",
    [
        pytest.param({"stale_after_turns": -1}, id="negative-staleness"),
        pytest.param({"trigger_phrases": ("never mind", " ")}, id="blank-phrase"),
    ],
)
def test_bad_reset_config_is_refused(config: dict[str, Any]) -> None:
    """A negative window or a blank phrase is a configuration error."""
    with pytest.raises(ConfigError):
        ResetConfig(**config)


def test_no_reset_reason_without_a_goal() -> None:
    """Saying 'never mind' with no goal has nothing to reset."""
    result = merge_constraints(SessionConstraints(), ConstraintSnapshot(reset_all=True), turn=1, user_message="never mind")
    assert result == MergeResult(constraints=SessionConstraints())


# --- allergies ---


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("Shellfish", id="case"),
        pytest.param("peanut", id="singular-of-plural-allergy"),
        pytest.param("peanut butter", id="inside-a-phrase"),
        pytest.param(["rice", "shellfish"], id="in-a-list"),
    ],
)
def test_required_allergen_is_rejected(value: Any) -> None:
    """An ingredient_required that names an allergen never reaches the goal, as new or as override."""
    session = recipe_goal()
    required = c("ingredient_required", "protein", value)
    for snapshot in (snap(required), ConstraintSnapshot(overrides=[required])):
        result = merge_constraints(session, snapshot, turn=2)
        assert result.constraints.active_goal == session.active_goal
        assert [r.constraint for r in result.rejected] == [required.model_copy(update={"source_turn": 2})]
        assert result.rejected[0].allergen in SHELLFISH.allergies


def test_allergen_not_required_is_accepted() -> None:
    """'coconut' is not 'nut'-like by word, and excluding an allergen is fine."""
    permanent = PermanentConstraints(allergies=["nuts", "shellfish"])
    snapshot = snap(c("ingredient_required", "base", "coconut milk"), c("ingredient_excluded", "avoid", "shellfish"))
    result = merge_constraints(SessionConstraints(permanent=permanent), snapshot, turn=1)
    assert result.rejected == []
    assert len(goal_constraints(result)) == 2


def test_allergy_added_later_blocks_an_old_requirement() -> None:
    """The compiled view moves a requirement to `blocked` once the user turns out to be allergic to it."""
    session = merge_constraints(SessionConstraints(), snap(c("ingredient_required", "protein", "shrimp")), turn=1)
    allergic = session.constraints.model_copy(update={"permanent": PermanentConstraints(allergies=["shrimp"])})
    compiled = compile_constraints(allergic)
    assert compiled.must_include == []
    assert compiled.blocked == [CompiledItem(value="shrimp", why=["allergy:shrimp"])]
    assert compiled.must_exclude == [CompiledItem(value="shrimp", why=["allergy"])]


# --- models ---


def test_permanent_constraints_come_from_a_preferences_row() -> None:
    """Column names map to fields; values are normalized and sorted; missing columns are empty."""
    row = {
        "allergies": ["Shellfish", "peanuts", "shellfish"],
        "available_equipment": ["oven", "air-fryer"],
        "disliked_ingredients": None,
        "time_budget_minutes": 30,
    }
    assert permanent_from_preferences(row) == PermanentConstraints(
        allergies=["peanuts", "shellfish"], equipment=["air-fryer", "oven"]
    )


@pytest.mark.parametrize(
    ("data", "value"),
    [
        pytest.param({"type": "time_limit", "value": 30.0}, 30, id="integral-float-minutes"),
        pytest.param({"type": "time_limit", "value": 7.5}, 7.5, id="fractional-minutes"),
        pytest.param({"type": "cuisine", "value": ["Thai", " thai", "Korean"]}, ["korean", "thai"], id="list-sorted"),
        pytest.param({"type": "flavor", "value": ["Spicy"]}, "spicy", id="one-item-list"),
    ],
)
def test_constraint_values_are_normalized(data: dict[str, Any], value: Any) -> None:
    """Values are compared after normalization, so spelling noise cannot duplicate a constraint."""
    assert Constraint.model_validate({"field": "x", **data}).value == value


@pytest.mark.parametrize(
    "data",
    [
        pytest.param({"type": "time_limit", "value": "30 minutes"}, id="minutes-as-text"),
        pytest.param({"type": "servings", "value": 2.5}, id="fractional-servings"),
        pytest.param({"type": "servings", "value": 0}, id="zero-servings"),
        pytest.param({"type": "servings", "value": True}, id="bool-servings"),
        pytest.param({"type": "cuisine", "value": 3}, id="number-cuisine"),
        pytest.param({"type": "cuisine", "value": ["  "]}, id="blank-list"),
        pytest.param({"type": "cuisine", "value": "thai", "mood": "x"}, id="extra-key"),
        pytest.param({"type": "texture", "value": "crispy"}, id="unknown-type"),
    ],
)
def test_invalid_constraints_are_refused(data: dict[str, Any]) -> None:
    """A malformed constraint fails validation, so the role is asked again."""
    with pytest.raises(ValidationError):
        Constraint.model_validate({"field": "x", **data})


def test_field_is_normalized_to_snake_case() -> None:
    """'Max Minutes' and 'max-minutes' are the same field."""
    assert c("time_limit", " Max Minutes", 20).field == c("time_limit", "max-minutes", 20).field == "max_minutes"


def test_snapshot_schema_describes_every_field_and_forbids_extras() -> None:
    """The published JSON Schema tells the model what each field means and rejects typos."""
    schema = ConstraintSnapshot.model_json_schema()
    for model in [schema, *schema["$defs"].values()]:
        assert model["additionalProperties"] is False
        assert all("description" in prop for prop in model["properties"].values()), model["title"]


def test_subdomains_match_the_kitchen_schema() -> None:
    """The goal's subdomain names are the kitchen tables' subdomains."""
    assert set(get_args(Subdomain)) == {table.subdomain for table in TABLES.values()}


def test_session_constraints_round_trip_as_json() -> None:
    """The store persists as JSON and loads back equal."""
    session = recipe_goal()
    assert SessionConstraints.model_validate_json(session.model_dump_json()) == session


# --- compiled view ---


def test_compiled_view_merges_sources_and_sorts() -> None:
    """must_exclude joins allergies, dislikes and goal exclusions once each, tagged with why."""
    permanent = PermanentConstraints(
        allergies=["Peanuts"], dislikes=["cilantro", "mushrooms"], dietary_restrictions=["pescatarian"], equipment=["oven"]
    )
    snapshot = snap(
        c("ingredient_excluded", "avoid", ["peanut", "olives"]),
        c("ingredient_required", "protein", "Mushroom"),
        c("time_limit", "total", 45),
        c("time_limit", "prep", 15),
        c("servings", "people", 2),
        c("servings", "guests", 6),
        c("equipment", "appliance", "air-fryer"),
        c("flavor", "heat", "not spicy"),
        goal_update="quick dinner",
        goal_subdomain="recipes",
    )
    session = merge_constraints(SessionConstraints(permanent=permanent), snapshot, turn=1).constraints
    compiled = compile_constraints(session)
    assert compiled.must_exclude == [
        CompiledItem(value="cilantro", why=["dislike"]),
        CompiledItem(value="olives", why=["goal:avoid"]),
        CompiledItem(value="peanut", why=["allergy", "goal:avoid"]),
    ]
    assert compiled.must_include == [CompiledItem(value="mushroom", why=["goal:protein"])]
    assert (compiled.max_minutes, compiled.servings) == (15, 6)
    assert render_constraints(compiled) == "\n".join(
        [
            "## Constraints",
            "- Goal: quick dinner (recipes)",
            "- Never use: cilantro (dislike), olives (goal:avoid), peanut (allergy, goal:avoid)",
            "- Must include: mushroom (goal:protein)",
            "- Dietary: pescatarian",
            "- Equipment required: air-fryer",
            "- Equipment available: oven",
            "- Flavor: not spicy",
            "- Time limit: 15 min",
            "- Servings: 6",
        ]
    )


def test_empty_store_renders_a_placeholder() -> None:
    """A session with nothing known still renders a stable block."""
    assert render_constraints(compile_constraints(SessionConstraints())) == "## Constraints\n- None yet."


# --- properties ---

WORDS = ["cod", "salmon", "rice", "chicken", "tofu", "lemon", "garlic", "shrimp", "peanuts"]
TEXT_TYPES = ["ingredient_required", "ingredient_excluded", "equipment", "cuisine", "difficulty", "flavor"]
FIELDS = ["protein", "side", "style", "main"]
SUBDOMAINS = st.sampled_from(["recipes", "meal_plans", "shopping"]) | st.none()

text_constraints = st.builds(
    lambda kind, field, value: c(kind, field, value),
    st.sampled_from(TEXT_TYPES),
    st.sampled_from(FIELDS),
    st.sampled_from(WORDS) | st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
)
number_constraints = st.builds(
    lambda kind, field, value: c(kind, field, value),
    st.sampled_from(["time_limit", "servings"]),
    st.sampled_from(["max_minutes", "people"]),
    st.integers(min_value=1, max_value=120),
)
constraints = text_constraints | number_constraints
snapshots = st.builds(
    ConstraintSnapshot,
    new_constraints=st.lists(constraints, max_size=4),
    overrides=st.lists(constraints, max_size=2),
    reset_all=st.booleans(),
    reset_subdomain=SUBDOMAINS,
    goal_update=st.sampled_from(["fish", "dinner plan"]) | st.none(),
    goal_subdomain=SUBDOMAINS,
)
permanents = st.builds(
    PermanentConstraints,
    allergies=st.lists(st.sampled_from(["shrimp", "peanuts", "shellfish"]), max_size=2),
    dislikes=st.lists(st.sampled_from(WORDS), max_size=2),
)
messages = st.sampled_from([None, "never mind", "use cod", "don't forget that"])


@st.composite
def sessions(draw: st.DrawFn) -> tuple[SessionConstraints, int]:
    """A session reached by merging a few snapshots, and the next turn number."""
    session = SessionConstraints(permanent=draw(permanents))
    turn = 0
    for snapshot in draw(st.lists(snapshots, max_size=4)):
        turn += draw(st.integers(min_value=1, max_value=3))
        session = merge_constraints(session, snapshot, turn=turn, user_message=draw(messages)).constraints
    return session, turn + draw(st.integers(min_value=0, max_value=5))


@settings(max_examples=300)
@given(sessions(), snapshots, messages, st.booleans())
def test_merging_the_same_snapshot_twice_equals_once(
    state: tuple[SessionConstraints, int], snapshot: ConstraintSnapshot, message: str | None, referenced: bool
) -> None:
    """merge(merge(s, x), x) == merge(s, x), whatever resets fire."""
    session, turn = state
    once = merge_constraints(session, snapshot, turn=turn, user_message=message, entities_referenced=referenced)
    twice = merge_constraints(once.constraints, snapshot, turn=turn, user_message=message, entities_referenced=referenced)
    assert twice.constraints == once.constraints
    assert twice.rejected == once.rejected


@given(sessions(), snapshots, messages)
def test_merge_is_deterministic(state: tuple[SessionConstraints, int], snapshot: ConstraintSnapshot, message: str | None) -> None:
    """The same inputs give the same result and the same rendered view."""
    session, turn = state
    first = merge_constraints(session, snapshot, turn=turn, user_message=message)
    second = merge_constraints(session.model_copy(deep=True), snapshot.model_copy(deep=True), turn=turn, user_message=message)
    assert first == second
    assert render_constraints(compile_constraints(first.constraints)) == render_constraints(
        compile_constraints(second.constraints)
    )


@given(sessions(), st.lists(constraints, min_size=1, max_size=4, unique_by=lambda x: (x.type, x.field)))
def test_overrides_replace_their_type_and_field(state: tuple[SessionConstraints, int], overrides: list[Constraint]) -> None:
    """After an override, its (type, field) holds exactly the override (unless an allergen refused it)."""
    session, turn = state
    result = merge_constraints(session, ConstraintSnapshot(overrides=overrides), turn=turn, entities_referenced=True)
    refused = {(r.constraint.type, r.constraint.field) for r in result.rejected}
    goal = result.constraints.active_goal
    for override in overrides:
        key = (override.type, override.field)
        held = [x for x in (goal.constraints if goal else []) if (x.type, x.field) == key]
        if key not in refused:
            assert held == [override.model_copy(update={"source_turn": turn})]


@given(sessions(), snapshots, messages)
def test_merge_never_touches_allergies_or_requires_an_allergen(
    state: tuple[SessionConstraints, int], snapshot: ConstraintSnapshot, message: str | None
) -> None:
    """Permanent constraints survive every merge and no goal requirement names an allergen."""
    session, turn = state
    result = merge_constraints(session, snapshot, turn=turn, user_message=message)
    assert result.constraints.permanent == session.permanent
    compiled = compile_constraints(result.constraints)
    allergies = {item.value for item in compiled.must_exclude if "allergy" in item.why}
    assert allergies == set(session.permanent.allergies)
    assert compiled.blocked == []


@given(sessions())
def test_reset_clears_the_goal_but_never_allergies(state: tuple[SessionConstraints, int]) -> None:
    """reset_all ends any goal; the permanent constraints are untouched."""
    session, turn = state
    result = merge_constraints(session, ConstraintSnapshot(reset_all=True), turn=turn)
    assert result.constraints.active_goal is None
    assert result.constraints.permanent == session.permanent


@settings(max_examples=50)
@given(
    permanents,
    st.lists(constraints, min_size=2, max_size=6, unique_by=lambda x: (x.type, x.field)),
    st.randoms(use_true_random=False),
)
def test_order_of_unrelated_constraints_does_not_change_the_compiled_view(
    permanent: PermanentConstraints, unrelated: list[Constraint], rng: random.Random
) -> None:
    """New constraints with distinct (type, field) compile the same in any order."""
    shuffled = list(unrelated)
    rng.shuffle(shuffled)
    views = [
        compile_constraints(merge_constraints(SessionConstraints(permanent=permanent), snap(*order), turn=1).constraints)
        for order in (unrelated, shuffled)
    ]
    assert views[0] == views[1]
    assert render_constraints(views[0]) == render_constraints(views[1])


@pytest.mark.parametrize(
    ("kind", "value", "compiled"),
    [
        pytest.param("days", 3, {"days": ["3 days"]}, id="a-count-of-days"),
        pytest.param("days", ["Monday", "2026-01-14"], {"days": ["2026-01-14", "monday"]}, id="named-days"),
        pytest.param("meal_type", "Dinner", {"meal_types": ["dinner"]}, id="dinners-only"),
    ],
)
def test_days_and_meal_types_are_constraints_of_their_own(kind: str, value: Any, compiled: dict[str, Any]) -> None:
    merged = merge_constraints(SessionConstraints(), snap(c(kind, "plan", value)), turn=1).constraints
    view = compile_constraints(merged).model_dump()
    assert {key: view[key] for key in compiled} == compiled


@pytest.mark.parametrize(
    ("kind", "value", "message"),
    [
        pytest.param("meal_type", "brunch", "meal_type takes breakfast, lunch, dinner, snack or other", id="unknown-meal"),
        pytest.param("days", "someday", "days takes a number of days", id="unknown-day"),
        pytest.param("days", 2.5, "days needs a whole number", id="half-a-day"),
        pytest.param("days", "2026-02-30", "'2026-02-30' is not a date", id="no-such-date"),
        pytest.param("days", "2026-11-27 to 2026-13-01", "a range 'YYYY-MM-DD to YYYY-MM-DD'", id="a-range-to-no-date"),
        pytest.param("days", {"from": "2026-11-27"}, "a range of days is", id="a-range-without-its-end"),
        pytest.param("days", {"from": "2026-11-27", "to": "2026-12-03", "step": 2}, "a range of days is", id="a-range-with-more"),
    ],
)
def test_a_bad_day_or_meal_is_refused_naming_what_is_valid(kind: str, value: Any, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        c(kind, "plan", value)


DAY = st.dates(min_value=date(2024, 1, 1), max_value=date(2030, 12, 31))


@given(DAY, DAY, st.sampled_from(["dict", "start-end", " to ", "..", " - ", " through "]))
def test_a_range_of_days_is_kept_as_a_range_in_any_form_and_order(first: date, last: date, form: str) -> None:
    """{"from", "to"}, 'A to B', 'A..B' (either way round) are one range, shown as 'A to B'; a list is separate days."""
    value: Any = ({"from": first.isoformat(), "to": last.isoformat()} if form == "dict" else
                  {"start": first.isoformat(), "end": last.isoformat()} if form == "start-end" else f"{first}{form}{last}")
    low, high = sorted((first, last))
    expected = low.isoformat() if low == high else f"{low} to {high}"
    assert c("days", "when", value).value == expected
    compiled = compile_constraints(merge_constraints(SessionConstraints(), snap(c("days", "when", value)), turn=1).constraints)
    assert compiled.days == [expected] and f"- Days: {expected}" in render_constraints(compiled)
    separate = c("days", "when", [first.isoformat(), last.isoformat()]).value
    assert separate == (low.isoformat() if low == high else [low.isoformat(), high.isoformat()]), "a list holds separate days"


def test_the_days_guide_says_a_list_is_separate_days_and_names_the_range_form() -> None:
    guide = Constraint.model_json_schema()["properties"]["type"]["description"]
    assert "dates (each a day)" in guide and "'DATE to DATE'" in guide


def test_a_later_count_of_days_replaces_the_earlier_one() -> None:
    first = merge_constraints(SessionConstraints(), snap(c("days", "plan", 3)), turn=1).constraints
    second = merge_constraints(first, snap(c("days", "plan", ["monday", "wednesday"])), turn=2).constraints
    assert compile_constraints(second).days == ["monday", "wednesday"]


def test_an_allergy_covers_its_category_when_a_goal_requires_a_member() -> None:
    """'Shellfish' is refused for a shrimp requirement through the taxonomy, not only by its own words."""
    session = SessionConstraints(permanent=PermanentConstraints(allergies=["shellfish"]))
    result = merge_constraints(session, snap(c("ingredient_required", "protein", "tiger prawns")), turn=1)
    assert [(r.allergen, r.constraint.value) for r in result.rejected] == [("shellfish", "tiger prawns")]
