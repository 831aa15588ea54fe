"""What the turn machine enforces for a client driving it stage by stage: replies refused (never
amended) then replaced by the state's own, refusals before anything ran not counted as failures, one
re-plan, quick mode gated by confidence, and turn_context sending what the client lacks once."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from e2e.conftest import SeededKitchens
from e2e.helpers import call, call_error
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.session.documents import AGENT_CURRENT_TURN, AGENT_TURNS, Codec, Document
from alfred_mcp.state.role_outputs import UnderstandOutput

pytestmark = pytest.mark.anyio


@pytest.fixture
async def app(tmp_path: Path, seeded_kitchens: SeededKitchens) -> AsyncIterator[AlfredApp]:
    async with seeded_kitchens.copy(tmp_path, date.today()) as opened:
        yield opened


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected


def tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {"action": "tool_call", "tool": name, "arguments": arguments}


def done(summary: str = "done") -> dict[str, Any]:
    return {"action": "step_complete", "result_summary": summary}


def plan(*steps: tuple[str, str]) -> dict[str, Any]:
    return {"goal": "test", "decision": "plan_direct",
            "steps": [{"description": text, "step_type": kind, "subdomain": "recipes"} for kind, text in steps]}


async def to_act(client: Client, message: str, *steps: tuple[str, str]) -> None:
    await call(client, "turn_start", message=message)
    await call(client, "turn_submit", role="understand", output={})
    await call(client, "turn_submit", role="think", output=plan(*steps))


async def to_write_step_over(client: Client, message: str, ref: str) -> None:
    """A turn at Act, its one write step's batch naming `ref`."""
    await call(client, "turn_start", message=message)
    await call(client, "turn_submit", role="understand", output={})
    step = {"description": f"Write {ref}", "step_type": "write", "subdomain": "recipes", "batch": [{"ref": ref}]}
    await call(client, "turn_submit", role="think", output={"goal": message, "decision": "plan_direct", "steps": [step]})


async def submit(client: Client, role: str, output: dict[str, Any]) -> dict[str, Any]:
    return await call(client, "turn_submit", role=role, output=output)


async def status(client: Client) -> dict[str, Any]:
    state: dict[str, Any] = (await call(client, "turn_status"))["state"]
    return state


async def test_a_false_reply_is_refused_then_corrected_and_never_amended(client: Client) -> None:
    await to_act(client, "make a cod recipe", ("generate", "Draft one cod recipe"))
    recipe = {"name": "Quick Cod", "ingredients": [{"name": "cod fillet", "quantity": 2}], "instructions": ["Bake it."]}
    await submit(client, "act", {"decision": tool("draft_create", entity_type="recipe", items=[recipe])})
    await submit(client, "act", {"decision": done()})
    refused = await call_error(client, "turn_submit", role="reply", output={"response": "I saved Quick Cod for you!"})
    assert refused["code"] == "role_output_invalid" and refused["attempts_left"] == 2
    assert "it says 'Quick Cod' was saved, but this turn did not do that" in refused["message"]
    assert "gen_recipe_1 (Quick Cod) are not saved yet" in refused["message"]
    assert (await status(client))["invalid_outputs"] == {"reply": 1}, "the refusal counts although the call failed"
    honest = "Here is Quick Cod, not saved yet. Want me to save it?"
    finished = await submit(client, "reply", {"response": honest, "tone": "helpful", "next_step": "save it?"})
    assert finished["stage"] == "done" and "reply" not in finished  # the model wrote it: not echoed
    talk = json.loads((await client.read_resource("alfred://session/current/conversation")).contents[0].text)
    assert talk["recent"][-1]["flow"] == {"tone": "helpful", "next_step": "save it?"}


