"""The staged path's short cuts: quick mode with any read tool (Understand -> the read -> Reply, no Think, no Act)
and Act's `complete_step` (the call that finishes a step completes it, summarised by the state).

Driven through the real MCP client on the demo kitchen; what must not change is checked on the SQLite file itself.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from e2e.helpers import call, call_error
from mcp import Client
from scenarios.kitchen_digest import kitchen_digest

from alfred_mcp.agent import act_tools
from alfred_mcp.agent.act_tools import tools_for_step
from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.app import AlfredApp
from alfred_mcp.server.tools.stage_view import ANSWERED

pytestmark = pytest.mark.anyio

QUICK_SAMPLES: dict[str, dict[str, Any]] = {
    "batch_status": {},
    "constraints_read": {},
    "db_read": {"table": "inventory", "filters": [{"field": "location", "op": "eq", "value": "fridge"}]},
    "describe_table": {"table": "meal_plans"},
    "draft_read": {},
    "entity_resolve": {"text": "the salmon"},
    "meal_plan_show": {},
    "recipe_show": {"recipe": "recipe_1"},
    "recipes_export": {"recipe": "recipe_1"},
    "recipes_makeable": {},
    "recipes_scale": {"recipe": "recipe_1", "servings": 6},
    "recipes_search": {"category": "fish"},
    "shopping_list_show": {},
    "show_working_set": {},
}
"""A quick read of every read tool, as a client's model would ask for it (recipe_1: the first recipe the session read)."""


def _db(app: AlfredApp) -> Path:
    return Path(app.settings.db)


def quick(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"quick_mode": True, "quick_mode_confidence": 0.9, "quick_read": {"tool": tool, "arguments": arguments},
            "processed_message": f"{tool} lookup"}


async def _a_recipe_read(client: Client) -> None:
    """The session reads its recipes first, so recipe_1 is a ref it knows."""
    await call(client, "db_read", table="recipes", columns=["name"], order_by=[{"field": "name"}], limit=3)


async def _a_draft_in_a_batch(client: Client) -> None:
    """A draft and the batch that will save it: what draft_read and batch_status read (no kitchen row is written)."""
    await call(client, "draft_create", entity_type="task", items=[{"title": "Defrost the salmon"}])
    await call(client, "batch_open", refs=["gen_task_1"])


def test_every_read_tool_has_a_quick_sample() -> None:
    """A read tool added later is tried in quick mode too (the samples cover the registry's read tools)."""
    assert set(QUICK_SAMPLES) == set(tools_for_step("read"))


@pytest.mark.parametrize("tool", sorted(QUICK_SAMPLES))
async def test_a_quick_read_of_any_read_tool_is_answered_from_its_rows_and_writes_nothing(client: Client, app: AlfredApp, tool: str) -> None:
    await _a_recipe_read(client)
    await _a_draft_in_a_batch(client)
    before = kitchen_digest(_db(app))
    await call(client, "turn_start", message=f"a lookup with {tool}")
    answer = await call(client, "turn_submit", role="understand", output=quick(tool, QUICK_SAMPLES[tool]))
    assert (answer["stage"], answer["expected_role"]) == ("answered", None), answer.get("notice")
    assert answer["notice"].startswith(tool) and answer["answered"] == ANSWERED and "next" not in answer
    done = await call(client, "turn_submit", role="reply", output={"response": "Here is what I found."})  # still accepted
    assert done["outcome"] == "completed" and done["summary"]["steps_completed"] == 1
    status = (await call(client, "turn_status"))["state"]
    assert "think" not in status["model_calls"] and "act" not in status["model_calls"]
    assert kitchen_digest(_db(app)) == before


