"""The bundled agent loop end to end: scripted model outputs, real store, real MCP client.

Assertions are on state (rows, refs, manifests, the ledger) and on what the model was shown
(captured prompts: never a UUID), not on the absence of a crash.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from e2e.cod_recipes import THREE_COD
from e2e.helpers import call, call_error
from mcp import Client
from mcp.types import CreateMessageRequestParams, CreateMessageResult, TextContent

from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.operations.seeding import seed
from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.state.refs import refs_in

pytestmark = pytest.mark.anyio
TODAY_ISO = "2026-01-12"


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[AlfredApp]:
    from datetime import date

    app = AlfredApp.from_settings(Settings(db=str(tmp_path / "kitchen.db"), seed_demo=False, check_results=True))
    await app.open()
    await seed(app.store, app.user_id, today=date.fromisoformat(TODAY_ISO))
    yield app
    await app.close()


def script(app: AlfredApp, outputs: dict[str, list[Any]]) -> ScriptedLLM:
    llm = ScriptedLLM(outputs)
    app.llm = llm
    return llm


def assert_prompts_carry_no_uuid(llm: ScriptedLLM) -> None:
    for request in llm.requests:
        assert find_uuid(request.prompt_text()) is None, f"a {request.role} prompt showed a raw id"


async def rows(app: AlfredApp, table: str, *filters: Filter) -> list[dict]:
    return await app.store.select(TABLES[table], Query(where=Where(all_of=filters), limit=500), user_id=app.user_id)


UNDERSTAND_COD = {
    "constraint_snapshot": {
        "new_constraints": [
            {"type": "ingredient_required", "field": "protein", "value": "cod"},
            {"type": "equipment", "field": "appliance", "value": "air-fryer"},
        ],
        "goal_update": "three air-fryer cod recipes, saved",
    },
    "processed_message": "3 air-fryer cod recipes, save them",
}
THINK_COD = {
    "goal": "Create and save 3 air-fryer cod recipes",
    "decision": "plan_direct",
    "steps": [
        {"description": "Generate 3 cod recipes", "step_type": "generate", "subdomain": "recipes", "expected_count": 3},
        {"description": "Save the 3 recipes", "step_type": "write", "subdomain": "recipes"},
    ],
}


def act(decision: dict[str, Any]) -> dict[str, Any]:
    return {"decision": decision}


def tool(name: str, **arguments: Any) -> dict[str, Any]:
    return act({"action": "tool_call", "tool": name, "arguments": arguments})


def complete(summary: str) -> dict[str, Any]:
    return act({"action": "step_complete", "result_summary": summary})


COD_ACTS = [
    tool("draft_create", entity_type="recipe", items=THREE_COD),
    complete("Generated gen_recipe_1..gen_recipe_3"),
    complete("Saved them"),  # too early: the state refuses, the batch is still pending
    tool("draft_save", refs=["gen_recipe_1", "gen_recipe_2", "gen_recipe_3"]),
    complete("Saved all three"),
]


async def test_chat_scenario_1_three_cod_recipes_saved_whole(client: Client, app: AlfredApp) -> None:
    """'Make 3 cod recipes and save them': three recipes with every ingredient; an early step_complete is refused."""
    llm = script(app, {"understand": [UNDERSTAND_COD], "think": [THINK_COD], "act": COD_ACTS, "reply": [{"response": "Saved your three cod recipes."}]})
    result = await call(client, "chat", message="Make 3 cod recipes for the air fryer and save them")
    assert result["outcome"] == "completed"
    assert result["model_calls"] == {"understand": 1, "think": 1, "act": 5, "reply": 1}
    saved = {row["name"]: row for row in await rows(app, "recipes") if "Cod" in row["name"] and row["name"] in {r["name"] for r in THREE_COD}}
    assert set(saved) == {r["name"] for r in THREE_COD}
    for recipe in THREE_COD:
        ingredients = await rows(app, "recipe_ingredients", Filter("recipe_id", "eq", saved[recipe["name"]]["id"]))
        assert [i["name"] for i in sorted(ingredients, key=lambda i: i["position"])] == [i["name"] for i in recipe["ingredients"]]
    status = await call(client, "turn_status")
    write_step = status["state"]["steps"][1]
    assert len(write_step["refused"]) == 1 and "pending" in write_step["refused"][0]
    assert status["batches"][0]["items"][0]["status"] == "completed"
    working = {e["ref"]: e for e in (await call(client, "show_working_set"))["refs"]}
    assert working["gen_recipe_1"]["saved_as"].startswith("recipe_")
    assert [e["label"] for e in result["summary"]["artifacts_saved"]] == [r["name"] for r in THREE_COD]
    assert_prompts_carry_no_uuid(llm)
    write_prompt = next(r for r in llm.requests if r.role == "act" and "Step 2 of 2" in r.prompt_text())
    content = write_prompt.messages[0].content
    assert "## Drafts this step covers (pending; whole with draft_read)" in content, "three whole recipes exceed DRAFTS_BUDGET"
    assert all(f": {recipe['name']} (" in content for recipe in THREE_COD) and "ingredients" in content


async def test_chat_scenario_5_one_failed_save_is_named_in_the_reply(client: Client, app: AlfredApp) -> None:
    """One of three saves fails on a real constraint; even a reply claiming success carries the failure."""
    with sqlite3.connect(app.settings.db) as connection:
        connection.execute(
            "CREATE TRIGGER refuse_poison BEFORE INSERT ON recipe_ingredients WHEN NEW.name = 'poison' "
            "BEGIN SELECT RAISE(ABORT, 'poison is not an ingredient'); END"
        )
    poisoned = [THREE_COD[0], {**THREE_COD[1], "ingredients": THREE_COD[1]["ingredients"] + [{"name": "poison"}]}, THREE_COD[2]]
    acts = [tool("draft_create", entity_type="recipe", items=poisoned), complete("3 drafts"),
            tool("draft_save", refs=["gen_recipe_1", "gen_recipe_2", "gen_recipe_3"]), complete("saved")]
    corrected = "Honey Garlic Cod and Cajun Cod Bites are saved; Lemon Butter Cod could not be saved (one ingredient was refused)."
    llm = script(app, {"understand": [UNDERSTAND_COD], "think": [THINK_COD], "act": acts,
                       "reply": [{"response": "All 3 recipes are saved!"}, {"response": corrected}]})
    result = await call(client, "chat", message="Make 3 cod recipes and save them")
    assert result["reply"] == corrected, "the reply is refused and corrected, never amended"
    retry = [r for r in llm.requests if r.role == "reply"][1].messages[0].content
    assert "it leaves out gen_recipe_2 (Lemon Butter Cod), which failed" in retry
    assert not await rows(app, "recipes", Filter("name", "eq", "Lemon Butter Cod"))
    assert len(await rows(app, "recipes", Filter("name", "eq", "Honey Garlic Cod"))) == 1
    status = await call(client, "turn_status")
    assert status["batches"][0]["items"][1]["status"] == "failed"


async def test_invalid_think_output_is_retried_with_its_error_then_accepted(client: Client, app: AlfredApp) -> None:
    invalid = {"goal": "Save recipes", "decision": "propose"}
    llm = script(app, {"understand": [UNDERSTAND_COD], "think": [invalid, THINK_COD], "act": COD_ACTS, "reply": [{"response": "Done."}]})
    result = await call(client, "chat", message="Make 3 cod recipes and save them")
    assert result["outcome"] == "completed"
    thinks = [r for r in llm.requests if r.role == "think"]
    assert len(thinks) == 2
    assert "propose needs proposal_message" in thinks[1].messages[0].content
    status = await call(client, "turn_status")
    assert status["state"]["invalid_outputs"] == {"think": 1}


async def test_invalid_outputs_past_the_limit_end_the_turn_blocked_and_apply_nothing(client: Client, app: AlfredApp) -> None:
    invalid = {"goal": "x", "decision": "propose"}
    before = len(await rows(app, "recipes"))
    script(app, {"understand": [UNDERSTAND_COD], "think": [invalid] * 3, "reply": [{"response": "I could not plan that."}]})
    result = await call(client, "chat", message="Make 3 cod recipes")
    assert result["outcome"] == "blocked" and result["reply"] == (
        "Nothing was changed. Noted: include cod, equipment: air-fryer.\n"  # Understand's constraints were recorded
        "I couldn't finish this: the model could not make a plan (3 tries); "
        "try a larger model, or another ALFRED_MODEL_JSON_MODE for this server.")
    assert result["model_calls"] == {"understand": 1, "think": 3}, "no model is asked to tell a blocked turn"
    state = (await call(client, "turn_status"))["state"]
    assert "think output was invalid 3 times" in state["blocked_reason"]
    assert len(await rows(app, "recipes")) == before


async def test_quick_read_takes_one_model_call_and_reads_only(client: Client, app: AlfredApp) -> None:
    quick = {"quick_mode": True, "quick_mode_confidence": 0.95,
             "quick_read": {"table": "inventory", "filters": [{"field": "location", "op": "eq", "value": "freezer"}]}}
    script(app, {"understand": [quick]})
    result = await call(client, "chat", message="what's in my freezer?")
    assert result["model_calls"] == {"understand": 1} and result["outcome"] == "quick"
    freezer = await rows(app, "inventory", Filter("location", "eq", "freezer"))
    assert result["reply"].startswith(f"{len(freezer)} items in your freezer") and "inv_" not in result["reply"]
    assert all(row["name"] in result["reply"] for row in freezer)


async def test_scenario_2_list_then_delete_two_next_turn(client: Client, app: AlfredApp) -> None:
    """Refs from one turn drive a batch delete in the next; the manifest tracks both items."""
    quick = {"quick_mode": True, "quick_mode_confidence": 0.9, "quick_read": {"table": "recipes", "order_by": [{"field": "name"}], "limit": 5}}
    script(app, {"understand": [quick]})
    listed = await call(client, "chat", message="what recipes do I have?")
    first_turn = (await call(client, "turn_status"))["state"]
    shown = first_turn["quick_result"]["rows"][:2]
    refs, names = [r["id"] for r in shown], [r["name"] for r in shown]
    assert all(name in listed["reply"] for name in names) and not any(ref in listed["reply"] for ref in refs)
    plan = {"goal": "Delete two recipes", "decision": "plan_direct", "steps": [
        {"description": f"Delete {refs[0]} and {refs[1]}", "step_type": "write", "subdomain": "recipes",
         "batch": [{"ref": refs[0]}, {"ref": refs[1]}]}]}
    script(app, {
        "understand": [{"referenced_refs": refs}], "think": [plan],
        "act": [tool("db_delete", table="recipes", filters=[{"field": "id", "op": "in", "value": refs}]), complete("deleted")],
        "reply": [{"response": f"Deleted {refs[0]} and {refs[1]}."},
                  {"response": f"Deleted {refs[0]} and {refs[1]}; the meals planned with them are now without a recipe."}],
    })
    result = await call(client, "chat", message="delete the first two")
    assert result["outcome"] == "completed" and result["turn"] == listed["turn"] + 1
    assert not [r for r in await rows(app, "recipes") if r["name"] in names]
    assert {e["ref"] for e in result["summary"]["entities_deleted"]} == set(refs)
    assert result["model_calls"]["reply"] == 2  # the first reply left out the meals the delete emptied
    batches = (await call(client, "turn_status"))["batches"]
    assert [item["status"] for item in batches[0]["items"]] == ["completed", "completed"]


async def test_scenario_3_fish_category_search_finds_cod_and_salmon(client: Client, app: AlfredApp) -> None:
    plan = {"goal": "Find fish recipes", "decision": "plan_direct",
            "steps": [{"description": "Search recipes in the fish category", "step_type": "read", "subdomain": "recipes"}]}
    script(app, {"understand": [{}], "think": [plan],
                 "act": [tool("recipes_search", category="fish"), complete("found the fish recipes")],
                 "reply": [{"response": "Here are your fish recipes."}]})
    result = await call(client, "chat", message="show me fish recipes")
    status = await call(client, "turn_status")
    summary = status["state"]["steps"][0]["tool_calls"][0]["summary"]
    assert result["outcome"] == "completed" and "recipe_" in summary


async def test_scenario_4_ambiguous_request_is_clarified_without_acting(client: Client, app: AlfredApp) -> None:
    before = len(await rows(app, "recipes"))
    llm = script(app, {"understand": [{"needs_clarification": True, "clarification_questions": ["For which days, and for how many people?"]}]})
    result = await call(client, "chat", message="plan my meals")
    assert result["outcome"] == "clarify" and "how many people" in result["reply"]
    assert [r.role for r in llm.requests] == ["understand"] and len(await rows(app, "recipes")) == before


async def test_stage_tools_drive_scenario_1_and_refuse_out_of_order(client: Client, app: AlfredApp) -> None:
    """A client whose own model thinks: turn_start, then turn_submit, each answer giving the next role's context."""
    started = await call(client, "turn_start", message="Make 3 cod recipes and save them")
    assert started["expected_role"] == "understand"
    early = await call_error(client, "turn_submit", role="think", output=THINK_COD)
    assert early["code"] == "out_of_order" and "understand" in early["message"]
    context = started["next"]
    assert context["role"] == "understand" and "referenced_refs?: string[]" in context["output_shapes"]["understand"]
    assert find_uuid(context["instructions"] + context["context"]) is None
    await call(client, "turn_submit", role="understand", output=UNDERSTAND_COD)
    bad = await call_error(client, "turn_submit", role="think", output={"goal": "x", "decision": "maybe"})
    assert bad["code"] == "role_output_invalid"
    state = await call(client, "turn_submit", role="think", output=THINK_COD)
    for decision in COD_ACTS:
        assert state["expected_role"] == "act"
        state = await call(client, "turn_submit", role="act", output=decision)
        if decision["decision"]["action"] == "step_complete" and state.get("notice"):
            assert "refused" in state["notice"]
    assert (state["expected_role"], state["stage"]) == (None, "answered")  # the drafts' warnings are told in the account
    assert state["reply"].startswith("Saved ") and not refs_in(state["reply"]), state["reply"]
    done = await call(client, "turn_submit", role="reply", output={"response": "Saved."})  # a reply is still accepted
    assert done["stage"] == "done" and done["summary"]["steps_completed"] == 2
    assert len([r for r in await rows(app, "recipes") if r["name"] in {c["name"] for c in THREE_COD}]) == 3


