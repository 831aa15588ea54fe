"""A reply sent ahead (the last output of `then`), through the real client on seeded kitchens.

It is applied where the turn expects Reply, after the planned calls ran, and judged by the reply check exactly as a
submitted reply: accepted, a turn whose outcome the model knows (a write, a constraint noted) is one call and leaves the
kitchen as the same outputs submitted one by one; refused, Reply is expected with the results in `next`, the try
counted; not applied when the turn does not expect Reply then (a step waits for Act), a call warned of what the
model could not know, or all it leaves out is what the calls' results revealed (a removal's emptied meal). A reply anywhere but last is an error that changes nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from e2e.conftest import SeededKitchens
from e2e.helpers import call, call_error, eq
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.server.tools.stage_view import ANSWERED, SEND_AHEAD
from alfred_mcp.state.refs import refs_in

from .kitchen_digest import digest_changes, kitchen_digest
from .recorded import Recording, Replays, load_recordings, same_replay
from .scripts import constraint, plan, recipe, reply, step
from .sent_ahead_replay import RepliesAhead, replay_sent_ahead, same_kitchens
from .test_sent_ahead import ALREADY, ASKS_REPLY, LOOKUP, PEPPER, PEPPER_OUTPUTS, WAITS_FOR_ACT, _sent

pytestmark = pytest.mark.anyio

Outputs = list[tuple[str, dict[str, Any]]]


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected


async def _first_row(client: Client, table: str, *filters: dict[str, Any]) -> dict[str, Any]:
    """A row read with a plain tool call, so the session has given its ref (as a model reading first would have)."""
    rows = (await call(client, "db_read", table=table, filters=list(filters), limit=1))["rows"]
    return dict(rows[0])


def _understood(message: str) -> tuple[str, dict[str, Any]]:
    return "understand", {"processed_message": message}


def _write(goal: str, subdomain: str, tool: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    return "think", plan(goal, step("write", goal, subdomain, call={"tool": tool, "arguments": arguments}))


@dataclass(frozen=True)
class WriteTurn:
    """A turn whose outcome the model knows before the calls run: its message and outputs (Reply's last), given the
    client (which may read or write first, as the turn's setting), and the kitchen's tables the turn changes."""

    outputs: Callable[[Client], Awaitable[tuple[str, Outputs]]]
    changes: frozenset[str] = frozenset()


async def _shopping(client: Client) -> tuple[str, Outputs]:
    return PEPPER, PEPPER_OUTPUTS


async def _task_done(client: Client) -> tuple[str, Outputs]:
    task = await _first_row(client, "tasks", eq("completed", False))
    return f"I did '{task['title']}'", [
        _understood("mark the task done"),
        _write("Mark the task done", "tasks", "db_update", table="tasks", filters=[eq("id", task["id"])], data={"completed": True}),
        ("reply", reply(f"Marked '{task['title']}' as done.")),
    ]


async def _pantry_removed(client: Client) -> tuple[str, Outputs]:
    item = await _first_row(client, "inventory", eq("location", "pantry"))
    return f"I'm out of {item['name']}", [
        _understood(f"remove {item['name']} from the pantry"),
        _write("Remove it from the pantry", "inventory", "db_delete", table="inventory", filters=[eq("id", item["id"])]),
        ("reply", reply(f"Removed {item['name']} from your pantry.")),
    ]


async def _meal_planned(client: Client) -> tuple[str, Outputs]:
    dish = await _first_row(client, "recipes")
    return f"Plan {dish['name']} for dinner on 5 January 2099", [
        _understood("plan a recipe for a dinner"),
        _write("Plan the dinner", "meal_plans", "db_create", table="meal_plans",
               data={"date": "2099-01-05", "meal_type": "dinner", "recipe_id": dish["id"], "servings": 2}),
        ("reply", reply(f"{dish['name']} is planned for dinner on 5 January 2099.")),
    ]


async def _constraint_noted(client: Client) -> tuple[str, Outputs]:
    noted = {"constraint_snapshot": {"new_constraints": [constraint("ingredient_excluded", "dairy", "dairy")],
                                     "source_phrases": ["no dairy from now on"]}, "nothing_to_do": True}
    return "No dairy from now on.", [("understand", noted), ("reply", reply("Got it: no dairy from now on."))]


async def _nothing_planned(client: Client) -> tuple[str, Outputs]:
    return "Thanks, that's all for now", [_understood("thanks"), ("think", plan("Nothing to do")),
                                          ("reply", reply("You're welcome!"))]


async def _drafted_and_saved(client: Client) -> tuple[str, Outputs]:
    dish = recipe("Lemon Pepper Cod", "cod fillet", "black pepper")
    steps = [step("generate", "Draft the recipe", expected_count=1,
                  call={"tool": "draft_create", "arguments": {"entity_type": "recipe", "items": [dish]}}),
             step("write", "Save it", call={"tool": "draft_save", "arguments": {"refs": ["gen_recipe_1"]}})]
    return "Write me a lemon pepper cod recipe and save it", [
        _understood("create and save a cod recipe"), ("think", plan("Create and save a cod recipe", *steps)),
        ("reply", reply("Saved Lemon Pepper Cod to your recipes.")),
    ]


async def _act_ahead(client: Client) -> tuple[str, Outputs]:
    call_of = {"action": "tool_call", "tool": "db_create", "complete_step": True,
               "arguments": {"table": "shopping_list", "data": {"name": "capers", "quantity": 1, "unit": "jar"}}}
    return "Put capers on my shopping list", [
        _understood("add capers to the shopping list"), ("think", plan("Add capers", step("write", "Add capers", "shopping"))),
        ("act", {"decision": call_of}), ("reply", reply("Added capers to your shopping list.")),
    ]


async def _analyzed(client: Client) -> tuple[str, Outputs]:
    return "Which is quicker, the salmon or the risotto?", [
        _understood("compare two recipes' times"), ("think", plan("Compare", step("analyze", "Compare their times"))),
        ("act", {"decision": {"action": "step_complete", "result_summary": "the salmon is quicker"}}),
        ("reply", reply("The salmon is the quicker one.")),
    ]


async def _listed_for_a_recipe(client: Client) -> tuple[str, Outputs]:
    dish = await _first_row(client, "recipes", {"field": "name", "op": "ilike", "value": "%carbonara%"})
    return f"Put what {dish['name']} needs on my list", [
        _understood("add a recipe's ingredients to the shopping list"),
        _write("Add what it needs", "shopping", "shopping_list_from", recipes=[dish["id"]]),
        ("reply", reply(f"Added what {dish['name']} needs, less what your pantry has, to your shopping list.")),
    ]


async def _cooked(client: Client) -> tuple[str, Outputs]:
    """A recipe made of what the pantry holds (in its units), so the model knows the cook takes all of it."""
    held = (("pearl barley", "cup"), ("tahini", "tbsp"))
    for name, unit in held:
        await call(client, "db_create", table="inventory", data={"name": name, "quantity": 4, "unit": unit, "location": "pantry"})
    parts = [{"name": name, "quantity": 1, "unit": unit} for name, unit in held]
    drafted = await call(client, "draft_create", entity_type="recipe", items=[{**recipe("Pantry Bowl", "rice"), "ingredients": parts}])
    saved = await call(client, "draft_save", refs=[drafted["drafts"][0]["ref"]])
    dish = saved["items"][0]["saved_as"]
    return "We cooked the pantry bowl", [
        _understood("log the recipe as cooked"), _write("Log it as cooked", "history", "meal_cooked", recipe=dish),
        ("reply", reply("Logged Pantry Bowl as cooked.")),
    ]


async def _undone(client: Client) -> tuple[str, Outputs]:
    await call(client, "db_create", table="shopping_list", data={"name": "anchovies", "quantity": 1, "unit": "tin"})
    return "Undo that", [_understood("undo the last change"), _write("Undo it", "shopping", "kitchen_undo"),
                         ("reply", reply("Undone: anchovies is no longer on your shopping list."))]


WRITE_TURNS = {
    "a shopping line added (db_create)": WriteTurn(_shopping, frozenset({"shopping_list"})),
    "a task marked done (db_update)": WriteTurn(_task_done, frozenset({"tasks"})),
    "a pantry item removed (db_delete)": WriteTurn(_pantry_removed, frozenset({"inventory"})),
    "a meal planned (db_create with a ref)": WriteTurn(_meal_planned, frozenset({"meal_plans"})),
    "a constraint noted (Understand's nothing_to_do)": WriteTurn(_constraint_noted),
    "nothing to do (Think's empty plan)": WriteTurn(_nothing_planned),
    "a draft made and saved (generate, then write)": WriteTurn(_drafted_and_saved, frozenset({"recipes", "recipe_ingredients"})),
    "Act's call sent ahead too (Understand, Think, Act, Reply)": WriteTurn(_act_ahead, frozenset({"shopping_list"})),
    "an analyze step Act completes ahead": WriteTurn(_analyzed),
    "a recipe's needs listed (shopping_list_from)": WriteTurn(_listed_for_a_recipe, frozenset({"shopping_list"})),
    "a planned meal cooked (meal_cooked)": WriteTurn(_cooked, frozenset({"cooking_log", "inventory"})),
    "the last write undone (kitchen_undo)": WriteTurn(_undone, frozenset({"shopping_list"})),
}


async def _one_by_one(client: Client, message: str, outputs: Outputs) -> int:
    """The turn driven one output per call, as a client not sending ahead does; its number of calls."""
    answer = await call(client, "turn_start", message=message)
    for role, output in outputs:
        assert answer["expected_role"] == role or (role == "reply" and answer["stage"] == "answered"), answer  # a reply is still taken
        answer = await call(client, "turn_submit", role=role, output=output)
    assert answer["expected_role"] is None and answer["outcome"] == "completed", answer
    return 1 + len(outputs)


@pytest.mark.parametrize("case", WRITE_TURNS.values(), ids=WRITE_TURNS.keys())
async def test_a_turn_whose_outcome_the_model_knows_is_one_call_with_its_reply_sent_ahead(
        case: WriteTurn, tmp_path: Path, seeded_kitchens: SeededKitchens) -> None:
    """The same outputs, all in turn_start's `then`, and one by one on a copy of the same kitchen: one call instead of
    one per role, the same kitchen, the reply on record as the model's; the answer carries what the calls did (their
    rows, the ledger), never Reply's instructions."""
    (tmp_path / "ahead").mkdir(), (tmp_path / "one").mkdir()
    async with seeded_kitchens.copy(tmp_path / "ahead", date.today()) as ahead, \
            seeded_kitchens.copy(tmp_path / "one", date.today()) as one, \
            Client(build_server(ahead)) as client_ahead, Client(build_server(one)) as client_one:
        message, outputs = await case.outputs(client_ahead)
        before = kitchen_digest(tmp_path / "ahead" / "kitchen.db")
        answer = await call(client_ahead, "turn_start", message=message, then=_sent(outputs))
        state = (await call(client_ahead, "turn_status"))["state"]
        calls_one_by_one = await _one_by_one(client_one, *(await case.outputs(client_one)))
    assert answer["expected_role"] is None and answer["outcome"] == "completed", answer
    assert "next" not in answer and "refused" not in answer and "not_applied" not in answer and "reply" not in answer
    assert state["reply"] == outputs[-1][1]["response"] and state["reply_source"] == "model"
    assert state["model_calls"] == {role: 1 for role, _ in outputs} and not state["invalid_outputs"]
    if any(role == "think" and output["steps"] for role, output in outputs):
        assert answer["summary"]["steps_completed"] == answer["summary"]["steps_total"]
    if any("call" in item for role, output in outputs if role == "think" for item in output["steps"]) or \
            any(role == "act" and output["decision"]["action"] == "tool_call" for role, output in outputs):
        assert answer["notice"], "the answer shows what the calls did"
    listed = {thing["ref"] for key, things in answer.get("summary", {}).items() if key.startswith(("entities_", "artifacts_"))
              for thing in things}
    assert not listed & refs_in(answer.get("notice") or ""), "the summary repeats things the notice shows"
    kitchen = kitchen_digest(tmp_path / "ahead" / "kitchen.db")
    assert kitchen == kitchen_digest(tmp_path / "one" / "kitchen.db"), digest_changes(kitchen_digest(tmp_path / "one" / "kitchen.db"), kitchen)
    assert set(digest_changes(before, kitchen)) == case.changes and calls_one_by_one == 1 + len(outputs)


async def test_a_reply_sent_ahead_with_turn_submit_completes_the_turn_in_that_call(client: Client) -> None:
    await call(client, "turn_start", message=PEPPER)
    answer = await call(client, "turn_submit", role="understand", output=PEPPER_OUTPUTS[0][1], then=_sent(PEPPER_OUTPUTS[1:]))
    assert answer["expected_role"] is None and answer["outcome"] == "completed" and "black pepper" in answer["notice"]


async def _read(client: Client, tool: str, **arguments: Any) -> tuple[dict[str, Any], int]:
    """A call's answer and the bytes its model reads (the text content, as the benchmarks count them)."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error
    return dict(result.structured_content or {}), len("".join(b.text for b in result.content if b.type == "text").encode())


async def test_a_turn_completed_ahead_reads_fewer_bytes_than_its_reply_submitted_after_the_results(
        tmp_path: Path, seeded_kitchens: SeededKitchens) -> None:
    """After a first turn (the instructions sent), the same write turn: its one answer with the reply ahead carries the
    rows written and is smaller than the two answers of the reply submitted after them (Reply's `next`, then the end)."""
    (tmp_path / "ahead").mkdir(), (tmp_path / "after").mkdir()
    salt = [(role, {**output, "response": "Added sea salt to your shopping list."} if role == "reply" else output)
            for role, output in PEPPER_OUTPUTS]
    salt[1] = _write("Add sea salt", "shopping", "db_create", table="shopping_list", data={"name": "sea salt", "quantity": 1, "unit": "jar"})
    async with seeded_kitchens.copy(tmp_path / "ahead", date.today()) as ahead, \
            seeded_kitchens.copy(tmp_path / "after", date.today()) as after, \
            Client(build_server(ahead)) as client_ahead, Client(build_server(after)) as client_after:
        for client in (client_ahead, client_after):
            await call(client, "turn_start", message=PEPPER, then=_sent(PEPPER_OUTPUTS))
        done, ahead_bytes = await _read(client_ahead, "turn_start", message="And sea salt", then=_sent(salt))
        started, started_bytes = await _read(client_after, "turn_start", message="And sea salt", then=_sent(salt[:2]))
        ended, ended_bytes = await _read(client_after, "turn_submit", role="reply", output=salt[2][1])
    assert done["expected_role"] is None and started["stage"] == "answered" and ended["expected_role"] is None
    assert "sea salt" in done["notice"] and "instructions" not in str(done)
    assert ahead_bytes < started_bytes + ended_bytes, (ahead_bytes, started_bytes, ended_bytes)


async def test_reply_instructions_say_once_how_to_send_it_ahead(client: Client) -> None:
    """The first time Reply is expected in a session, with its instructions: a model learns it there, where it
    writes a reply, and sends the next one ahead."""
    await call(client, "turn_start", message=PEPPER, then=_sent(PEPPER_OUTPUTS[:2]))  # the state's account tells it: answered
    first = await call(client, "turn_start", message=PEPPER, then=_sent(ASKS_REPLY))  # nothing written to tell: Reply
    assert SEND_AHEAD["reply"] in first["next"]["instructions"]
    await call(client, "turn_submit", role="reply", output=ALREADY)
    later = await call(client, "turn_start", message=PEPPER, then=_sent(ASKS_REPLY))
    assert later["next"]["role"] == "reply" and "instructions" not in later["next"]


CLAIMS_MORE = reply("Added black pepper and cumin to your shopping list.")


async def test_a_reply_sent_ahead_claiming_what_did_not_happen_is_refused_and_reply_is_expected_with_the_results(
        client: Client) -> None:
    """The refusal says what to fix, as a submit's; the try counts; Reply's `next` shows what the calls did and nothing
    else of Reply's context (the model wrote the reply knowing it), so a proper reply submitted after it completes the
    turn."""
    answer = await call(client, "turn_start", message=PEPPER, then=_sent([*PEPPER_OUTPUTS[:2], ("reply", CLAIMS_MORE)]))
    refused = answer["refused"]
    assert answer["expected_role"] == "reply" and answer["next"]["role"] == "reply"
    assert refused["field"] == "then[2].output" and refused["attempt"] == 1 and refused["attempts_left"] == 2
    assert "'cumin' was added" in refused["message"] and "black pepper" in answer["notice"]
    headings = [line for line in answer["next"]["context"].splitlines() if line.startswith("## ")]
    assert headings == ["## What happened this turn"], answer["next"]["context"]  # only what the fix needs, sent again
    done = await call(client, "turn_submit", role="reply", output=PEPPER_OUTPUTS[2][1])
    assert done["expected_role"] is None and done["outcome"] == "completed"
    state = (await call(client, "turn_status"))["state"]
    assert state["reply"] == PEPPER_OUTPUTS[2][1]["response"] and state["invalid_outputs"] == {"reply": 1}
    assert state["model_calls"]["reply"] == 2


async def test_a_refused_reply_sent_ahead_counts_as_a_try_as_a_submitted_one_does(client: Client) -> None:
    """Ahead, then submitted: the third refusal ends the turn with the state's own reply, as three submits would."""
    first = await call(client, "turn_start", message=PEPPER, then=_sent([*PEPPER_OUTPUTS[:2], ("reply", CLAIMS_MORE)]))
    assert first["refused"]["attempt"] == 1
    second = await call_error(client, "turn_submit", role="reply", output=CLAIMS_MORE)
    assert second["attempt"] == 2 and second["message"] == first["refused"]["message"]
    last = await call(client, "turn_submit", role="reply", output=CLAIMS_MORE)
    assert last["expected_role"] is None and "refused 3 times" in last["notice"]
    state = (await call(client, "turn_status"))["state"]
    assert state["reply_source"] == "fallback" and state["invalid_outputs"] == {"reply": 3}


async def test_a_reply_sent_ahead_on_an_outcome_the_model_guessed_wrong_is_refused_and_the_results_show_why(client: Client) -> None:
    """A recipe whose needs the pantry covers: a reply ahead saying they were added is refused (nothing was), and Reply's
    `next` carries what the call found, so the reply written from it completes the turn."""
    recipes = (await call(client, "db_read", table="recipes", columns=["name"], limit=50))["rows"]
    previews = {dish["id"]: await call(client, "shopping_list_from", recipes=[dish["id"]], preview=True) for dish in recipes}
    covered = next(dish for dish in recipes if not previews[dish["id"]].get("added"))
    outputs = [_understood("add a recipe's needs to the shopping list"),
               _write("Add what it needs", "shopping", "shopping_list_from", recipes=[covered["id"]]),
               ("reply", reply(f"Added what {covered['name']} needs to your shopping list."))]
    answer = await call(client, "turn_start", message=f"Put what {covered['name']} needs on my list", then=_sent(outputs))
    assert answer["expected_role"] == "reply" and "nothing was added" in answer["refused"]["message"]
    assert "shopping_list_from" in answer["notice"] and answer["next"]["role"] == "reply"
    done = await call(client, "turn_submit", role="reply", output=reply(f"Your pantry already covers {covered['name']}: nothing to add."))
    assert done["expected_role"] is None and done["outcome"] == "completed"


async def _deleting_a_planned_recipe(client: Client, said: str) -> tuple[dict[str, Any], dict[str, Any], Outputs]:
    """A planned recipe's deletion sent ahead with a reply saying `said` ('{name}' for the recipe's name): the meal, the
    recipe and the outputs."""
    meal = await _first_row(client, "meal_plans", {"field": "recipe_id", "op": "is_null", "value": False})
    dish = await _first_row(client, "recipes", eq("id", meal["recipe_id"]))
    return meal, dish, [_understood("delete a recipe"),
                        _write("Delete the recipe", "recipes", "db_delete", table="recipes", filters=[eq("id", dish["id"])]),
                        ("reply", reply(said.format(name=dish["name"])))]


async def test_a_reply_sent_ahead_that_leaves_out_only_a_removals_emptied_meal_is_applied_with_the_states_sentence_for_it(
        client: Client) -> None:
    """A planned recipe deleted leaves its meal without a recipe, which only the deletion's result shows: a reply ahead
    saying only the deletion could not know it, so the state's sentence for what the removal left pointing at nothing is
    appended (names, no refs; `model+state`) and the turn ends in that one call, no try counted against the model."""
    meal, dish, outputs = await _deleting_a_planned_recipe(client, "Deleted {name}.")
    answer = await call(client, "turn_start", message=f"Delete {dish['name']}", then=_sent(outputs))
    assert answer["expected_role"] is None and "not_applied" not in answer and "refused" not in answer, answer
    state = (await call(client, "turn_status"))["state"]
    assert state["reply_source"] == "model+state" and state["reply"].startswith(f"Deleted {dish['name']}. "), state["reply"]
    assert "no longer linked to what is gone" in state["reply"] and not refs_in(state["reply"]), state["reply"]
    assert answer["reply"] == state["reply"] and not state["invalid_outputs"]


async def test_a_reply_sent_ahead_that_already_tells_a_removals_emptied_meal_is_applied_as_sent(client: Client) -> None:
    """The same deletion with a reply ahead that says the dinner now has no recipe, in a past passive of how the recipe
    stood ('it was planned for …'): nothing is appended, the reply is the model's."""
    meal, dish, outputs = await _deleting_a_planned_recipe(
        client, "Deleted {name}. Heads-up: it was planned for dinner, so that dinner now has no recipe.")
    answer = await call(client, "turn_start", message=f"Delete {dish['name']}", then=_sent(outputs))
    assert answer["expected_role"] is None and "not_applied" not in answer and "refused" not in answer, answer
    state = (await call(client, "turn_status"))["state"]
    assert state["reply_source"] == "model" and state["reply"] == outputs[-1][1]["response"], state


async def test_a_reply_sent_ahead_that_also_claims_what_did_not_happen_is_refused_as_before(client: Client) -> None:
    """Leaving out the emptied meal is the results' news, but claiming a write that was not made is untrue whatever the
    results: refused, its try counted, naming both."""
    meal, dish, outputs = await _deleting_a_planned_recipe(client, "Deleted {name} and added eggs to your shopping list.")
    answer = await call(client, "turn_start", message=f"Delete {dish['name']}", then=_sent(outputs))
    refused = answer["refused"]
    assert answer["expected_role"] == "reply" and refused["field"] == "then[2].output" and refused["attempt"] == 1, answer
    assert "it leaves out what the removal left pointing at nothing" in refused["message"] and "eggs" in refused["message"]


async def test_a_reply_sent_ahead_after_a_failed_save_that_does_not_name_the_failure_is_refused(
        client: Client, app: AlfredApp) -> None:
    """One of three saves fails on a real constraint: the step completes with it failed, draft_save warns of it so the
    reply ahead is not applied, and the same reply submitted, saying only what was saved, is refused naming the failure;
    one naming it completes the turn."""
    with sqlite3.connect(app.settings.db) as connection:
        connection.execute("CREATE TRIGGER refuse_poison BEFORE INSERT ON recipe_ingredients WHEN NEW.name = 'poison' "
                           "BEGIN SELECT RAISE(ABORT, 'poison is not an ingredient'); END")
    dishes = [recipe("Lemon Pepper Cod", "cod fillet"), recipe("Herb Salmon", "salmon fillet", "poison"),
              recipe("Chili Lime Tilapia", "tilapia fillet")]
    steps = [step("generate", "Draft three fish recipes", expected_count=3,
                  call={"tool": "draft_create", "arguments": {"entity_type": "recipe", "items": dishes}}),
             step("write", "Save them", call={"tool": "draft_save", "arguments": {"refs": ["gen_recipe_1", "gen_recipe_2", "gen_recipe_3"]}})]
    outputs = [_understood("create and save three fish recipes"), ("think", plan("Create and save", *steps)),
               ("reply", reply("Saved Lemon Pepper Cod and Chili Lime Tilapia."))]
    answer = await call(client, "turn_start", message="Make me three fish recipes and save them", then=_sent(outputs))
    assert answer["expected_role"] == "reply", answer
    assert answer["not_applied"] == ["then[2] reply: not applied: draft_save warned (see the notice), so the reply is written knowing it"]
    refused = await call_error(client, "turn_submit", role="reply", output=outputs[-1][1])
    assert "it leaves out gen_recipe_2 (Herb Salmon), which failed" in refused["message"], refused
    named = reply("Saved Lemon Pepper Cod and Chili Lime Tilapia; Herb Salmon could not be saved (an ingredient was refused).")
    done = await call(client, "turn_submit", role="reply", output=named)
    assert done["expected_role"] is None and done["outcome"] == "completed"


NOT_EXPECTING_REPLY: dict[str, tuple[Outputs, str | None, str]] = {
    "a step waits for Act (its call failed)": (
        [_understood("show a recipe"), ("think", plan("Show the recipe", step("read", "Show recipe_999", call={
            "tool": "recipe_show", "arguments": {"recipe": "recipe_999"}})))], "act", WAITS_FOR_ACT),
    "Understand asks the user": (
        [("understand", {"needs_clarification": True, "clarification_questions": ["Which list: shopping or pantry?"]})],
        None, "not applied: the turn is done (it asks the user a question)"),
    "Think proposes first": (
        [_understood("plan the week"), ("think", {"goal": "Plan the week", "decision": "propose",
                                                 "proposal_message": "Shall I plan five dinners?"})],
        None, "not applied: the turn is done (it asks the user to confirm a proposal)"),
    "Act stopped the turn (blocked)": (
        [_understood("add capers"), ("think", plan("Add capers", step("write", "Add capers", "shopping"))),
         ("act", {"decision": {"action": "blocked", "reason": "the list cannot be reached", "reason_code": "insufficient_info"}})],
        None, "not applied: the turn is done (it ended blocked)"),
    "a table's quick read answered it": (
        [("understand", {"quick_mode": True, "quick_mode_confidence": 0.95, "quick_read": {"table": "tasks", "limit": 3}})],
        None, "not applied: the turn is done (the quick read answered it)"),
}


@pytest.mark.parametrize("case", NOT_EXPECTING_REPLY.values(), ids=NOT_EXPECTING_REPLY.keys())
async def test_a_reply_sent_ahead_where_the_turn_does_not_expect_reply_is_not_applied_and_no_try_is_counted(
        client: Client, case: tuple[Outputs, str | None, str]) -> None:
    outputs, expected, why = case
    answer = await call(client, "turn_start", message="Do the thing", then=_sent([*outputs, ("reply", reply("Done."))]))
    assert answer["expected_role"] == expected and answer.get("next", {}).get("role") == expected
    assert answer["not_applied"] == [f"then[{len(outputs)}] reply: {why}"] and "refused" not in answer
    state = (await call(client, "turn_status"))["state"]
    assert "reply" not in state["model_calls"] and not state["invalid_outputs"] and state["reply"] != "Done."


async def _double_booking(client: Client, said: str) -> Outputs:
    """Outputs planning another recipe for a dinner already planned (the write warns), with `said` as the reply ahead."""
    meals = (await call(client, "meal_plan_show"))["meals"]
    booked = next(meal for meal in meals if meal["meal_type"] == "dinner" and meal["recipe"])
    other = next(meal["recipe"] for meal in meals if meal["recipe"] and meal["recipe"] != booked["recipe"])
    outputs = [("understand", {"referenced_refs": [other]}),
               _write("Plan it for that dinner", "meal_plans", "db_create", table="meal_plans",
                      data={"date": booked["date"], "meal_type": "dinner", "recipe_id": other}),
               ("reply", reply(said))]
    return outputs


async def test_a_reply_sent_ahead_after_a_call_that_warned_is_applied_with_the_warning_told(client: Client) -> None:
    """A meal planned where that day's dinner is planned is warned of: the model wrote its reply without knowing, so
    the state's sentence for the warning (names, no refs) is appended and the turn ends with both (`model+state`)."""
    outputs = await _double_booking(client, "It's planned.")
    answer = await call(client, "turn_start", message="Plan that recipe for that dinner", then=_sent(outputs))
    assert answer["expected_role"] is None and "not_applied" not in answer and "Warnings (" in answer["notice"], answer
    state = (await call(client, "turn_status"))["state"]
    assert state["reply_source"] == "model+state" and state["reply"].startswith("It's planned. "), state["reply"]
    assert "already had" in state["reply"] and "both are planned now" in state["reply"] and not refs_in(state["reply"])
    assert answer["reply"] == state["reply"]  # the client's model reads what was added to its reply


async def test_a_reply_sent_ahead_that_already_tells_the_warning_in_its_own_words_is_applied_as_sent(client: Client) -> None:
    """The model foresaw the double booking and told it in its own words (the day and the recipe already there): the
    state's sentence for it is not appended again."""
    meals = (await call(client, "meal_plan_show"))["meals"]
    booked = next(meal for meal in meals if meal["meal_type"] == "dinner" and meal["recipe"])
    name = (await _first_row(client, "recipes", eq("id", booked["recipe"])))["name"]
    said = f"It's planned. {name} was already planned for {date.fromisoformat(booked['date']):%A} dinner, so that day has two dinners."
    outputs = await _double_booking(client, said)
    answer = await call(client, "turn_start", message="Plan that recipe for that dinner", then=_sent(outputs))
    assert answer["expected_role"] is None and "not_applied" not in answer and "Warnings (" in answer["notice"], answer
    state = (await call(client, "turn_status"))["state"]
    assert state["reply"].startswith(said) and "already had" not in state["reply"], state["reply"]


async def test_a_reply_sent_ahead_with_a_false_claim_after_a_call_that_warned_is_held_back_as_ever(client: Client) -> None:
    """The sentences are appended only to a reply the check accepts with them: one claiming what did not happen is not
    applied, Reply asked, as before."""
    outputs = await _double_booking(client, "It's planned, and I added the eggs to your shopping list.")
    answer = await call(client, "turn_start", message="Plan that recipe for that dinner", then=_sent(outputs))
    assert answer["expected_role"] == "reply" and answer["next"]["role"] == "reply", answer
    assert answer["not_applied"] == ["then[2] reply: not applied: db_create warned (see the notice), so the reply is written knowing it"]
    state = (await call(client, "turn_status"))["state"]
    assert "reply" not in state["model_calls"] and state["reply"] is None


LOOKUPS: dict[str, Outputs] = {
    "Understand's quick read with a tool": [("understand", LOOKUP)],
    "a one-step read plan": [_understood("list the fish recipes"), ("think", plan("List fish recipes", step(
        "read", "Search fish recipes", "recipes", call={"tool": "recipes_search", "arguments": {"category": "fish"}})))],
    "two read steps": [_understood("the fish recipes and the pantry"), ("think", plan(
        "Fish recipes and pantry",
        step("read", "Search fish recipes", "recipes", call={"tool": "recipes_search", "arguments": {"category": "fish"}}),
        step("read", "Read the pantry", "inventory", call={"tool": "db_read", "arguments": {"table": "inventory", "limit": 5}})))],
}


@pytest.mark.parametrize("outputs", LOOKUPS.values(), ids=LOOKUPS.keys())
async def test_a_reply_sent_ahead_of_a_lookup_is_not_applied_and_the_turn_is_answered_from_the_rows(
        client: Client, outputs: Outputs) -> None:
    """A model cannot know rows it has not read, and the reply check does not judge what a reply says of them: a reply
    sent ahead of a turn that only read is not applied; the answer's notice shows the rows, and the turn is answered
    from them (no reply needed)."""
    answer = await call(client, "turn_start", message="What fish recipes do I have?",
                        then=_sent([*outputs, ("reply", reply("You have three fish recipes."))]))
    assert answer["stage"] == "answered" and answer["expected_role"] is None and answer["answered"] == ANSWERED, answer
    assert "next" not in answer
    assert answer["not_applied"] == [f"then[{len(outputs)}] reply: not applied: the turn only read; tell the user from "
                                     "the rows (see the notice); no reply is needed"]
    assert "Cod" in answer["notice"] and "refused" not in answer
    state = (await call(client, "turn_status"))["state"]
    assert "reply" not in state["model_calls"] and state["reply"] is None


NOT_LAST = {
    "turn_start": ("turn_start", {"message": PEPPER, "then": _sent([PEPPER_OUTPUTS[0], PEPPER_OUTPUTS[2], PEPPER_OUTPUTS[1]])},
                   "then[1].role"),
    "turn_submit's then": ("turn_submit", {"role": "understand", "output": PEPPER_OUTPUTS[0][1],
                                           "then": _sent([PEPPER_OUTPUTS[2], PEPPER_OUTPUTS[1]])}, "then[0].role"),
    "after turn_submit's reply": ("turn_submit", {"role": "reply", "output": PEPPER_OUTPUTS[2][1],
                                                  "then": _sent(PEPPER_OUTPUTS[:1])}, "then"),
}


@pytest.mark.parametrize("bad", NOT_LAST.values(), ids=NOT_LAST.keys())
async def test_an_output_after_a_reply_is_an_error_naming_it_and_changes_nothing(client: Client, bad: tuple[str, dict[str, Any], str]) -> None:
    tool, arguments, field = bad
    if tool == "turn_submit":
        await call(client, "turn_start", message=PEPPER)
    before = (await call(client, "turn_status"))["state"]
    error = await call_error(client, tool, **arguments)
    assert error["field"] == field and "reply" in error["message"] and "Nothing was applied" in error["message"]
    assert (await call(client, "turn_status"))["state"] == before


DRIVEN_WITH_THEN = [recording for recording in load_recordings()
                    if recording.name.startswith(("r3_", "r4_")) and not recording.plain]
"""The rounds whose models sent outputs ahead (round 4's replies too)."""


@pytest.mark.parametrize("recording", same_replay(DRIVEN_WITH_THEN))
async def test_a_recorded_conversation_with_its_replies_sent_ahead_reaches_the_same_kitchen_in_fewer_calls(
        recording: Recording, tmp_path: Path, seeded_kitchens: SeededKitchens, recorded_replays: Replays) -> None:
    """Each turn's recorded reply sent ahead with the turn's other outputs (sent_ahead_replay.py): every turn leaves
    the kitchen as the recording did, no turn takes more calls, each reply ahead accepted saves its call, a refused
    or passed-over one is submitted as recorded, and one its model had sent ahead and had applied is replayed as
    recorded."""
    replies = RepliesAhead()
    one_by_one, ahead = await replay_sent_ahead(recording, tmp_path, seeded_kitchens, replies=replies,
                                              replayed=await recorded_replays.of(recording))
    for turn, recorded, sent in same_kitchens(recording, one_by_one, ahead):
        expected = recorded.calls - (1 if turn.label in replies.accepted else 0)
        assert sent.calls <= expected, f"{turn.label}: {sent.calls} calls with the reply ahead, {recorded.calls} as recorded"
        if turn.label in replies.ahead_as_recorded:
            assert sent.calls == recorded.calls and turn.label not in replies.accepted + replies.not_applied + replies.refused
    assert replies.accepted or replies.ahead_as_recorded, replies


async def _cooked_short(client: Client) -> tuple[str, Outputs, str]:
    """A recipe cooked whose ingredients the pantry lacks one of: its outputs, and the ingredient not taken."""
    recipes = (await call(client, "db_read", table="recipes", columns=["name"], limit=50))["rows"]
    for dish in recipes:
        shown = await call(client, "shopping_list_from", recipes=[dish["id"]], preview=True)
        if shown.get("lines"):
            missing = shown["lines"][0]["name"]
            return dish["id"], [_understood("log a recipe as cooked"),
                                _write("Log it as cooked", "history", "meal_cooked", recipe=dish["id"]),
                                ("reply", reply("Logged it as cooked and took what it used out of your pantry."))], missing
    raise AssertionError("every recipe is covered by the pantry")


async def test_a_reply_sent_ahead_of_a_cook_that_could_not_take_an_ingredient_is_held_back_and_must_name_it(
        client: Client) -> None:
    """meal_cooked that cannot take an ingredient out of the pantry warns of it (a structured warning naming it): the reply
    sent ahead is not applied; a reply telling the cook as whole ('took what it used') or leaving the ingredient out is
    refused naming it; one naming it completes the turn."""
    recipe_ref, outputs, missing = await _cooked_short(client)
    answer = await call(client, "turn_start", message="I cooked it", then=_sent(outputs))
    assert answer["expected_role"] == "reply" and "Warnings (" in answer["notice"] and missing in answer["notice"], answer
    assert answer["not_applied"] == ["then[2] reply: not applied: meal_cooked warned (see the notice), so the reply is written knowing it"]
    refused = await call_error(client, "turn_submit", role="reply", output=outputs[-1][1])
    assert f"it leaves out {missing}" in refused["message"] and "as if all was done" in refused["message"], refused
    state = (await call(client, "turn_status"))["state"]
    short = [found["label"] for step in state["steps"] for made in step["tool_calls"] for found in made["shortfalls"]]
    assert missing in short, short
    done = await call(client, "turn_submit", role="reply", output=reply(
        f"Logged it as cooked. I took the rest out of your pantry, but not {', '.join(short)}: your pantry had not enough."))
    assert done["expected_role"] is None and done["outcome"] == "completed", done


async def test_an_undo_that_reopens_a_draft_applies_the_reply_sent_ahead_with_the_states_sentence_for_the_draft(
        client: Client) -> None:
    """Undoing a save removes the recipe and leaves its draft open again, unsaved, which only the undo's result shows: the
    reply sent ahead is applied with the state's sentence for the draft kept (`model+state`)."""
    saved = [_understood("create and save a dip"), ("think", plan("Create and save a dip", step(
        "generate", "Draft the dip", expected_count=1,
        call={"tool": "draft_create", "arguments": {"entity_type": "recipe", "items": [recipe("Smoky Bean Dip", "black beans")]}}),
        step("write", "Save it", call={"tool": "draft_save", "arguments": {"refs": ["gen_recipe_1"]}}))),
        ("reply", reply("Saved Smoky Bean Dip to your recipes."))]
    assert (await call(client, "turn_start", message="Make a bean dip and save it", then=_sent(saved)))["outcome"] == "completed"
    gone = reply("Undone: Smoky Bean Dip is no longer in your recipes.")
    outputs = [_understood("undo the save"), _write("Undo it", "recipes", "kitchen_undo"), ("reply", gone)]
    answer = await call(client, "turn_start", message="Undo that", then=_sent(outputs))
    assert answer["expected_role"] is None and "not_applied" not in answer and "refused" not in answer, answer
    state = (await call(client, "turn_status"))["state"]
    assert state["reply_source"] == "model+state" and state["reply"] == f"{gone['response']} Kept Smoky Bean Dip as a draft, not saved.", state


def _day(iso: str) -> str:
    return date.fromisoformat(iso).strftime("%A")


async def _completed(answer: dict[str, Any]) -> None:
    assert answer["expected_role"] is None and answer["outcome"] == "completed" and "refused" not in answer, answer


async def test_a_reply_describing_a_planned_meal_as_it_stands_now_is_accepted_on_a_read_turn(client: Client) -> None:
    """Round 4, a1 t1: 'instead of the Miso-Glazed Salmon planned now' describes the meal, it claims no plan."""
    meal = await _first_row(client, "meal_plans", {"field": "recipe_id", "op": "is_null", "value": False})
    dish = await _first_row(client, "recipes", eq("id", meal["recipe_id"]))
    outputs = [_understood("suggest another dinner"), ("think", plan("Suggest", step(
        "read", "Read the recipes", "recipes", call={"tool": "db_read", "arguments": {"table": "recipes", "limit": 5}})))]
    answer = await call(client, "turn_start", message="Something else for that dinner?", then=_sent(outputs))
    assert answer["stage"] == "answered" and answer["expected_role"] is None, answer  # a reply is still accepted
    await _completed(await call(client, "turn_submit", role="reply", output=reply(
        f"- {_day(meal['date'])}: Spaghetti Carbonara, instead of the {dish['name']} planned now.\n\nNothing is changed yet.")))


async def test_a_recipe_deleted_then_its_meal_described_and_its_cause_told_a_turn_later_are_accepted(client: Client) -> None:
    """Round 4, a4 t3 and b1 t3: after a planned recipe is deleted, "Thursday's dinner is now planned without a recipe"
    says what the meal holds since; the next turn, 'since its recipe was deleted' tells the earlier turn's doing."""
    meal = await _first_row(client, "meal_plans", {"field": "recipe_id", "op": "is_null", "value": False})
    dish = await _first_row(client, "recipes", eq("id", meal["recipe_id"]))
    day = _day(meal["date"])
    outputs = [_understood("delete a recipe"),
               _write("Delete the recipe", "recipes", "db_delete", table="recipes", filters=[eq("id", dish["id"])]),
               ("reply", reply(f"Deleted: {dish['name']} is no longer in your recipes. {day}'s dinner is now planned without a recipe."))]
    await _completed(await call(client, "turn_start", message=f"Delete {dish['name']}", then=_sent(outputs)))
    asked = [("understand", {"referenced_refs": [meal["id"]], "processed_message": "what happened to that dinner",
                             "nothing_to_do": True}),
             ("reply", reply(f"{day}'s dinner is still on your plan, but since its recipe was deleted it now has no recipe."))]
    await _completed(await call(client, "turn_start", message=f"What happened to {day}'s dinner?", then=_sent(asked)))


async def test_a_recap_of_an_earlier_removal_with_a_meal_described_beside_it_is_accepted_and_naming_another_recipe_refused(
        client: Client) -> None:
    """Round 6, b1 t3: the turn after a planned recipe is deleted, the user asks what happened; "Sunday lunch, planned as
    its leftovers, has no recipe either" describes a meal (no plan claimed) and "The X was deleted" recaps the earlier
    turn's doing in a turn that wrote nothing. The same recap naming a recipe no turn deleted is refused, naming it."""
    meal = await _first_row(client, "meal_plans", {"field": "recipe_id", "op": "is_null", "value": False})
    dish = await _first_row(client, "recipes", eq("id", meal["recipe_id"]))
    other = await _first_row(client, "recipes", {"field": "id", "op": "neq", "value": meal["recipe_id"]})
    day = _day(meal["date"])
    outputs = [_understood("delete a recipe"),
               _write("Delete the recipe", "recipes", "db_delete", table="recipes", filters=[eq("id", dish["id"])]),
               ("reply", reply(f"Deleted {dish['name']}: {day}'s dinner is now planned without a recipe."))]
    await _completed(await call(client, "turn_start", message=f"Delete {dish['name']}", then=_sent(outputs)))

    def recap(name: str) -> dict[str, Any]:
        return reply(f"{day}'s dinner is still on your plan, but it has no recipe now. The {name} was deleted. "
                     f"The next day's lunch, planned as its leftovers, has no recipe either.")

    asked = [("understand", {"referenced_refs": [meal["id"]], "processed_message": "what happened to that dinner",
                             "nothing_to_do": True})]
    wrong = await call(client, "turn_start", message=f"Wait, what happened to {day}'s dinner then?",
                       then=_sent([*asked, ("reply", recap(other["name"]))]))
    assert "refused" in wrong and wrong["expected_role"] == "reply" and other["name"] in str(wrong["refused"]), wrong
    assert "it says 'planned'" not in str(wrong["refused"]), wrong  # the meal described beside it claims no plan
    await _completed(await call(client, "turn_submit", role="reply", output=recap(dish["name"])))


async def test_a_reply_telling_an_update_by_the_column_it_cleared_is_accepted_and_by_one_it_did_not_is_refused(
        client: Client) -> None:
    """Round 4, b1 t4: db_update set a meal's recipe and its notes to null; "I also cleared Saturday's old note" tells it.
    The same update's reply saying the meal's date was cleared is refused."""
    meal = await _first_row(client, "meal_plans", {"field": "recipe_id", "op": "is_null", "value": False})
    other = await _first_row(client, "recipes", {"field": "id", "op": "neq", "value": meal["recipe_id"]})
    day = _day(meal["date"])
    update = _write("Plan another recipe", "meal_plans", "db_update", table="meal_plans", filters=[eq("id", meal["id"])],
                    data={"recipe_id": other["id"], "notes": None})
    wrong = await call(client, "turn_start", message="Plan something else for it", then=_sent(
        [_understood("another recipe for that meal"), update, ("reply", reply(f"{day}'s dinner is now {other['name']}. I also cleared {day}'s old date."))]))
    assert "refused" in wrong and wrong["expected_role"] == "reply", wrong
    await _completed(await call(client, "turn_submit", role="reply",
                                output=reply(f"{day}'s dinner is now {other['name']}. I also cleared {day}'s old note.")))


async def test_a_reply_saying_a_dropped_restriction_was_dropped_is_accepted_after_the_reset(client: Client) -> None:
    """Round 4, b4 t3: the user drops the goal ('forget the gluten thing'); "I've dropped that restriction" tells it. The
    same words on a turn that dropped nothing are refused."""
    stated = {"constraint_snapshot": {"new_constraints": [constraint("ingredient_excluded", "gluten", "gluten")],
                                      "goal_update": "gluten-free dinners", "source_phrases": ["no gluten"]}, "nothing_to_do": True}
    said = reply("Okay: I've dropped that restriction, so pasta is fair game again.")
    early = await call(client, "turn_start", message="No gluten please.", then=_sent([("understand", stated), ("reply", said)]))
    assert "refused" in early, early
    await _completed(await call(client, "turn_submit", role="reply", output=reply("Got it: no gluten.")))
    dropped = {"constraint_snapshot": {"reset_all": True, "source_phrases": ["forget the gluten thing"]}, "nothing_to_do": True,
               "processed_message": "drop the no-gluten constraint"}
    await _completed(await call(client, "turn_start", message="Actually, forget the gluten thing.",
                                then=_sent([("understand", dropped), ("reply", said)])))