async def test_a_quick_read_is_three_calls_with_the_rows_in_the_notice(client: Client, app: AlfredApp) -> None:
    """'What fish recipes do I have?': turn_start, Understand, Reply; the rows the reply names are in the notice."""
    await call(client, "turn_start", message="What fish recipes do I have?")
    answer = await call(client, "turn_submit", role="understand", output=quick("recipes_search", {"category": "fish"}))
    rows = answer["notice"].splitlines()[1:]
    assert rows and all(row.startswith("- recipe_") for row in rows)
    names = [row.split(" ", 2)[2].split(" (")[0] for row in rows]
    done = await call(client, "turn_submit", role="reply", output={"response": "You have " + ", ".join(names) + "."})
    assert done["stage"] == "done"


async def test_a_quick_tool_turn_is_told_as_a_quick_read_in_later_narratives(client: Client, app: AlfredApp) -> None:
    """The plan the machine made for Understand's quick read is labelled as what it was, never as Think's plan_direct."""
    await call(client, "turn_start", message="What fish recipes do I have?")
    await call(client, "turn_submit", role="understand", output=quick("recipes_search", {"category": "fish"}))
    await call(client, "turn_submit", role="reply", output={"response": "You have a few fish recipes."})
    later = await call(client, "turn_start", message="And the first one?")
    assert "**Goal:** recipes_search lookup (quick_read)" in later["next"]["context"]
    assert "(plan_direct)" not in later["next"]["context"]


async def test_a_reply_after_a_quick_read_cannot_claim_a_write(client: Client, app: AlfredApp) -> None:
    await call(client, "turn_start", message="What fish recipes do I have?")
    await call(client, "turn_submit", role="understand", output=quick("recipes_search", {"category": "fish"}))
    refused = await call_error(client, "turn_submit", role="reply", output={"response": "I saved the cod recipe to your meal plan."})
    assert refused["code"] == "role_output_invalid" and refused["message"].startswith("The reply was refused: ")
    assert refused["message"].count("was refused") == 1  # said once, not 'The reply output was refused: The reply was refused'


@pytest.mark.parametrize("tool", sorted(set(tools_for_step("write")) - set(tools_for_step("read"))))
async def test_quick_mode_refuses_a_tool_that_writes_and_nothing_runs(client: Client, app: AlfredApp, tool: str) -> None:
    before = kitchen_digest(_db(app))
    await call(client, "turn_start", message="quick, do it")
    refused = await call_error(client, "turn_submit", role="understand", output=quick(tool, {}))
    assert refused["field"] == "output.quick_read.tool" and "cannot call" in refused["message"]
    assert (await call(client, "turn_status"))["state"]["stage"] == "understand"
    assert kitchen_digest(_db(app)) == before


@pytest.mark.parametrize(("arguments", "field"), [
    ({"category": 7}, "output.quick_read.arguments.category"),
    ({"query": "fish"}, "output.quick_read.arguments"),
])
async def test_quick_mode_names_the_argument_its_tool_refuses(client: Client, app: AlfredApp, arguments: dict[str, Any], field: str) -> None:
    await call(client, "turn_start", message="fish recipes?")
    refused = await call_error(client, "turn_submit", role="understand", output=quick("recipes_search", arguments))
    assert refused["field"].startswith(field) and "recipes_search" in refused["message"]


@pytest.mark.parametrize("read", [
    {"table": "recipes", "tool": "recipes_search"},
    {"tool": "recipes_search", "filters": [{"field": "name", "op": "eq", "value": "x"}]},
    {"table": "recipes", "arguments": {"category": "fish"}},
    {},
])
async def test_a_quick_read_names_one_source(client: Client, app: AlfredApp, read: dict[str, Any]) -> None:
    await call(client, "turn_start", message="fish recipes?")
    output = {"quick_mode": True, "quick_mode_confidence": 0.9, "quick_read": read}
    refused = await call_error(client, "turn_submit", role="understand", output=output)
    assert "quick_read" in refused["message"]