async def test_tool_error_is_shown_once_then_blocks_the_step(client: Client, app: AlfredApp) -> None:
    plan = {"goal": "Delete a recipe", "decision": "plan_direct",
            "steps": [{"description": "Delete recipe_99", "step_type": "write", "subdomain": "recipes"}]}
    bad = tool("db_delete", table="recipes", filters=[{"field": "id", "op": "eq", "value": "recipe_99"}])
    llm = script(app, {"understand": [{}], "think": [plan], "act": [bad, bad], "reply": [{"response": "I could not delete it."}]})
    result = await call(client, "chat", message="delete recipe 99")
    assert result["outcome"] == "blocked" and "I could not delete it." not in result["reply"]
    assert result["reply"].endswith("step 1 of 1 was refused twice (what it named is not in your kitchen); check the details and ask again.")
    assert "failed twice" in (await call(client, "turn_status"))["state"]["blocked_reason"]
    second_act = [r for r in llm.requests if r.role == "act"][1]
    assert "Unknown ref 'recipe_99'" in second_act.messages[0].content


async def test_chat_without_a_model_says_how_to_drive_the_turn(client: Client, app: AlfredApp) -> None:
    app.llm = None
    error = await call_error(client, "chat", message="hello")
    assert error["code"] == "config_error" and "turn_start" in error["message"]


