"""Turn narratives: built from the ledger deterministically, bounded, with curation and phase."""

from __future__ import annotations

from typing import Any

import pytest

from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.constraints import Constraint, ConstraintSnapshot
from alfred_mcp.state.curation import EntityCuration, RetentionDecision
from alfred_mcp.state.folding import FoldedLines, fold_line, render_folded, replace_with_summary
from alfred_mcp.state.narrative import (
    MAX_STEPS,
    ErrorNote,
    PlannedStep,
    StepExecutionSummary,
    ToolCount,
    TurnPlan,
    call_outcome,
    compact_refs,
    infer_phase,
    narrative_line,
    summarize_turn,
)


def call(tool: str, table: str | None = None, action: str | None = None, refs: tuple[str, ...] = (), **extra: Any) -> CallRecord:
    return CallRecord(turn=extra.pop("turn", 3), tool=tool, table=table, action=action, refs=list(refs),
                      count=extra.pop("count", len(refs)), **extra)


READ_NINE = call("db_read", "recipes", "read", tuple(f"recipe_{n}" for n in range(1, 10)))


def test_steps_come_from_the_ledger_with_outcomes_and_refs() -> None:
    """Each data call is a step: read 9 recipes, then create a meal plan entry."""
    summary = summarize_turn(3, [READ_NINE, call("db_create", "meal_plans", "created", ("meal_4",))], user_message="plan it")
    assert summary.steps == [
        StepExecutionSummary(step_num=1, step_type="read", subdomain="recipes", description="db_read recipes",
                             outcome="Read 9 recipes → recipe_1..recipe_9", refs=[f"recipe_{n}" for n in range(1, 10)]),
        StepExecutionSummary(step_num=2, step_type="write", subdomain="meal_plans", description="db_create meal_plans",
                             outcome="Created 1 meal plan entry → meal_4", refs=["meal_4"]),
    ]
    assert summary.created == ["meal_4"]
    assert summary.conversation_phase == "executing"
    assert summary.tools_called == [ToolCount(tool="db_read", table="recipes", count=1),
                                    ToolCount(tool="db_create", table="meal_plans", count=1)]


def test_bookkeeping_calls_are_not_steps() -> None:
    """turn_begin, understanding_submit and describe_table happen, but they are not steps of the turn."""
    calls = [call("understanding_submit", refs=("recipe_2",)), call("describe_table"), READ_NINE]
    summary = summarize_turn(3, calls)
    assert [step.description for step in summary.steps] == ["db_read recipes"]
    assert [t.tool for t in summary.tools_called] == ["understanding_submit", "describe_table", "db_read"]


def test_a_failed_call_is_a_failed_step_and_an_error() -> None:
    failed = call("db_create", "recipes", outcome="error", error_code="invalid_payload", note="data[0].name is required")
    summary = summarize_turn(3, [failed])
    assert summary.steps[0].ok is False
    assert summary.steps[0].outcome == "db_create on recipes failed (invalid_payload): data[0].name is required"
    assert summary.errors == [ErrorNote(tool="db_create", code="invalid_payload", message="data[0].name is required")]


def test_calls_of_other_turns_are_ignored() -> None:
    summary = summarize_turn(3, [call("db_read", "recipes", "read", ("recipe_1",), turn=2)])
    assert summary.steps == [] and summary.is_empty


def test_a_plan_gives_the_steps_and_the_decision() -> None:
    """When the loop recorded Think's plan, its steps (with Act's outcomes) are the narrative."""
    plan = TurnPlan(decision="plan_direct", goal="Filter out cod", steps=[
        PlannedStep(description="Analyze options without cod", step_type="analyze", subdomain="recipes",
                    outcome="6 viable", refs=["recipe_3"], note="recipe_3 fits"),
    ])
    summary = summarize_turn(3, [READ_NINE], plan=plan)
    assert summary.think_decision == "plan_direct" and summary.goal == "Filter out cod"
    assert summary.steps == [StepExecutionSummary(step_num=1, step_type="analyze", subdomain="recipes",
                                                  description="Analyze options without cod", outcome="6 viable",
                                                  refs=["recipe_3"], note="recipe_3 fits")]
    assert summary.conversation_phase == "narrowing"


@pytest.mark.parametrize(
    ("decision", "kinds", "phase"),
    [
        pytest.param("propose", ["write"], "exploring", id="propose-explores"),
        pytest.param("clarify", [], "exploring", id="clarify-explores"),
        pytest.param(None, ["read", "write"], "executing", id="write-executes"),
        pytest.param(None, ["read", "analyze"], "narrowing", id="analyze-narrows"),
        pytest.param("plan_direct", ["generate"], "narrowing", id="generate-narrows"),
        pytest.param(None, ["read", "read"], "exploring", id="reads-explore"),
        pytest.param(None, [], "exploring", id="nothing-explores"),
    ],
)
def test_phase_follows_seed_003(decision: Any, kinds: list[Any], phase: str) -> None:
    assert infer_phase(decision, kinds) == phase


def test_curation_and_what_the_user_expressed_come_from_understand() -> None:
    curation = EntityCuration(retain_active=[RetentionDecision(ref="gen_meal_1", reason="weekly plan")],
                              demote=["recipe_5", "recipe_6"], curation_summary="User excluded french toast and wings")
    snapshot = ConstraintSnapshot(new_constraints=[Constraint(type="ingredient_excluded", field="protein", value="cod")])
    summary = summarize_turn(3, [], user_message="no cod this week", curation=curation, snapshot=snapshot)
    assert summary.retained_refs == ["gen_meal_1"] and summary.demoted_refs == ["recipe_5", "recipe_6"]
    assert summary.curation_summary == "User excluded french toast and wings"
    assert summary.user_expressed == "no cod"  # an exclusion, never a wish ("protein=cod")
    assert summarize_turn(3, [], user_message="hello there").user_expressed == "hello there"