async def test_a_quick_read_that_fails_leaves_its_step_to_act(client: Client, app: AlfredApp) -> None:
    """An unknown ref fails the read: the step stays open, Act sees why and can call again (one more failure blocks)."""
    await call(client, "turn_start", message="show me that one")
    answer = await call(client, "turn_submit", role="understand", output=quick("recipe_show", {"recipe": "recipe_99"}))
    assert answer["expected_role"] == "act" and "recipe_99" in answer["notice"] and "failed" in answer["notice"]
    await _a_recipe_read(client)
    fixed = await call(client, "turn_submit", role="act", output={"action": "tool_call", "tool": "recipe_show",
                                                                   "arguments": {"recipe": "recipe_1"}, "complete_step": True})
    assert fixed["expected_role"] == "reply"


def _write_plan(*batch: str) -> dict[str, Any]:
    return {"goal": "plan and list", "decision": "plan_direct", "steps": [
        {"description": "write it", "step_type": "write", "subdomain": "meal_plans", "batch": [{"ref": ref} for ref in batch]}]}


def _meal(recipe: str, day: str) -> dict[str, Any]:
    return {"action": "tool_call", "tool": "db_create", "complete_step": True,
            "arguments": {"table": "meal_plans", "data": {"date": day, "meal_type": "lunch", "recipe_id": recipe}}}


async def test_complete_step_finishes_a_write_step_with_the_states_summary(client: Client, app: AlfredApp) -> None:
    await _a_recipe_read(client)
    await call(client, "turn_start", message="Plan the first one for lunch on the 2nd of next month")
    await call(client, "turn_submit", role="understand", output={"referenced_refs": ["recipe_1"]})
    await call(client, "turn_submit", role="think", output=_write_plan())
    answer = await call(client, "turn_submit", role="act", output=_meal("recipe_1", "2099-01-02"))
    assert answer["notice"].startswith("db_create meal_plans: 1 created")
    assert (answer["stage"], answer["expected_role"]) == ("answered", None), answer  # the household's servings told by the state
    step = (await call(client, "turn_status"))["state"]["steps"][0]
    assert step["status"] == "completed" and step["result_summary"].startswith("db_create") and "meal_" in step["result_summary"]


async def test_complete_step_leaves_a_batch_step_open_while_an_item_is_pending(client: Client, app: AlfredApp) -> None:
    await _a_recipe_read(client)
    await call(client, "turn_start", message="Plan the first two for lunch")
    await call(client, "turn_submit", role="understand", output={"referenced_refs": ["recipe_1", "recipe_2"]})
    await call(client, "turn_submit", role="think", output=_write_plan("recipe_1", "recipe_2"))
    first = await call(client, "turn_submit", role="act", output=_meal("recipe_1", "2099-01-02"))
    assert first["expected_role"] == "act" and "stays open" in first["notice"] and "recipe_2" in first["notice"]
    second = await call(client, "turn_submit", role="act", output=_meal("recipe_2", "2099-01-03"))
    assert (second["stage"], second["expected_role"]) == ("answered", None), second


async def test_complete_step_on_a_read_in_a_write_step_leaves_it_open(client: Client, app: AlfredApp) -> None:
    before = kitchen_digest(_db(app))
    await call(client, "turn_start", message="Plan something")
    await call(client, "turn_submit", role="understand", output={})
    await call(client, "turn_submit", role="think", output=_write_plan())
    read = await call(client, "turn_submit", role="act", output={"action": "tool_call", "tool": "recipes_search",
                                                                  "arguments": {"category": "fish"}, "complete_step": True})
    assert read["expected_role"] == "act" and "a write step completes after a call that writes" in read["notice"]
    assert kitchen_digest(_db(app)) == before


async def test_the_bundled_loop_answers_a_quick_tool_read_in_two_model_calls(client: Client, app: AlfredApp) -> None:
    """chat: Understand asks for the read, Reply words it; Think and Act are never asked."""
    llm = ScriptedLLM({"understand": [quick("recipes_search", {"category": "fish"})],
                       "reply": [{"response": "You have a few fish recipes: the cod and the salmon."}]})
    app.llm = llm
    result = await call(client, "chat", message="What fish recipes do I have?")
    assert result["outcome"] == "completed" and result["model_calls"] == {"understand": 1, "reply": 1}
    reply_prompt = next(request for request in llm.requests if request.role == "reply").prompt_text()
    assert "recipes_search recipes:" in reply_prompt