async def test_a_blocked_turn_ends_at_once_with_the_states_own_account(client: Client) -> None:
    await to_act(client, "delete recipe 99", ("write", "Delete recipe_99"))
    bad = {"decision": tool("db_delete", table="recipes", filters=[{"field": "id", "op": "eq", "value": "recipe_99"}])}
    await submit(client, "act", bad)
    stopped = await submit(client, "act", bad)
    assert (stopped["stage"], stopped["expected_role"], stopped["outcome"]) == ("done", None, "blocked")
    assert stopped["reply"] == ("Nothing was changed.\nI couldn't finish this: step 1 of 1 was refused twice (what it named is not in "
                                "your kitchen); check the details and ask again.")
    assert (await status(client))["reply_source"] == "fallback"
    late = await call_error(client, "turn_submit", role="reply", output={"response": "All done!"})
    assert late["code"] == "out_of_order"


async def test_after_the_last_refused_reply_the_state_replies_itself(client: Client) -> None:
    await to_act(client, "show my recipes", ("read", "Read the recipes"))
    await submit(client, "act", {"decision": tool("db_read", table="recipes", limit=2)})
    await submit(client, "act", {"decision": done("read them")})
    for _ in range(2):
        await call_error(client, "turn_submit", role="reply", output={"response": "I deleted your recipes."})
    last = await submit(client, "reply", {"response": "I deleted your recipes."})
    assert last["stage"] == "done" and "state's own reply was used" in last["notice"]
    assert last["reply"] == "I looked at 2 recipes; ask again to hear about them." and last["outcome"] == "completed"
    assert (await status(client))["reply_source"] == "fallback"


async def test_a_call_refused_before_it_ran_does_not_count_toward_the_two_failures(client: Client) -> None:
    await to_act(client, "show my recipes", ("read", "Read the recipes"))
    not_allowed = await submit(client, "act", {"decision": tool("db_delete", table="recipes", all=True)})
    assert "db_delete was not run" in not_allowed["notice"] and "does not count" in not_allowed["notice"]
    bad_arguments = await submit(client, "act", {"decision": tool("db_read", table="recipes", limit=0)})
    assert "db_read was not run" in bad_arguments["notice"]
    unknown_columns = await submit(client, "act", {"decision": tool("db_read", table="recipes", columns=["colour", "size", "name"])})
    assert "db_read was not run" in unknown_columns["notice"] and "'colour', 'size'" in unknown_columns["notice"]
    failed = await submit(client, "act", {"decision": tool("db_read", table="recipes",
                                                           filters=[{"field": "id", "op": "eq", "value": "recipe_999"}])})
    assert "one more failure blocks the step" in failed["notice"]
    read = await submit(client, "act", {"decision": tool("db_read", table="recipes", columns=["name", "cuisine"], limit=3)})
    assert read["stage"] == "act" and read["notice"].startswith("db_read recipes: 3 recipes (more exist")
    assert "cuisine=" in read["notice"], "Act sees the rows it read, as a card"
    assert len((await status(client))["steps"][0]["refused"]) == 3


async def test_plan_invalid_goes_back_to_think_once_with_acts_reason(client: Client) -> None:
    await to_act(client, "save the scampi", ("write", "Save gen_recipe_7"))
    blocked = {"decision": {"action": "blocked", "reason_code": "plan_invalid", "reason": "there is no gen_recipe_7"}}
    replan = await submit(client, "act", blocked)
    assert replan["expected_role"] == "think" and "re-plan" in replan["notice"]
    context = replan["next"]
    assert "## Re-plan (once)\nAct stopped the plan: Step 1 (Save gen_recipe_7) cannot work: there is no gen_recipe_7" in context["context"]
    await submit(client, "think", plan(("write", "Try again")))
    again = await submit(client, "act", blocked)
    assert again["expected_role"] is None and again["outcome"] == "blocked"
    assert again["reply"].endswith("I couldn't finish this: the plan could not work, even re-planned; say what you want changed, and ask again.")
    assert "gen_recipe_7" not in again["reply"], "Act's reason is on record, not in the reply"
    state = await status(client)
    assert state["replans"] == 1 and [s["status"] for s in state["superseded_steps"]] == ["blocked"]