async def test_every_stage_is_readable_as_a_resource_refs_only(client: Client, app: AlfredApp) -> None:
    script(app, {"understand": [UNDERSTAND_COD], "think": [THINK_COD], "act": COD_ACTS, "reply": [{"response": "Saved."}]})
    await call(client, "chat", message="Make 3 cod recipes and save them")
    turn = json.loads((await client.read_resource("alfred://session/current/turns/current")).contents[0].text)
    state = turn["state"]
    assert state["understanding"]["processed_message"] and state["plan"]["goal"] and state["reply"] == "Saved."
    assert [s["status"] for s in state["steps"]] == ["completed", "completed"] and state["ledger"]["steps_completed"] == 2
    batch = json.loads((await client.read_resource("alfred://session/current/batches/latest")).contents[0].text)
    assert batch["progress"]["completed"] == 3
    for text in (json.dumps(turn), json.dumps(batch)):
        assert find_uuid(text) is None


@pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")  # sampling is deprecated in 2026-07-28; opt-in here
async def test_chat_can_use_the_clients_own_model_through_sampling(app: AlfredApp) -> None:
    """model='client': the turn's one model call goes to the client (handshake era, which can sample mid-call)."""
    seen: list[str] = []

    async def sampling_callback(context: Any, params: CreateMessageRequestParams) -> CreateMessageResult:
        seen.append(params.system_prompt or "")
        answer = {"quick_mode": True, "quick_mode_confidence": 1, "quick_read": {"table": "tasks", "limit": 5}}
        return CreateMessageResult(role="assistant", content=TextContent(type="text", text=json.dumps(answer)), model="client-model")

    async with Client(build_server(app), mode="legacy", sampling_callback=sampling_callback) as legacy:
        result = await call(legacy, "chat", message="what are my tasks?", model="client")
    assert result["outcome"] == "quick" and result["reply"].startswith("You have ") and len(seen) == 1
    assert find_uuid(seen[0]) is None