def _planned(step_type: str, tool: str, arguments: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"description": f"{tool} now", "step_type": step_type, "subdomain": "meal_plans",
            "call": {"tool": tool, "arguments": arguments}, **more}


MEAL = {"table": "meal_plans", "data": {"date": "2099-01-02", "meal_type": "lunch", "recipe_id": "recipe_1"}}


async def test_a_planned_call_runs_with_the_plan_and_act_is_skipped(client: Client, app: AlfredApp) -> None:
    """'Plan the first one for lunch': turn_start, Understand, Think (with the call), Reply: four calls."""
    await _a_recipe_read(client)
    await call(client, "turn_start", message="Plan the first one for lunch on 2 January 2099")
    await call(client, "turn_submit", role="understand", output={"referenced_refs": ["recipe_1"]})
    answer = await call(client, "turn_submit", role="think", output={"goal": "plan it", "decision": "plan_direct",
                                                                     "steps": [_planned("write", "db_create", MEAL)]})
    assert answer["notice"].startswith("db_create meal_plans: 1 created")
    assert (answer["stage"], answer["expected_role"]) == ("answered", None), answer  # the household's servings told by the state
    await call(client, "turn_submit", role="reply", output={"response": "Planned for lunch on 2 January 2099."})
    status = (await call(client, "turn_status"))["state"]
    assert "act" not in status["model_calls"] and status["steps"][0]["status"] == "completed"


async def test_planned_calls_run_in_order_until_one_needs_act(client: Client, app: AlfredApp) -> None:
    """A read and a write both planned with their calls run in one answer (both notices); a third step without a call
    is Act's."""
    await _a_recipe_read(client)
    await call(client, "turn_start", message="Show it, plan it, then list what it needs")
    await call(client, "turn_submit", role="understand", output={"referenced_refs": ["recipe_1"]})
    steps = [_planned("read", "recipe_show", {"recipe": "recipe_1"}), _planned("write", "db_create", MEAL),
             {"description": "list what it needs", "step_type": "write", "subdomain": "shopping"}]
    answer = await call(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct", "steps": steps})
    assert answer["expected_role"] == "act" and answer["step"]["number"] == 3
    assert "recipe_show" in answer["notice"] and "db_create meal_plans: 1 created" in answer["notice"]


@pytest.mark.parametrize(("step_type", "tool", "arguments", "field"), [
    ("read", "db_create", MEAL, "output.steps[0].call.tool"),
    ("generate", "db_delete", {"table": "recipes", "filters": []}, "output.steps[0].call.tool"),
    ("write", "db_create", {"table": "meal_plans"}, "output.steps[0].call.arguments"),
    ("write", "no_such_tool", {}, "output.steps[0].call.tool"),
])
async def test_a_planned_call_a_step_may_not_make_is_refused_and_nothing_runs(
    client: Client, app: AlfredApp, step_type: str, tool: str, arguments: dict[str, Any], field: str,
) -> None:
    await _a_recipe_read(client)
    before = kitchen_digest(_db(app))
    await call(client, "turn_start", message="do it")
    await call(client, "turn_submit", role="understand", output={})
    refused = await call_error(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct",
                                                                            "steps": [_planned(step_type, tool, arguments)]})
    assert refused["field"].startswith(field), refused
    assert (await call(client, "turn_status"))["state"]["stage"] == "think"
    assert kitchen_digest(_db(app)) == before


async def test_a_planned_call_that_fails_leaves_the_step_to_act(client: Client, app: AlfredApp) -> None:
    await call(client, "turn_start", message="show me that one")
    await call(client, "turn_submit", role="understand", output={})
    answer = await call(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct",
                                                                     "steps": [_planned("read", "recipe_show", {"recipe": "recipe_42"})]})
    assert answer["expected_role"] == "act" and "recipe_42" in answer["notice"]