@pytest.mark.parametrize(("confidence", "planned"), [pytest.param(0.5, True, id="below"), pytest.param(0.9, False, id="above")])
async def test_quick_mode_answers_only_above_its_confidence_threshold(client: Client, app: AlfredApp, confidence: float, planned: bool) -> None:
    before = len(await app.store.select(TABLES["recipes"], Query(), user_id=app.user_id))
    await call(client, "turn_start", message="what recipes do I have?")
    quick = {"quick_mode": True, "quick_mode_confidence": confidence, "quick_read": {"table": "recipes", "limit": 5}}
    result = await submit(client, "understand", quick)
    assert (result["expected_role"] == "think") is planned
    assert (result["outcome"] == "quick") is not planned
    if planned:
        assert "Quick mode declined: confidence 0.5 is below 0.8" in result["notice"]
    assert len(await app.store.select(TABLES["recipes"], Query(), user_id=app.user_id)) == before


async def test_the_answers_carry_what_the_next_role_needs_and_send_each_thing_once(client: Client) -> None:
    """turn_start's answer has Understand's instructions, context and output shape (a role's shape comes the first
    time it is expected: a turn that ends early pays for no other); the next turn's has none of what is unchanged;
    turn_context re-fetches (markers for what was sent, full: true resends)."""
    first = (await call(client, "turn_start", message="hello"))["next"]
    assert first["role"] == "understand" and first["instructions"].startswith("# Understand")
    assert set(first["output_shapes"]) == {"understand"}
    assert "referenced_refs?: string[]" in first["output_shapes"]["understand"]
    await submit(client, "understand", {"needs_clarification": True, "clarification_questions": ["Which?"]})
    second = (await call(client, "turn_start", message="hello again"))["next"]
    assert "instructions" not in second and "output_shapes" not in second and "(As sent before, unchanged:" in second["context"]
    again = await call(client, "turn_context")
    assert "output_schema" not in again and again["output_schema_sent_turn"] == 1
    assert again["instructions"].startswith("(the understand instructions: unchanged since turn 1")
    full = await call(client, "turn_context", full=True)
    assert "referenced_refs" in full["output_schema"]["properties"] and full["instructions"] == first["instructions"]
    assert "hello again" in full["context"] and "As sent before" not in full["context"]
    thinking = (await submit(client, "understand", {}))["next"]
    assert thinking["role"] == "think" and set(thinking["output_shapes"]) == {"think"}


async def test_draft_revise_says_what_it_revised_not_the_draft_the_model_wrote(client: Client) -> None:
    await to_act(client, "make a cod recipe spicier", ("generate", "Draft and revise"))
    recipe = {"name": "Quick Cod", "ingredients": [{"name": "cod fillet", "quantity": 2}], "instructions": ["Bake it."]}
    await submit(client, "act", {"decision": tool("draft_create", entity_type="recipe", items=[recipe])})
    revised = await submit(client, "act", {"decision": tool("draft_revise", ref="gen_recipe_1", patch={"name": "Spicy Cod"})})
    assert revised["notice"] == ("draft_revise: 1 revised: gen_recipe_1\n- gen_recipe_1: Spicy Cod [pending]\n"
                                 '  (revised name; now 1 ingredient, 1 step, serves 3; draft_read refs=["gen_recipe_1"] shows it whole)')


async def test_the_first_turn_begin_of_a_session_stays_turn_one(client: Client) -> None:
    """turn_begin may be called for every message, the first included: a fresh session's first message is turn 1."""
    first = await call(client, "turn_begin", message="hi")
    assert (first["turn"], first["closed_turn"]) == (1, None)
    second = await call(client, "turn_begin", message="and now?")
    assert (second["turn"], second["closed_turn"]) == (2, 1)


AS_STORED = Codec[Any](lambda value: value, lambda value: value)
"""Writes a document's JSON as given: what another version, a bug or a hand edit could have left."""