def test_steps_are_capped() -> None:
    calls = [call("db_read", "recipes", "read", (f"recipe_{n}",)) for n in range(1, MAX_STEPS + 4)]
    summary = summarize_turn(3, calls)
    assert len(summary.steps) == MAX_STEPS and summary.more_steps == 3


def test_summary_is_deterministic() -> None:
    calls = [READ_NINE, call("db_delete", "recipes", "deleted", ("recipe_1", "recipe_2"))]
    assert summarize_turn(3, calls, user_message="x") == summarize_turn(3, calls, user_message="x")


@pytest.mark.parametrize(
    ("refs", "text"),
    [
        pytest.param(["recipe_1", "recipe_2", "recipe_3"], "recipe_1..recipe_3", id="range"),
        pytest.param(["recipe_1", "recipe_2"], "recipe_1, recipe_2", id="pair"),
        pytest.param(["inv_4", "recipe_2", "inv_5", "inv_9"], "inv_4, inv_5, inv_9, recipe_2", id="types-in-first-seen-order"),
        pytest.param(["gen_recipe_1", "gen_recipe_2", "gen_recipe_3"], "gen_recipe_1..gen_recipe_3", id="drafts"),
        pytest.param([f"inv_{n}" for n in range(1, 30, 2)], "inv_1, inv_3, inv_5, inv_7, inv_9, inv_11 and 9 more", id="capped"),
    ],
)
def test_compact_refs(refs: list[str], text: str) -> None:
    assert compact_refs(refs) == text


@pytest.mark.parametrize(
    ("record", "text"),
    [
        pytest.param(call("db_delete", "recipes", "deleted", ("recipe_1",)), "Deleted 1 recipe → recipe_1", id="delete"),
        pytest.param(call("db_read", "inventory", "read", count=0), "Read 0 pantry items", id="empty-read"),
        pytest.param(call("recipes_search", "recipes", "read", ("recipe_2",), note="category fish"),
                     "Read 1 recipe → recipe_2 (category fish)", id="search-note"),
        pytest.param(call("draft_create", "recipes", "generated", ("gen_recipe_1",)), "Generated 1 recipe → gen_recipe_1", id="draft"),
        pytest.param(call("draft_save", None, "saved", ("recipe_4", "recipe_5")), "Saved 2 recipes → recipe_4, recipe_5", id="save"),
    ],
)
def test_call_outcome_lines(record: CallRecord, text: str) -> None:
    assert call_outcome(record) == text


def test_narrative_line_is_one_short_line() -> None:
    summary = summarize_turn(3, [READ_NINE] * 5, user_message="show me everything " * 20)
    line = narrative_line(summary)
    assert "\n" not in line and len(line) < 400
    assert line.startswith('user: "show me everything') and line.endswith("exploring")


def test_folded_lines_stay_within_the_cap_and_count_what_they_drop() -> None:
    folded = FoldedLines()
    for turn in range(1, 60):
        folded = fold_line(folded, f"user asked about recipe number {turn}; read 3 recipes", turn=turn, cap=400)
    text = render_folded(folded)
    assert len(text) <= 400
    assert folded.omitted > 0 and text.startswith(f"({folded.omitted} earlier turns not shown)")
    assert folded.lines[-1].startswith("T59: ") and folded.first_turn == 1 and folded.last_turn == 59


def test_a_model_summary_replaces_the_folded_lines() -> None:
    folded = FoldedLines()
    for turn in range(1, 6):
        folded = fold_line(folded, f"turn {turn} things", turn=turn, cap=400)
    replaced = replace_with_summary(folded, "User is planning fish dinners.", through_turn=4, cap=400)
    assert replaced.summary == "User is planning fish dinners." and replaced.lines == ["T5: turn 5 things"]
    assert render_folded(replaced) == "User is planning fish dinners.\nT5: turn 5 things"


@pytest.mark.parametrize(
    ("status", "glyph"),
    [pytest.param("completed", "✓", id="done"), pytest.param("running", "→", id="running"),
     pytest.param("pending", "·", id="pending"), pytest.param("blocked", "✗", id="blocked")],
)
def test_a_step_shows_the_glyph_of_its_status_never_a_check_for_what_has_not_happened(status: str, glyph: str) -> None:
    plan = TurnPlan(decision="plan_direct", goal="Save", steps=[
        PlannedStep(description="Save the drafts", step_type="write", outcome=status, status=status)])
    (step,) = summarize_turn(3, [], plan=plan).steps
    assert step.glyph == glyph and step.ok is (status != "blocked")


@pytest.mark.parametrize(("kind", "read"), [("ingredient_excluded", "no fish, shellfish"), ("allergy", "allergic to fish, shellfish"),
                                            ("ingredient_required", "with fish, shellfish"), ("cuisine", "diet=fish, shellfish")])
def test_what_the_user_expressed_never_reads_an_exclusion_as_a_wish(kind: str, read: str) -> None:
    from alfred_mcp.state.narrative import user_expressed

    snapshot = ConstraintSnapshot(new_constraints=[Constraint(type=kind, field="diet", value=["fish", "shellfish"])])
    assert user_expressed("no fish please", snapshot, None) == read
