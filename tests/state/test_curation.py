"""Entity curation: visibility only, a precise recency window, and a bounded decision log."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from alfred_mcp.errors import UnknownRefError
from alfred_mcp.state.curation import (
    DECISION_LOG_LIMIT,
    ActiveSet,
    CurationState,
    DecisionLogEntry,
    EntityCuration,
    RetainedRef,
    Retention,
    RetentionDecision,
    active_entities,
    apply_curation,
    check_curation_refs,
)
from alfred_mcp.state.registry import RefEntry


@dataclass(frozen=True)
class Entry:
    """A registry entry as plain data: curation only reads these fields."""

    ref: str
    turn_last_ref: int
    turn_created: int = 1
    action: str = "read"
    deleted_turn: int | None = None


def retain(ref: str, reason: str) -> RetentionDecision:
    return RetentionDecision(ref=ref, reason=reason)


# --- the recency window ---


@pytest.mark.parametrize(
    ("entry", "state", "window", "visible"),
    [
        pytest.param(Entry("recipe_1", 5), CurationState(), 2, True, id="touched-this-turn"),
        pytest.param(Entry("recipe_1", 4), CurationState(), 2, True, id="touched-1-turn-ago"),
        pytest.param(Entry("recipe_1", 3), CurationState(), 2, True, id="touched-2-turns-ago"),
        pytest.param(Entry("recipe_1", 2), CurationState(), 2, False, id="touched-3-turns-ago"),
        pytest.param(Entry("recipe_1", 4), CurationState(), 0, False, id="window-0-previous-turn"),
        pytest.param(Entry("recipe_1", 5), CurationState(), 0, True, id="window-0-this-turn"),
        pytest.param(Entry("recipe_1", 2), CurationState(), 3, True, id="window-3"),
        pytest.param(Entry("recipe_1", 5, deleted_turn=5), CurationState(), 2, False, id="deleted"),
        pytest.param(Entry("recipe_1", 5, action="deleted"), CurationState(), 2, False, id="deleted-action"),
        pytest.param(Entry("ing_1", 5, action="linked"), CurationState(), 2, False, id="linked"),
        pytest.param(Entry("recipe_1", 4), CurationState(dropped={"recipe_1": 4}), 2, False, id="dropped-same-turn"),
        pytest.param(Entry("recipe_1", 5), CurationState(dropped={"recipe_1": 4}), 2, True, id="touched-after-drop"),
        pytest.param(Entry("recipe_1", 4), CurationState(cleared_at_turn=4), 2, False, id="cleared-touched-at-clear"),
        pytest.param(Entry("recipe_1", 5), CurationState(cleared_at_turn=4), 2, True, id="touched-after-clear"),
        pytest.param(
            Entry("gen_recipe_3", 4, turn_created=4), CurationState(cleared_at_turn=4), 2, True, id="created-in-clear-turn"
        ),
    ],
)
def test_recent_window(entry: Entry, state: CurationState, window: int, visible: bool) -> None:
    """Recent means `turn - turn_last_ref <= window`, minus deleted, linked, dropped and cleared refs."""
    active = active_entities(state, [entry], turn=5, window=window)
    assert active.recent == ([entry.ref] if visible else [])


def test_default_window_is_this_turn_and_the_two_before() -> None:
    """With no window given, turns 3, 4 and 5 count as recent at turn 5."""
    entries = [Entry(f"recipe_{n}", n) for n in range(1, 6)]
    assert active_entities(CurationState(), entries, turn=5).recent == ["recipe_3", "recipe_4", "recipe_5"]


def test_recent_refs_are_in_natural_order() -> None:
    """recipe_2 comes before recipe_10, saved rows before drafts, types apart."""
    entries = [Entry(ref, 5) for ref in ["recipe_10", "gen_recipe_1", "inv_3", "recipe_2"]]
    assert active_entities(CurationState(), entries, turn=5).recent == ["inv_3", "recipe_2", "recipe_10", "gen_recipe_1"]


# --- curation decisions ---


def test_retained_ref_stays_in_view_beyond_the_window() -> None:
    """An old entity Understand retains is listed with its reason; a recent one is not listed twice."""
    state = apply_curation(
        CurationState(),
        EntityCuration(retain_active=[retain("gen_meal_1", "weekly plan"), retain("inv_1", "still cooking")]),
        turn=3,
        known_refs={"gen_meal_1", "inv_1"},
    )
    entries = [Entry("gen_meal_1", 1), Entry("inv_1", 6)]
    assert active_entities(state, entries, turn=6) == ActiveSet(
        recent=["inv_1"], retained=[RetainedRef("gen_meal_1", "weekly plan")]
    )


def test_demote_clears_the_retain_reason() -> None:
    """A demoted ref falls out of the retained list but stays known."""
    known = {"gen_meal_1"}
    state = apply_curation(CurationState(), EntityCuration(retain_active=[retain("gen_meal_1", "plan")]), turn=2, known_refs=known)
    state = apply_curation(state, EntityCuration(demote=["gen_meal_1"]), turn=5, known_refs=known)
    assert state.retained == {}
    assert active_entities(state, [Entry("gen_meal_1", 1)], turn=5) == ActiveSet(recent=[], retained=[])


def test_dropped_ref_is_hidden_until_touched_again() -> None:
    """Touch wins: a later reference brings a dropped ref back."""
    state = apply_curation(CurationState(), EntityCuration(drop=["recipe_1"]), turn=3, known_refs={"recipe_1"})
    assert active_entities(state, [Entry("recipe_1", 3)], turn=3).recent == []
    assert active_entities(state, [Entry("recipe_1", 4)], turn=4).recent == ["recipe_1"]


def test_drop_also_ends_a_retention() -> None:
    """Dropping a retained ref removes it from the retained list too."""
    known = {"gen_meal_1"}
    state = apply_curation(CurationState(), EntityCuration(retain_active=[retain("gen_meal_1", "plan")]), turn=1, known_refs=known)
    state = apply_curation(state, EntityCuration(drop=["gen_meal_1"]), turn=2, known_refs=known)
    assert (state.retained, state.dropped) == ({}, {"gen_meal_1": 2})


def test_stricter_decision_wins_within_one_curation() -> None:
    """A ref both retained and dropped in the same output ends up dropped."""
    curation = EntityCuration(retain_active=[retain("recipe_1", "keep")], drop=["recipe_1"])
    state = apply_curation(CurationState(), curation, turn=2, known_refs={"recipe_1"})
    assert (state.retained, state.dropped) == ({}, {"recipe_1": 2})


def test_retaining_a_dropped_ref_brings_it_back() -> None:
    """Retain undoes an earlier drop."""
    state = CurationState(dropped={"recipe_1": 2})
    state = apply_curation(state, EntityCuration(retain_active=[retain("recipe_1", "back on")]), turn=4, known_refs={"recipe_1"})
    assert state.dropped == {}
    assert state.retained == {"recipe_1": Retention(reason="back on", turn=4)}


def test_forget_those_clears_the_working_set_but_not_the_registry() -> None:
    """Seed scenario 2: clear_all hides the fish drafts; their registry entries are untouched; chicken shows."""
    fish = [Entry("gen_recipe_1", 1, action="generated"), Entry("gen_recipe_2", 1, action="generated")]
    before = list(fish)
    curation = EntityCuration(clear_all=True, curation_summary="User switched from fish to chicken.")
    state = apply_curation(CurationState(), curation, turn=2, known_refs={e.ref for e in fish})
    chicken = Entry("gen_recipe_3", 2, turn_created=2, action="generated")
    assert active_entities(state, [*fish, chicken], turn=2) == ActiveSet(recent=["gen_recipe_3"], retained=[])
    assert fish == before
    assert state.decision_log == [
        DecisionLogEntry(turn=2, action="clear_all", reason="User switched from fish to chicken.")
    ]


def test_clear_all_keeps_what_the_same_output_retains() -> None:
    """'Start fresh but keep the meal plan': retain applies after the clear."""
    curation = EntityCuration(clear_all=True, retain_active=[retain("gen_meal_1", "the plan")])
    state = CurationState(retained={"recipe_1": Retention(reason="old", turn=1)})
    state = apply_curation(state, curation, turn=4, known_refs={"gen_meal_1", "recipe_1"})
    entries = [Entry("gen_meal_1", 3), Entry("recipe_1", 4)]
    assert active_entities(state, entries, turn=4) == ActiveSet(recent=[], retained=[RetainedRef("gen_meal_1", "the plan")])


def test_deleted_ref_is_never_retained() -> None:
    """A retained ref whose row was deleted leaves the view."""
    state = CurationState(retained={"recipe_1": Retention(reason="plan", turn=1)})
    assert active_entities(state, [Entry("recipe_1", 1, deleted_turn=2)], turn=5) == ActiveSet(recent=[], retained=[])


def test_unknown_refs_are_ignored_and_logged() -> None:
    """Curation of refs the session does not know changes nothing and never raises."""
    curation = EntityCuration(retain_active=[retain("recipe_9", "?")], demote=["inv_7"], drop=["not a ref"])
    state = apply_curation(CurationState(), curation, turn=3, known_refs={"recipe_1"})
    assert (state.retained, state.dropped) == ({}, {})
    assert [(e.action, e.ref) for e in state.decision_log] == [
        ("ignored", "recipe_9"),
        ("ignored", "inv_7"),
        ("ignored", "not a ref"),
    ]


@pytest.mark.parametrize(
    ("curation", "field"),
    [
        pytest.param(EntityCuration(retain_active=[retain("recipe_1", "plan"), retain("recipe_9", "?")]),
                     "curation.retain_active[1].ref", id="retain"),
        pytest.param(EntityCuration(demote=["inv_7"]), "curation.demote[0]", id="demote"),
        pytest.param(EntityCuration(drop=["recipe_1", "not a ref"]), "curation.drop[1]", id="drop"),
    ],
)
def test_checking_a_curation_refuses_its_first_unknown_ref_naming_the_field(curation: EntityCuration, field: str) -> None:
    with pytest.raises(UnknownRefError) as raised:
        check_curation_refs(curation, {"recipe_1"})
    assert raised.value.fields["field"] == field and raised.value.message.startswith(f"{field}: ")


def test_decisions_are_logged_in_order_with_reasons() -> None:
    """Each decision is one entry; drop and demote carry the curation summary."""
    curation = EntityCuration(
        retain_active=[retain("gen_meal_1", "weekly plan")],
        demote=["recipe_2"],
        drop=["recipe_3", "recipe_3"],
        curation_summary="Pantry detour; plan stays.",
    )
    state = apply_curation(CurationState(), curation, turn=6, known_refs={"gen_meal_1", "recipe_2", "recipe_3"})
    assert state.decision_log == [
        DecisionLogEntry(turn=6, action="retain", ref="gen_meal_1", reason="weekly plan"),
        DecisionLogEntry(turn=6, action="demote", ref="recipe_2", reason="Pantry detour; plan stays."),
        DecisionLogEntry(turn=6, action="drop", ref="recipe_3", reason="Pantry detour; plan stays."),
    ]


def test_decision_log_keeps_the_last_20() -> None:
    """Older decisions fall off the front of the log."""
    state = CurationState()
    refs = [f"recipe_{n}" for n in range(1, 26)]
    for turn, ref in enumerate(refs, start=1):
        state = apply_curation(state, EntityCuration(drop=[ref]), turn=turn, known_refs=refs)
    assert DECISION_LOG_LIMIT == 20
    assert [e.ref for e in state.decision_log] == refs[-20:]


def test_curation_is_pure() -> None:
    """apply_curation returns a new state and leaves its input alone."""
    state = CurationState(retained={"recipe_1": Retention(reason="keep", turn=1)})
    snapshot = state.model_copy(deep=True)
    apply_curation(state, EntityCuration(clear_all=True, drop=["recipe_1"]), turn=2, known_refs={"recipe_1"})
    assert state == snapshot


def test_curation_state_round_trips() -> None:
    """to_dict/from_dict persist every field as JSON-friendly data."""
    curation = EntityCuration(retain_active=[retain("gen_meal_1", "plan")], drop=["recipe_1"], clear_all=True)
    state = apply_curation(CurationState(), curation, turn=3, known_refs={"gen_meal_1", "recipe_1"})
    assert CurationState.from_dict(state.to_dict()) == state


def test_real_registry_entries_fit() -> None:
    """The registry's RefEntry satisfies what curation reads."""
    entries = [
        RefEntry("recipe_1", "recipe", "row-a", "Thai Curry", "read", turn_created=1, turn_last_ref=4),
        RefEntry("recipe_2", "recipe", "row-b", "Pasta", "deleted", turn_created=1, turn_last_ref=4, deleted_turn=4),
    ]
    assert active_entities(CurationState(), entries, turn=5).recent == ["recipe_1"]


def test_curation_schema_forbids_extras_and_describes_fields() -> None:
    """The published schema names every field for the model and rejects typos."""
    schema = EntityCuration.model_json_schema()
    for model in [schema, *schema["$defs"].values()]:
        assert model["additionalProperties"] is False
        assert all("description" in prop for prop in model["properties"].values()), model["title"]