async def test_the_bundled_loop_runs_a_planned_call_without_asking_act(client: Client, app: AlfredApp) -> None:
    await _a_recipe_read(client)
    app.llm = ScriptedLLM({"understand": [{"referenced_refs": ["recipe_1"]}],
                           "think": [{"goal": "plan it", "decision": "plan_direct", "steps": [_planned("write", "db_create", MEAL)]}],
                           "reply": [{"response": "Planned it for lunch on 2 January 2099."}]})
    result = await call(client, "chat", message="Plan the first one for lunch on 2 January 2099")
    assert result["outcome"] == "completed" and result["model_calls"] == {"understand": 1, "think": 1, "reply": 1}


OLIVE_TAPENADE = {"name": "Olive Tapenade", "servings": 4, "instructions": ["Blend everything."],
                  "ingredients": [{"name": "kalamata olives", "quantity": 1, "unit": "cup"}, {"name": "capers", "quantity": 1, "unit": "tbsp"}]}


async def test_a_revised_draft_counts_for_its_generate_step(client: Client, app: AlfredApp) -> None:
    """'Make it dairy-free': a generate step of one draft is done by revising the draft the user means."""
    await call(client, "draft_create", entity_type="recipe", items=[{**OLIVE_TAPENADE, "name": "Caper Dip"}])
    await call(client, "turn_start", message="Make it without capers")
    await call(client, "turn_submit", role="understand", output={"referenced_refs": ["gen_recipe_1"]})
    await call(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct", "steps": [
        {"description": "revise gen_recipe_1", "step_type": "generate", "subdomain": "recipes", "expected_count": 1}]})
    answer = await call(client, "turn_submit", role="act", output={"action": "tool_call", "tool": "draft_revise", "complete_step": True,
                                                                   "arguments": {"ref": "gen_recipe_1", "patch": {"name": "Caper-free Dip"}}})
    assert answer["expected_role"] is None and answer["stage"] == "answered", answer.get("notice")  # the step is done
    assert "which you dislike" in answer["reply"], answer["reply"]  # the draft's olives, told as the state's account


SAVE_IT = {"description": "save it", "step_type": "write", "subdomain": "recipes",
           "call": {"tool": "draft_save", "arguments": {"refs": ["gen_recipe_1"]}}}
A_TASK = _planned("write", "db_create", {"table": "tasks", "data": {"title": "Set the table"}})
WARNING_CHAINS = [
    pytest.param([{"description": "draft it", "step_type": "generate", "subdomain": "recipes", "expected_count": 1,
                   "call": {"tool": "draft_create", "arguments": {"entity_type": "recipe", "items": [OLIVE_TAPENADE]}}}, SAVE_IT],
                 0, True, id="a-draft-with-a-disliked-ingredient"),
    pytest.param([_planned("write", "db_create", MEAL),
                  _planned("write", "db_create", {**MEAL, "data": {**MEAL["data"], "recipe_id": "recipe_2"}}), A_TASK],
                 1, False, id="a-meal-where-that-day-has-one-its-card-worded-otherwise"),
]