@pytest.mark.parametrize(
    ("document", "stored"),
    [pytest.param("record", "not a turn", id="record-not-an-object"),
     pytest.param("record", {"turn": "three", "stage": "sideways"}, id="record-of-another-shape"),
     pytest.param("pointer", "three", id="pointer-not-a-number"),
     pytest.param("pointer", {"turn": 3}, id="pointer-an-object")],
)
async def test_turn_abandon_ends_a_turn_whose_stored_record_cannot_be_read(
    client: Client, app: AlfredApp, document: str, stored: Any
) -> None:
    """A turn in progress whose record (or the session's pointer to it) no longer parses blocks turn_start and
    turn_status; turn_abandon still ends it (a stopped record replaces it) and the next turn starts and runs."""
    started = await call(client, "turn_start", message="what can I cook tonight?")
    turn = started["turn"]
    async with app.work("corrupt") as work:
        assert work.session.read(AGENT_CURRENT_TURN) == turn
        key = AGENT_TURNS.at(turn).key if document == "record" else AGENT_CURRENT_TURN.key
        work.session.write(Document(key, AS_STORED), stored)
        session_id = work.session.record.session_id
    assert (await app.store.load_documents(session_id))[key] == stored  # it is what a restart would load too
    for tool, arguments in (("turn_start", {"message": "hello again"}), ("turn_status", {})):
        stuck = await call_error(client, tool, **arguments)
        assert stuck["code"] == "internal_error", stuck

    abandoned = await call(client, "turn_abandon", reason="its record could not be read")
    assert (abandoned["turn"], abandoned["stage"], abandoned["outcome"]) == (turn, "done", "blocked")
    assert abandoned["expected_role"] is None
    assert abandoned["reply"].endswith("I couldn't finish this: it was stopped before it finished; ask again when you are ready.")
    state = (await call(client, "turn_status"))["state"]
    assert (state["turn"], state["stage"], state["blocked_reason"]) == (turn, "done", "its record could not be read")

    after = await call(client, "turn_start", message="hello again")
    assert (after["turn"], after["stage"], after["expected_role"]) == (turn + 1, "understand", "understand")
    assert (await submit(client, "understand", {}))["expected_role"] == "think"
    assert (await call(client, "turn_status", turn=turn))["state"]["reply"] == abandoned["reply"]


async def test_inside_a_turn_an_allergy_cannot_be_overridden(client: Client, app: AlfredApp) -> None:
    """The demo user is allergic to peanuts. Act's override is refused before anything runs; the plain refusal says
    the override is not Act's to make; the second failure in a row blocks the step and says so."""
    before = len(await app.store.select(TABLES["shopping_list"], Query(), user_id=app.user_id))
    await to_act(client, "add peanut butter to my list", ("write", "Add peanut butter"))
    override = {"allergens": ["peanuts"], "reason": "the user wants it"}
    refused = await submit(client, "act", {"decision": tool("db_create", table="shopping_list", data={"name": "peanut butter"},
                                                            allergy_override=override)})
    assert "db_create was not run" in refused["notice"] and "not available inside a turn" in refused["notice"]
    failed = await submit(client, "act", {"decision": tool("db_create", table="shopping_list", data={"name": "peanut butter"})})
    assert "one more failure blocks the step" in failed["notice"] and "not available inside a turn" in failed["notice"]
    blocked = await submit(client, "act", {"decision": tool("db_create", table="shopping_list", data={"name": "peanut sauce"})})
    assert blocked["outcome"] == "blocked" and "the step is blocked" in blocked["notice"]
    assert len(await app.store.select(TABLES["shopping_list"], Query(), user_id=app.user_id)) == before


async def test_turn_begin_is_refused_while_a_stage_turn_is_open(client: Client) -> None:
    await to_act(client, "show my recipes", ("read", "Read the recipes"))
    turn = (await status(client))["turn"]
    error = await call_error(client, "turn_begin", message="hello")
    assert error["code"] == "out_of_order" and "turn_abandon" in error["message"]
    assert (await status(client))["turn"] == turn and (await status(client))["stage"] == "act"