async def test_generate_step_cannot_complete_short_of_its_expected_count(client: Client, app: AlfredApp) -> None:
    """Think promised 3 drafts: completing after 1 is refused, naming what exists; a bare decision is accepted."""
    acts = [tool("draft_create", entity_type="recipe", items=THREE_COD[:1]),
            {"action": "step_complete", "result_summary": "done"},  # bare decision form
            tool("draft_create", entity_type="recipe", items=THREE_COD[1:]), complete("all 3"),
            tool("draft_save", refs=["gen_recipe_1", "gen_recipe_2", "gen_recipe_3"]), complete("saved")]
    script(app, {"understand": [UNDERSTAND_COD], "think": [THINK_COD], "act": acts, "reply": [{"response": "Saved."}]})
    result = await call(client, "chat", message="Make 3 cod recipes and save them")
    assert result["outcome"] == "completed"
    generate = (await call(client, "turn_status"))["state"]["steps"][0]
    assert len(generate["refused"]) == 1 and "must generate 3 drafts; it has 1 (gen_recipe_1)" in generate["refused"][0]


@pytest.mark.parametrize("understood", [
    pytest.param({"constraint_snapshot": {"new_constraints": [{"type": "ingredient_excluded", "field": "gluten", "value": "gluten"}]}},
                 id="a-constraint-noted"),
    pytest.param({"constraint_snapshot": {"reset_all": True}}, id="a-constraint-dropped"),
    pytest.param({}, id="a-request-already-true"),
])
async def test_the_bundled_loop_goes_from_a_plan_with_no_steps_to_reply(client: Client, app: AlfredApp, understood: dict) -> None:
    """The bundled loop runs a no-step plan as the stage tools do: no Act call, Reply answers, the turn is completed."""
    nothing = {"goal": "acknowledge", "decision": "plan_direct", "steps": []}
    script(app, {"understand": [understood], "think": [nothing], "reply": [{"response": "Got it."}]})
    result = await call(client, "chat", message="I'm avoiding gluten for now.")
    assert (result["outcome"], result["reply"]) == ("completed", "Got it.")
    assert result["model_calls"] == {"understand": 1, "think": 1, "reply": 1}


async def test_an_act_step_is_named_by_the_answer_and_by_turn_context_not_twice_in_the_context(client: Client, app: AlfredApp) -> None:
    """The step's place and goal (Think's own words) come with the answer's `step`, and with turn_context's; the
    context keeps its type and the plan so far; a full resend (a new chat) has them in the context too."""
    await call(client, "turn_start", message="Make 3 cod recipes and save them")
    await call(client, "turn_submit", role="understand", output=UNDERSTAND_COD)
    answer = await call(client, "turn_submit", role="think", output=THINK_COD)
    first = THINK_COD["steps"][0]
    assert answer["step"]["description"] == first["description"] and answer["step"]["number"] == 1
    assert "Type: generate" in answer["next"]["context"] and first["description"] not in answer["next"]["context"]
    again = await call(client, "turn_context")
    assert again["step"] == answer["step"] and first["description"] not in again["context"]
    full = await call(client, "turn_context", full=True)
    assert f"**Goal:** {first['description']}" in full["context"] and "**Step 1 of" in full["context"]