@pytest.mark.parametrize(("steps", "warned", "card_says_it"), WARNING_CHAINS)
async def test_a_planned_call_that_warns_stops_the_chain_before_the_next_write(
        client: Client, app: AlfredApp, monkeypatch: pytest.MonkeyPatch, steps: list[dict[str, Any]], warned: int,
        card_says_it: bool) -> None:
    """A call whose result carries warnings (a disliked olive in a draft, a second lunch on a day) stops the planned
    calls after it: the next step waits for Act (or the user). The machine reads the result's `warnings`, so a card
    that words them otherwise (here: not at all) stops the chain the same."""
    if not card_says_it:
        monkeypatch.setattr(act_tools, "warning_lines", lambda result: [])
    await _a_recipe_read(client)
    await call(client, "turn_start", message="Do these things")
    await call(client, "turn_submit", role="understand", output={"referenced_refs": ["recipe_1"]})
    answer = await call(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct", "steps": steps})
    assert answer["expected_role"] == "act" and answer["step"]["number"] == warned + 2
    assert ("Warnings (" in answer["notice"]) == card_says_it
    ran = (await call(client, "turn_status"))["state"]["steps"]
    assert ran[warned]["tool_calls"][-1]["warnings"] and [bool(step["tool_calls"]) for step in ran] == [
        number <= warned for number in range(len(steps))]


QUUX_SOUP = {"name": "Quux Soup", "servings": 2, "instructions": ["Cook."], "ingredients": [{"name": "quux", "quantity": 1, "unit": "cup"}]}
DRAFT_IT = {"description": "draft it", "step_type": "generate", "subdomain": "recipes", "expected_count": 1,
            "call": {"tool": "draft_create", "arguments": {"entity_type": "recipe", "items": [QUUX_SOUP]}}}
SAVE_DRAFT = {"description": "save it", "step_type": "write", "subdomain": "recipes", "batch": [{"ref": "gen_recipe_1"}],
              "call": {"tool": "draft_save", "arguments": {"refs": ["gen_recipe_1"]}}}


def _plan_it(recipe: str) -> dict[str, Any]:
    return {**_planned("write", "db_create", {**MEAL, "data": {**MEAL["data"], "meal_type": "dinner", "recipe_id": recipe}}),
            "batch": [{"ref": "gen_recipe_1"}]}


@pytest.mark.parametrize("drafted_by_the_plan", [False, True], ids=["a-draft-of-an-earlier-turn", "a-draft-the-plan-makes"])
async def test_a_batch_can_name_the_draft_an_earlier_step_saves_and_the_meal_that_names_it_completes_it(
        client: Client, app: AlfredApp, drafted_by_the_plan: bool) -> None:
    """'Save it and plan it': the plan step's batch names gen_recipe_1, which the step before saved (or drafted and
    saved); the item is the recipe it became, completed as planned by the meal naming it, never by the save alone."""
    if not drafted_by_the_plan:
        await call(client, "draft_create", entity_type="recipe", items=[QUUX_SOUP])
    await call(client, "turn_start", message="Save it and plan it for dinner")
    await call(client, "turn_submit", role="understand", output={})
    steps = [*([DRAFT_IT] if drafted_by_the_plan else []), SAVE_DRAFT, _plan_it("gen_recipe_1")]
    answer = await call(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct", "steps": steps})
    assert (answer["stage"], answer["expected_role"]) == ("answered", None), answer.get("notice")  # the household's servings told
    whole = (await call(client, "turn_context", full=True))["context"]
    assert re.search(r"Batch batch_\d+: 1 of 1 planned", whole), whole


async def test_a_batch_item_saved_earlier_is_not_completed_by_a_write_about_something_else(client: Client, app: AlfredApp) -> None:
    await _a_recipe_read(client)
    await call(client, "draft_create", entity_type="recipe", items=[QUUX_SOUP])
    await call(client, "turn_start", message="Save it and plan it for dinner")
    await call(client, "turn_submit", role="understand", output={})
    answer = await call(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct",
                                                                     "steps": [SAVE_DRAFT, _plan_it("recipe_1")]})
    assert answer["expected_role"] == "act" and answer["step"]["number"] == 2 and "stays open" in answer["notice"]


async def test_a_gen_ref_no_step_before_makes_is_refused_in_a_batch(client: Client, app: AlfredApp) -> None:
    await call(client, "turn_start", message="Plan it")
    await call(client, "turn_submit", role="understand", output={})
    refused = await call_error(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct",
                                                                            "steps": [_plan_it("recipe_1")]})
    assert refused["field"] == "output.steps[0].batch" and "gen_recipe_1" in refused["message"]
    wrong = {**SAVE_DRAFT, "batch": [{"ref": "gen_recipe_7"}]}
    blocked = await call(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct", "steps": [DRAFT_IT, wrong]})
    assert blocked["outcome"] == "blocked" and "gen_recipe_7" in (await call(client, "turn_status"))["state"]["blocked_reason"]
