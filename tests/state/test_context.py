"""Context builders: the sections each role reads, the working set, budgets and templates."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from alfred_mcp.errors import ConfigError
from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.constraints import (
    Constraint,
    ConstraintSnapshot,
    PermanentConstraints,
    SessionConstraints,
    compile_constraints,
    merge_constraints,
)
from alfred_mcp.state.context import (
    DEFAULT_CONFIG,
    ROLES,
    SECTION_NAMES,
    ContextConfig,
    ContextInputs,
    Section,
    StepView,
    build_context,
    fit_budget,
    render_prompt,
)
from alfred_mcp.state.conversation import ConversationHistory, record_reply, record_user_message
from alfred_mcp.state.curation import CurationState, EntityCuration, RetentionDecision, apply_curation
from alfred_mcp.state.entity_resolver import Candidate, resolve
from alfred_mcp.state.narrative import summarize_turn
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.state.working_set import DraftView, build_working_set

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
ID = "a508000d-9b55-40f0-8d1c-2f4e8c0b1a77"


def entry(ref: str, label: str, *, turn: int, created: int | None = None, action: str = "read", deleted: int | None = None) -> RefEntry:
    entity_type = ref.removeprefix("gen_").rsplit("_", 1)[0]
    row_id = None if ref.startswith("gen_") else f"row-{ref}"
    return RefEntry(ref, entity_type, row_id, label, action, created or turn, turn, deleted)  # type: ignore[arg-type]


ENTRIES = [
    entry("recipe_1", "Honey Garlic Cod", turn=1),
    entry("recipe_2", "Thai Curry", turn=4),
    entry("recipe_3", "Paneer Tikka", turn=5),
    entry("recipe_4", "French Toast", turn=5),
    entry("inv_1", "eggs", turn=5),
    entry("gen_recipe_1", "Lemon Cod", turn=5, action="generated"),
    entry("recipe_5", "Gone Soup", turn=5, action="deleted", deleted=5),
]
DRAFTS = [DraftView("gen_recipe_1", "recipe", "Lemon Cod")]


def curated(*decisions: EntityCuration, turn: int = 5) -> CurationState:
    state = CurationState()
    for decision in decisions:
        state = apply_curation(state, decision, turn=turn, known_refs={e.ref for e in ENTRIES})
    return state


def inputs(**fields: object) -> ContextInputs:
    conversation = record_reply(record_user_message(ConversationHistory(), 4, "show me curries"), 4, "Here is Thai Curry.")
    conversation = record_user_message(conversation, 5, "lets not do the french toast")
    constraints = merge_constraints(
        SessionConstraints(permanent=PermanentConstraints(allergies=["peanuts"])),
        ConstraintSnapshot(new_constraints=[Constraint(type="ingredient_required", field="protein", value="cod")]), turn=5,
    ).constraints
    calls = [CallRecord(turn=4, tool="db_read", table="recipes", action="read", refs=["recipe_2"], count=1)]
    values: dict[str, object] = {
        "turn": 5, "user_message": "lets not do the french toast", "entries": ENTRIES, "curation": CurationState(),
        "constraints": compile_constraints(constraints), "drafts": DRAFTS,
        "narratives": [summarize_turn(4, calls, user_message="show me curries")], "conversation": conversation,
        "profile": {"allergies": ["peanuts"], "cooking_skill_level": "beginner", "household_adults": 2},
        "dashboard": {"counts": {"recipes": 9, "inventory": 59}, "next_meals": []}, "today": "2026-01-13",
    }
    values.update(fields)
    return ContextInputs(**values)  # type: ignore[arg-type]


def test_working_set_groups_entities_once_each() -> None:
    """Recent, retained and pending are disjoint; gen refs appear only as pending drafts; deleted refs never."""
    state = curated(EntityCuration(retain_active=[RetentionDecision(ref="recipe_1", reason="the user's favourite")]))
    working = build_working_set(ENTRIES, state, DRAFTS, turn=5)
    assert [line.ref for line in working.recent] == ["inv_1", "recipe_2", "recipe_3", "recipe_4"]
    assert [(line.ref, line.reason) for line in working.retained] == [("recipe_1", "the user's favourite")]
    assert working.pending == DRAFTS and working.excluded == [] and working.known == 7


def test_demoted_and_dropped_refs_are_excluded_but_stay_known() -> None:
    state = curated(EntityCuration(demote=["recipe_4"], drop=["recipe_3"], curation_summary="no french toast"))
    working = build_working_set(ENTRIES, state, DRAFTS, turn=5)
    assert [line.ref for line in working.recent] == ["inv_1", "recipe_2"]
    assert [(line.ref, line.reason) for line in working.excluded] == [
        ("recipe_3", "dropped in turn 5: no french toast"), ("recipe_4", "demoted in turn 5: no french toast"),
    ]
    later = build_working_set(ENTRIES, state, DRAFTS, turn=8)
    assert later.excluded == [] and {"recipe_3", "recipe_4"} <= {line.ref for line in later.others}


def test_clear_all_empties_the_working_set_and_hides_old_drafts() -> None:
    """Seed 000 scenario 2: 'forget those and make chicken instead' starts a fresh working set."""
    state = curated(EntityCuration(clear_all=True, curation_summary="user changed course"), turn=6)
    working = build_working_set(ENTRIES, state, DRAFTS, turn=6)
    assert working.recent == [] and working.pending == [] and working.cleared_at == 6
    assert working.known == len(ENTRIES)
    fresh = [*ENTRIES, entry("recipe_9", "Chicken Tikka", turn=6)]
    assert [line.ref for line in build_working_set(fresh, state, DRAFTS, turn=6).recent] == ["recipe_9"]


def test_think_context_has_the_seed_sections_in_order() -> None:
    context = build_context("think", inputs())
    assert [s.name for s in context.sections] == ["profile", "dashboard", "constraints", "entities", "what_happened",
                                                  "conversation", "task"]
    text = context.text()
    assert "- recipe_2: Thai Curry [read]" in text and "gen_recipe_1: Lemon Cod (recipe) — generated, not saved" in text
    assert "### Turn 4 (last turn)" in text and "Read 1 recipe → recipe_2" in text
    assert "Must include: cod (goal:protein)" in text and "Never use: peanuts (allergy)" in text
    assert '**User says:** "lets not do the french toast"' in text
    assert "recipe_5" not in text and context.truncated == ()


def test_only_understand_sees_retention_reasons_and_the_decision_log() -> None:
    state = curated(EntityCuration(retain_active=[RetentionDecision(ref="recipe_1", reason="weekly plan")]))
    understand = build_context("understand", inputs(curation=state)).text()
    think = build_context("think", inputs(curation=state)).text()
    assert "- recipe_1: Honey Garlic Cod [read] — *weekly plan*" in understand
    assert "- Turn 5: retain recipe_1 — weekly plan" in understand
    assert "- recipe_1: Honey Garlic Cod [read]\n" in think + "\n" and "weekly plan" not in think


def test_understand_sees_entities_out_of_view() -> None:
    text = build_context("understand", inputs(turn=9)).text()
    assert "### Earlier in this session (out of view)" in text and "- recipe_3: Paneer Tikka [read] (turn 5)" in text


@pytest.mark.parametrize(
    ("kind", "has_profile", "first_entities"),
    [
        pytest.param("read", False, "### Recent", id="read"),
        pytest.param("analyze", True, "### Recent", id="analyze"),
        pytest.param("generate", True, "### Recent", id="generate"),
        pytest.param("write", False, "### Pending drafts", id="write-shows-drafts-first"),
    ],
)
def test_act_context_depends_on_the_step_type(kind: str, has_profile: bool, first_entities: str) -> None:
    step = StepView(kind, "Save the recipes", "recipes", 2, 3)  # type: ignore[arg-type]
    context = build_context("act", inputs(current=summarize_turn(5, [])), step=step)
    assert context.section("step").startswith(f"## Current step\n**Step 2 of 3** | Type: {kind} | Subdomain: recipes")
    assert ("## User profile" in context.text()) is has_profile
    assert context.section("entities").split("\n")[1].startswith(first_entities)


def test_act_needs_a_step_and_roles_are_checked() -> None:
    with pytest.raises(ConfigError):
        build_context("act", inputs())
    with pytest.raises(ConfigError):
        build_context("summarize", inputs())


def test_reply_reports_what_this_turn_did() -> None:
    calls = [
        CallRecord(turn=5, tool="db_create", table="meal_plans", action="created", refs=["meal_1", "meal_2"], count=2),
        CallRecord(turn=5, tool="db_create", table="recipes", outcome="error", error_code="invalid_payload", note="name missing"),
    ]
    context = build_context("reply", inputs(current=summarize_turn(5, calls, user_message="save them")))
    results = context.section("results")
    assert "**Created:** meal_1, meal_2" in results
    assert "**Failed:** db_create (invalid_payload): name missing" in results
    assert "**Generated, not saved:** gen_recipe_1 (Lemon Cod)" in results
    flow = context.section("flow")
    assert '**Last exchange:** User: "show me curries" / You: "Here is Thai Curry."' in flow
    assert "**Phase:** executing" in flow and "greeting" not in flow  # the Reply instructions say it once


def test_many_refs_of_a_type_collapse_into_ranges() -> None:
    pantry = [entry(f"inv_{n}", f"item {n}", turn=5) for n in range(1, 60)]
    text = build_context("think", inputs(entries=pantry, drafts=[]), config=ContextConfig(labels_per_type=5)).text()
    assert "- inv_5: item 5 [read]\n- …and inv_6..inv_59 (54 more inv refs)" in text


def test_lowest_priority_sections_are_cut_first_with_a_marker() -> None:
    sections = [Section("task", "T" * 200, 0), Section("entities", "\n".join(["e" * 50] * 40), 1), Section("dashboard", "D" * 3000, 6)]
    context = fit_budget("think", sections, 1500)
    assert context.size <= 1500 and context.truncated == ("dashboard", "entities")
    assert context.section("dashboard") == "[dashboard left out to fit the 1500-character budget]"
    assert context.section("entities").endswith("[… entities cut to fit the 1500-character budget]")
    assert context.section("task") == "T" * 200


def test_every_role_fits_its_budget_with_a_huge_session() -> None:
    many = [entry(f"recipe_{n}", f"Recipe number {n} with a long name", turn=5) for n in range(1, 1001)]
    config = ContextConfig(labels_per_type=1000)
    for role in ROLES:
        step = StepView("write") if role == "act" else None
        context = build_context(role, inputs(entries=many), step=step, config=config)
        assert context.size <= config.budgets[role], role
        assert "entities" in context.truncated


def test_context_is_deterministic_and_refs_only() -> None:
    first = build_context("think", inputs()).text()
    assert first == build_context("think", inputs()).text()
    assert find_uuid(first) is None
    assert ID not in build_context("understand", inputs()).text()


def test_render_prompt_fills_sections_and_refuses_unknown_placeholders() -> None:
    context = build_context("reply", inputs())
    filled = render_prompt("# Reply\n{task}\n\n{profile}\n\n{flow}\nJSON like {\"a\": 1} stays.", context)
    assert filled.startswith("# Reply\n## Current task") and "## Conversation flow" in filled
    assert '{"a": 1}' in filled and "## User profile" not in filled
    with pytest.raises(ConfigError) as error:
        render_prompt("{task} {entitys}", context)
    assert "entitys" in error.value.message


@pytest.mark.parametrize("path", sorted(p for p in PROMPTS.glob("*.md") if p.stem != "README"), ids=lambda p: p.stem)
def test_prompt_templates_use_only_known_placeholders(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    names = set(re.findall(r"\{([a-z_]+)\}", text))
    assert names <= {*SECTION_NAMES, "context", "step_guidance"}, names


def test_every_cut_of_the_dashboard_is_marked() -> None:
    """A list shown partly says how many more there are and how to see them."""
    meals = [{"ref": f"meal_{n}", "label": f"day {n} [dinner]", "recipe": None} for n in range(1, 8)]
    expired = [{"ref": f"inv_{n}", "label": f"item {n}", "expiry_date": "2026-01-01"} for n in range(1, 6)]
    dashboard = {"counts": {"recipes": 2}, "next_meals": meals, "next_meals_total": 12, "expired": expired, "expired_total": 9}
    text = build_context("think", inputs(dashboard=dashboard)).section("dashboard")
    assert "- Next meals (7 of 12 planned from today): " in text and "(+5 more: read meal_plans)" in text
    assert "(+4 more: read inventory by expiry_date)" in text


def test_a_curation_with_only_a_summary_is_remembered() -> None:
    """'Previous curation decisions' never says none after Understand curated something."""
    state = curated(EntityCuration(curation_summary="kept the weekly plan in mind"))
    text = build_context("understand", inputs(curation=state)).section("decisions")
    assert "- Turn 5: note — kept the weekly plan in mind" in text


def test_the_reply_continues_from_the_last_replys_flow() -> None:
    talk = record_reply(record_user_message(ConversationHistory(), 4, "no cod"), 4, "Got it.",
                        flow={"tone": "collaborative", "next_step": "pick three?"})
    text = build_context("reply", inputs(conversation=record_user_message(talk, 5, "the chicken ones"))).section("flow")
    assert "**Last time you took:** tone collaborative; offered: pick three?" in text


def test_older_turns_can_be_left_out_instead_of_folded() -> None:
    talk = ConversationHistory()
    for turn in range(1, 7):
        talk = record_reply(record_user_message(talk, turn, f"message {turn}"), turn, f"answer {turn}")
    folded = build_context("think", inputs(conversation=talk, turn=7)).section("conversation")
    dropped = build_context("think", inputs(conversation=talk, turn=7), config=ContextConfig(compress_older=False)).section("conversation")
    assert "### Earlier" in folded and "### Earlier" not in dropped and "message 6" in dropped


def test_understand_sees_the_background_tier_and_the_resolver() -> None:
    background = [Candidate("recipe_9", "recipe", "Thai Green Curry", "background", "name has: curry")]
    mentions = resolve("that curry", background)
    text = build_context("understand", inputs(background=background, mentions=mentions)).text()
    assert "### Background (from the kitchen, not in view yet)\n- recipe_9: Thai Green Curry — name has: curry" in text
    assert '## Resolver (what the words may refer to)\n- "curry" → recipe_9 Thai Green Curry (medium, fuzzy)' in text


@pytest.mark.parametrize("role", ["understand", "think", "reply", "act"])
def test_a_curation_summary_is_said_once_in_every_context(role: str) -> None:
    """Demoting several refs for one reason: the reason appears once, not once per ref and again in the narrative."""
    why = EntityCuration(demote=["recipe_2", "recipe_3", "recipe_4"], curation_summary="no heavy dishes this week")
    state = curated(why, turn=5)
    narrative = summarize_turn(5, [], user_message="nothing heavy", curation=why)
    step = StepView("analyze", "Pick light dishes") if role == "act" else None
    text = build_context(role, inputs(curation=state, turn=6, narratives=[narrative]), step=step).text()
    assert text.count("no heavy dishes this week") == 1
    assert all(ref in text for ref in ("recipe_2", "recipe_3", "recipe_4"))


def test_a_reply_the_conversation_quotes_is_not_repeated_in_what_happened() -> None:
    calls = [CallRecord(turn=4, tool="db_read", table="recipes", action="read", refs=["recipe_2"], count=1)]
    narrative = summarize_turn(4, calls, user_message="show me curries", reply="Here is Thai Curry.")
    think = build_context("think", inputs(narratives=[narrative])).text()
    assert think.count("Here is Thai Curry.") == 1 and "**Alfred said:**" not in think
    act = build_context("act", inputs(narratives=[narrative]), step=StepView("analyze")).text()
    assert '**Alfred said:** "Here is Thai Curry."' in act, "Act has no conversation section: the narrative says it"


@pytest.mark.parametrize("role", ["think", "act"])
def test_the_profile_leaves_the_diet_allergies_dislikes_and_equipment_to_the_constraints(role: str) -> None:
    """Every role with a profile reads the constraints, which carry them compiled: the profile does not say them twice."""
    profile = {"allergies": ["peanuts"], "disliked_ingredients": ["olives"], "dietary_restrictions": ["halal"],
               "available_equipment": ["wok"], "cooking_skill_level": "beginner", "household_adults": 2}
    permanent = PermanentConstraints(allergies=["peanuts"], dislikes=["olives"], dietary_restrictions=["halal"], equipment=["wok"])
    compiled = compile_constraints(SessionConstraints(permanent=permanent))
    context = build_context(role, inputs(profile=profile, constraints=compiled), step=StepView("generate"))
    shown = context.section("profile")
    assert "Skill: beginner" in shown and "Adults: 2" in shown
    assert not [word for word in ("peanuts", "olives", "halal", "wok") if word in shown], shown
    assert all(word in context.section("constraints") for word in ("peanuts", "olives", "halal", "wok"))


@pytest.mark.parametrize("role", ["understand", "think", "reply"])
def test_a_stage_client_is_not_quoted_its_own_conversation_nor_the_turn_its_answers_name(role: str) -> None:
    talk = record_reply(record_user_message(ConversationHistory(), 4, "no cod"), 4, "Got it, no cod.",
                        flow={"tone": "collaborative", "next_step": "pick three?"})
    talk = record_user_message(talk, 5, "the chicken ones")
    quiet = build_context(role, inputs(conversation=talk), config=replace(DEFAULT_CONFIG, echo_client=False)).text()
    echoed = build_context(role, inputs(conversation=talk)).text()
    assert "no cod" in echoed and "**Turn:** 5" in echoed
    assert not [said for said in ("no cod", "Got it", "the chicken ones", "pick three?", "**Turn:**") if said in quiet], quiet
    assert "**Today:** 2026-01-13" in quiet


def test_no_curation_decisions_section_before_there_is_one() -> None:
    assert "## Previous curation decisions" not in build_context("understand", inputs()).text()
    decided = inputs(curation=curated(EntityCuration(demote=["recipe_1"])))
    assert "## Previous curation decisions\n- Turn 5: demote recipe_1" in build_context("understand", decided).text()