async def test_a_draft_of_the_step_saved_by_a_direct_call_counts_for_the_step(client: Client) -> None:
    """The step's batch names gen_recipe_1; the client saves it with a plain draft_save between stages: the step
    may complete, its batch item completed as the saved recipe."""
    recipe = {"name": "Quick Cod", "ingredients": [{"name": "cod fillet", "quantity": 2}], "instructions": ["Bake it."]}
    await call(client, "draft_create", entity_type="recipe", items=[recipe])
    await to_write_step_over(client, "save the cod", "gen_recipe_1")
    saved = await call(client, "draft_save", refs=["gen_recipe_1"])
    completed = await submit(client, "act", {"decision": done("saved")})
    assert (completed["stage"], completed["reply"]) == ("answered", "Saved Quick Cod to your recipes."), completed  # the state's account tells it
    batches = (await call(client, "turn_status"))["batches"]
    assert [(item["status"], item["result_ref"]) for item in batches[0]["items"]] == [("completed", saved["items"][0]["saved_as"])]


async def test_a_draft_saved_on_a_retry_completes_the_steps_batch(client: Client) -> None:
    """A save fails for the peanuts; Act revises the draft and saves again (a batch of its own): the step's
    batch item is completed by the retry and the step may complete."""
    satay = {"name": "Skewers", "ingredients": [{"name": "peanut butter", "quantity": 2}], "instructions": ["Grill."]}
    await call(client, "draft_create", entity_type="recipe", items=[satay])
    await to_write_step_over(client, "save the satay", "gen_recipe_1")
    first = await submit(client, "act", {"decision": tool("draft_save", refs=["gen_recipe_1"])})
    assert "gen_recipe_1 failed" in first["notice"]
    await submit(client, "act", {"decision": tool("draft_revise", ref="gen_recipe_1",
                                                  patch={"ingredients": [{"name": "sunflower seed butter", "quantity": 2}]})})
    second = await submit(client, "act", {"decision": tool("draft_save", refs=["gen_recipe_1"])})
    assert "1 of 1 saved" in second["notice"], second
    completed = await submit(client, "act", {"decision": done("saved")})
    assert completed["stage"] == "reply", completed
    batches = (await call(client, "turn_status"))["batches"]
    batch = batches[0]
    assert batch["items"][0]["status"] == "completed" and batch["items"][0]["result_ref"].startswith("recipe_")


async def test_reading_an_item_of_a_write_step_does_not_write_it(client: Client) -> None:
    """A write step's batch item is done by a write, not by a read that returned it: step_complete stays refused."""
    ref = (await call(client, "db_read", table="recipes", limit=1))["rows"][0]["id"]
    await to_write_step_over(client, f"delete {ref}", ref)
    await submit(client, "act", {"decision": tool("db_read", table="recipes", filters=[{"field": "id", "op": "eq", "value": ref}])})
    refused = await submit(client, "act", {"decision": done("deleted")})
    assert "step_complete refused" in refused["notice"] and ref in refused["notice"]
    await submit(client, "act", {"decision": tool("db_delete", table="recipes", filters=[{"field": "id", "op": "eq", "value": ref}])})
    assert (await submit(client, "act", {"decision": done("deleted")}))["stage"] == "answered"  # the state's account tells the removal


@pytest.mark.parametrize("read", [
    pytest.param(tool("db_read", table="recipes", columns=["name", "cuisine"]), id="db_read"),
    pytest.param(tool("recipes_search", category="fish"), id="recipes_search"),
    pytest.param(tool("db_read", table="inventory", limit=30), id="db_read_inventory"),
])
async def test_the_rows_a_notice_shows_are_not_repeated_in_the_next_context(client: Client, read: dict[str, Any]) -> None:
    """After a read, the answer's notice has the rows; Act's next context points to them instead of repeating them,
    and leaves out the entity lines of those refs."""
    await to_act(client, "show me things", ("read", "Read rows"))
    answer = await submit(client, "act", {"decision": read})
    rows = [line for line in answer["notice"].splitlines()[1:] if line.startswith("- ")]
    context = answer["next"]["context"]
    assert rows and answer["next"]["role"] == "act"
    assert not any(line.strip() in rows for line in context.splitlines())
    assert "(rows: as in the notice)" in context
    refs = [row.split()[1] for row in rows]
    assert not any(line.startswith(f"- {ref}: ") for ref in refs for line in context.splitlines())


NOTHING_TO_DO = [
    pytest.param("I'm avoiding gluten for now.",
                 {"constraint_snapshot": {"new_constraints": [{"type": "ingredient_excluded", "field": "gluten", "value": "gluten"}]}},
                 "Got it: I'll leave gluten out of what I suggest for now.", "I added gluten-free pasta to your shopping list.",
                 id="a-constraint-noted"),
    pytest.param("Actually, forget the gluten thing.", {"constraint_snapshot": {"reset_all": True}},
                 "Sure, gluten is back in play.", "I removed the gluten-free pasta from your pantry.", id="a-constraint-dropped"),
    pytest.param("Scale the carbonara to 4 servings.", {}, "The carbonara already serves 4, so its amounts are right as they are.",
                 "I updated the carbonara in your recipes to serve 4.", id="a-request-already-true"),
]


async def _kitchen_counts(app: AlfredApp) -> dict[str, int]:
    return {name: len(await app.store.select(TABLES[name], Query(limit=500), user_id=app.user_id))
            for name in ("recipes", "recipe_ingredients", "shopping_list", "inventory", "meal_plans", "tasks")}


@pytest.mark.parametrize("settled_by", ["think", "understand"])
@pytest.mark.parametrize(("message", "understood", "honest", "false_claim"), NOTHING_TO_DO)
async def test_a_turn_with_nothing_to_do_goes_straight_to_reply_and_changes_nothing(
        client: Client, app: AlfredApp, message: str, understood: dict[str, Any], honest: str, false_claim: str,
        settled_by: str) -> None:
    """Nothing needs doing, said by Think (plan_direct with no steps) or already by Understand (`nothing_to_do`, one
    call fewer): the next role is Reply (no Act), whose context holds the constraints as they now stand, a reply
    claiming a change is refused (no step made one), an honest one ends the turn completed, the next turn's narrative
    says who settled it, and the kitchen is as it was."""
    before = await _kitchen_counts(app)
    await call(client, "turn_start", message=message)
    if settled_by == "understand":
        planned = await submit(client, "understand", {**understood, "nothing_to_do": True, "processed_message": "nothing to change"})
        goal, label = "nothing to change", "noted"
    else:
        await submit(client, "understand", understood)
        planned = await submit(client, "think", {"goal": "acknowledge: nothing to change", "decision": "plan_direct", "steps": []})
        goal, label = "acknowledge: nothing to change", "plan_direct"
    noted = [c["value"] for c in understood.get("constraint_snapshot", {}).get("new_constraints", [])]
    if noted:  # the state's account tells what was noted: the turn is answered, a reply is still taken
        assert (planned["stage"], planned["expected_role"]) == ("answered", None) and "Noted: " in planned["reply"], planned
        context = (await call(client, "turn_context"))["context"]
    else:
        assert (planned["stage"], planned["expected_role"]) == ("reply", "reply")
        context = planned["next"]["context"]
    assert f"Nothing needed doing, so no step ran and nothing changed: {goal}" in context
    whole = (await call(client, "turn_context", full=True))["context"]  # the answer named what the client had already
    assert "## Constraints" in whole and all(value in whole.split("## Constraints", 1)[1] for value in noted)
    refused = await call_error(client, "turn_submit", role="reply", output={"response": false_claim})
    assert "this turn did not do that" in refused["message"] or "but nothing was" in refused["message"]
    finished = await submit(client, "reply", {"response": honest})
    assert (finished["stage"], finished["outcome"], finished.get("reply")) == ("done", "completed", None)  # not echoed
    state = await status(client)
    assert state["steps"] == [] and ("think" in state["model_calls"]) == (settled_by == "think")
    assert await _kitchen_counts(app) == before
    later = await call(client, "turn_start", message="And now?")
    assert f"**Goal:** {goal} ({label})" in later["next"]["context"]


def test_nothing_to_do_and_a_quick_read_contradict_each_other() -> None:
    quick = {"quick_mode": True, "quick_mode_confidence": 0.9, "quick_read": {"tool": "recipes_search", "arguments": {}}}
    with pytest.raises(ValueError, match="nothing_to_do and quick_mode"):
        UnderstandOutput.model_validate({**quick, "nothing_to_do": True})


@pytest.mark.parametrize("snapshot", [
    pytest.param({"new_constraints": [{"type": "ingredient_excluded", "field": "dairy", "value": "dairy"}]}, id="an-exclusion"),
    pytest.param({"new_constraints": [{"type": "time_limit", "field": "total_minutes", "value": 30}],
                  "goal_update": "quick weeknight dinners"}, id="a-goal-with-a-time-limit"),
])
async def test_the_constraints_a_turn_reads_are_shown_once(client: Client, snapshot: dict[str, Any]) -> None:
    """constraints_read's card is the constraints as the state renders them, once (not its structured keys again), the
    answer sends no Reply context (the lookup is answered from the notice), and a Reply without the notice (a re-fetch,
    the bundled loop) has them in its context once."""
    await call(client, "turn_start", message="Note this.")
    await submit(client, "understand", {"constraint_snapshot": snapshot, "nothing_to_do": True})
    await submit(client, "reply", {"response": "Noted."})
    await call(client, "turn_start", message="What are my constraints?")
    answer = await submit(client, "understand", {"quick_mode": True, "quick_mode_confidence": 0.9,
                                                 "quick_read": {"tool": "constraints_read", "arguments": {}}})
    lines = answer["notice"].splitlines()[1:]
    assert lines and all(line.startswith("- ") for line in lines) and len(set(lines)) == len(lines)
    assert "next" not in answer
    sent = answer["notice"]
    whole = (await call(client, "turn_context", full=True))["context"]
    assert all(sent.count(line) == 1 and whole.count(line) == 1 for line in lines), (sent, whole)


DINNERS = (("Chicken Tikka Masala with Basmati Rice", "Chicken Tikka Masala"), ("Lamb Kofta with Tzatziki", "Lamb Kofta"),
           ("Creamy Tuscan Chicken Pasta Bake", "a Tuscan pasta bake"))


@pytest.mark.parametrize("unsaved", ["(not saved yet)", "I haven't saved them.", "I can save them if you like."])
async def test_drafts_named_together_and_said_unsaved_without_the_word_draft_pass_a_save_claimed_does_not(
        client: Client, unsaved: str) -> None:
    """Issue 24: three drafts generated, none saved: 'Here are three fish-free dinners …' with any way of saying they are not
    saved is the reply; 'I saved the three dinners' is refused, naming the drafts left unsaved."""
    await to_act(client, "three fish-free dinners", ("generate", "Draft three dinners"))
    recipes = [{"name": name, "ingredients": [{"name": "chicken thighs", "quantity": 2}], "instructions": ["Cook it."]}
               for name, _ in DINNERS]
    await submit(client, "act", {"decision": tool("draft_create", entity_type="recipe", items=recipes)})
    await submit(client, "act", {"decision": done()})
    names = ", ".join(short for _, short in DINNERS)
    refused = await call_error(client, "turn_submit", role="reply", output={"response": f"I saved the three dinners: {names}."})
    assert "are not saved yet" in refused["message"] and "gen_recipe_3" in refused["message"]
    finished = await submit(client, "reply", {"response": f"Here are three fish-free dinners: {names}. {unsaved}"})
    assert finished["stage"] == "done"


async def test_what_already_was_said_as_it_stands_passes_and_said_as_this_turns_doing_does_not(client: Client) -> None:
    """Issue 24: a turn that wrote nothing may say 'Saturday already has … planned'; 'Saturday now has …' is refused."""
    await to_act(client, "what is on saturday?", ("read", "Read Saturday's dinner"))
    await submit(client, "act", {"decision": tool("db_read", table="meal_plans")})
    await submit(client, "act", {"decision": done()})
    refused = await call_error(client, "turn_submit", role="reply", output={"response": "Saturday now has Chicken Fajitas."})
    assert "it says 'now has' on meal plans" in refused["message"]
    finished = await submit(client, "reply", {"response": "Saturday already has Chicken Fajitas planned; it stays planned."})
    assert finished["stage"] == "done"
