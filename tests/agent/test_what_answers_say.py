"""What a reply's context, a step's notices and quick answers say is true of the turn: one batch per save, no step
shown running once its turn ended, a filtered read never called the whole table, a meal without its recipe said so,
a cut read saying how many it shows, table nouns agreeing with their count, an undo counting each row once, rows
said apart from what they came from, and a done batch item named by what was done to it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from e2e.helpers import call, eq
from mcp import Client

from alfred_mcp.agent.act_tools import VERBS, is_write, summarize_result
from alfred_mcp.agent.quick_answer import quick_answer
from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.plurals import counted_name
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.operations.removals import Removal
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.state.batch import BatchManifest

from .test_quick_answers import quick

pytestmark = pytest.mark.anyio
WHOLE_TABLE_HEADS = ("In your pantry,", "On your shopping list,", "Your meal plan has", "You have ", "You cooked ")


@pytest.fixture
async def one_client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected


async def submit(client: Client, role: str, output: dict[str, Any]) -> dict[str, Any]:
    return await call(client, "turn_submit", role=role, output=output)


def act(tool: str | None = None, **arguments: Any) -> dict[str, Any]:
    if tool is None:
        return {"decision": {"action": "step_complete", "result_summary": "done"}}
    return {"decision": {"action": "tool_call", "tool": tool, "arguments": arguments}}


# -- quick answers ------------------------------------------------------------------------------------------------

QUICK_TABLES = ["inventory", "shopping_list", "recipes", "meal_plans", "tasks", "recipe_ingredients", "ingredients", "cooking_log"]


@pytest.mark.parametrize("table", QUICK_TABLES)
async def test_a_filtered_quick_read_says_what_matched_never_the_whole_table(app: AlfredApp, table: str) -> None:
    whole = await quick(app, {"table": table, "limit": 1})
    assert whole.quick_result is not None
    rows = whole.quick_result["rows"]
    only = {"field": "id", "op": "eq", "value": rows[0]["id"]} if rows else {"field": "id", "op": "is_null", "value": True}
    found = await quick(app, {"table": table, "filters": [only]})
    reply = found.reply or ""
    assert not reply.startswith(WHOLE_TABLE_HEADS), reply
    assert ("matched" in reply or reply.startswith("I found")) if rows else reply.startswith(("Nothing matched", "No ")), reply
    if rows:
        assert "matched" not in (whole.reply or ""), "an unfiltered read may speak of the whole table"


@pytest.mark.parametrize("meal_type", ["breakfast", "lunch", "dinner", "snack"])
@pytest.mark.parametrize("recipe", [None, "Spaghetti Carbonara"])
@pytest.mark.parametrize("filtered", [False, True])
def test_a_meal_says_its_recipe_or_that_it_has_none(meal_type: str, recipe: str | None, filtered: bool) -> None:
    row = {"id": "meal_1", "date": "2026-11-28", "meal_type": meal_type, "recipe_id": "recipe_3" if recipe else None,
           **({"recipe_id_label": recipe} if recipe else {}), "notes": "double the potatoes"}
    reply = quick_answer({"table": "meal_plans", "rows": [row]}, filters=[{"field": "id", "op": "eq", "value": "meal_1"}] if filtered else ())
    head = "One meal matched in your meal plan" if filtered else "Your meal plan has one meal"
    assert reply == f"{head}: Sat Nov 28, {meal_type}: {recipe or 'no recipe'} (double the potatoes)."


@pytest.mark.parametrize(("limit", "shown"), [(None, 20), (1, 1), (3, 3)])
async def test_a_quick_read_cut_at_its_limit_says_how_many_it_shows(app: AlfredApp, limit: int | None, shown: int) -> None:
    read = {"table": "inventory", **({"limit": limit} if limit else {})}
    state = await quick(app, read)
    assert state.quick_result is not None and state.quick_result["truncated"] and len(state.quick_result["rows"]) == shown
    first = "That is the first one" if shown == 1 else f"Those are the first {shown}"
    assert (state.reply or "").endswith(f"{first}; there are more, ask to see the rest."), state.reply


@pytest.mark.parametrize("limit", [25, 50, 100])
async def test_a_quick_read_shows_every_row_it_read_up_to_the_limit_asked(app: AlfredApp, limit: int) -> None:
    """'What is still to buy?' with a limit of 50 names every line read, never '...and 5 more' it cannot show."""
    state = await quick(app, {"table": "inventory", "limit": limit})
    assert state.quick_result is not None
    rows = state.quick_result["rows"]
    assert len(rows) > 20 and all(row["name"] in (state.reply or "") for row in rows)
    assert "more." not in (state.reply or "").splitlines()[-1] or state.quick_result["truncated"]


# -- table nouns agree with their count ------------------------------------------------------------------------------

@pytest.mark.parametrize("table", sorted(TABLES))
@pytest.mark.parametrize("count", [1, 2, 10])
def test_every_table_noun_agrees_with_its_count(table: str, count: int) -> None:
    noun = counted_name(TABLES[table].noun, count)
    assert not noun.endswith(("ys", "ss")) and noun.endswith("s") == (count > 1), noun
    question = Removal(table, count, 0, ("a",), "db_delete").question()
    assert f"remove {count} {noun} " in question, question
    if table != "preferences":
        empty = quick_answer({"table": table, "rows": []})
        assert empty.startswith("Nothing ") or empty == f"No {counted_name(TABLES[table].noun, 2)}.", empty


# -- batch items by what was done ------------------------------------------------------------------------------------

WRITE_ACTIONS = sorted({VERBS[tool] for tool in VERBS if is_write(tool)} | {"saved", "updated", "deleted", "undone"})


@pytest.mark.parametrize("action", WRITE_ACTIONS)
@pytest.mark.parametrize(("ref", "became"), [("task_6", "task_6"), ("gen_recipe_1", "recipe_9")])
def test_a_done_batch_item_is_named_by_what_was_done_to_it(action: str, ref: str, became: str) -> None:
    manifest = BatchManifest.new("batch_1", "tasks", [(ref, "Move the cod"), ("task_7", "Buy bread")], action=action)
    manifest.mark_completed(ref, became)
    manifest.mark_failed("task_7", "it was deleted")
    done, failed = manifest.items
    assert manifest.shown(done) == action + (f" -> {became}" if became != ref else "")
    assert "completed" not in manifest.shown(done)
    assert manifest.shown(failed) == "failed: it was deleted"


# -- one save, one batch ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("drafts", [1, 2])
@pytest.mark.parametrize("one_at_a_time", [False, True])
async def test_one_save_is_reported_as_one_batch(one_client: Client, drafts: int, one_at_a_time: bool) -> None:
    """Drafts generated then saved in one turn: the reply's context has the write step's one batch, every draft in it."""
    await call(one_client, "turn_start", message="make cod recipes and save them")
    await submit(one_client, "understand", {})
    steps = [{"description": "Draft", "step_type": "generate", "subdomain": "recipes", "expected_count": drafts},
             {"description": "Save", "step_type": "write", "subdomain": "recipes"}]
    await submit(one_client, "think", {"goal": "x", "decision": "plan_direct", "steps": steps})
    recipes = [{"name": f"Cod No {n}", "ingredients": [{"name": "cod fillet", "quantity": 2}], "instructions": ["Bake it."]}
               for n in range(1, drafts + 1)]
    await submit(one_client, "act", act("draft_create", entity_type="recipe", items=recipes))
    await submit(one_client, "act", act())
    refs = [f"gen_recipe_{n}" for n in range(1, drafts + 1)]
    for group in ([[ref] for ref in refs] if one_at_a_time else [refs]):
        await submit(one_client, "act", act("draft_save", refs=group))
    answer = await submit(one_client, "act", act())
    context = answer["next"]["context"] if "next" in answer else (await call(one_client, "turn_context"))["context"]  # answered by the state
    batches = [line for line in context.splitlines() if line.startswith("Batch ")]
    assert batches == [f"Batch batch_1: {drafts} of {drafts} saved"], context


# -- no step shown running once the turn ended -----------------------------------------------------------------------

async def test_a_step_stopped_by_asking_the_user_is_not_shown_running(one_client: Client) -> None:
    await call(one_client, "turn_start", message="mark the cod task done")
    await submit(one_client, "understand", {})
    steps = [{"description": "Read the tasks", "step_type": "read", "subdomain": "tasks"},
             {"description": "Mark it done", "step_type": "write", "subdomain": "tasks"}]
    await submit(one_client, "think", {"goal": "x", "decision": "plan_direct", "steps": steps})
    await submit(one_client, "act", act("db_read", table="tasks", limit=3))
    await submit(one_client, "act", act())
    asked = await submit(one_client, "act", {"decision": {"action": "ask_user", "question": "Which task?"}})
    assert (asked["stage"], asked["outcome"]) == ("done", "ask_user")
    state = (await call(one_client, "turn_status"))["state"]
    assert [step["status"] for step in state["steps"]] == ["completed", "stopped"]
    narratives = await one_client.read_resource("alfred://session/current/narratives")
    told = json.loads(narratives.contents[0].text)
    turn = told["current"]  # the turn that asked is the session's last
    assert [(step["status"], step["outcome"]) for step in turn["steps"]] == [("done", "done"), ("stopped", "stopped to ask the user")]
    assert "running" not in json.dumps(told), told


# -- what a call did, said plainly -----------------------------------------------------------------------------------

def _writes(open_tasks: list[str], done_task: str) -> dict[str, tuple[str, dict[str, Any], int]]:
    return {
        "a new row": ("db_create", {"table": "shopping_list", "data": {"name": "eggs", "quantity": 12}}, 1),
        "an updated row": ("db_update", {"table": "tasks", "filters": [eq("id", open_tasks[0])], "data": {"completed": True}}, 1),
        "two updated rows": ("db_update", {"table": "tasks", "filters": [{"field": "id", "op": "in", "value": open_tasks[:2]}],
                                           "data": {"completed": True}}, 2),
        "an update that changed nothing": ("db_update", {"table": "tasks", "filters": [eq("id", done_task)], "data": {"completed": True}}, 0),
        "a deleted row": ("db_delete", {"table": "shopping_list", "filters": [eq("id", "shop_1")]}, 1),
    }


@pytest.mark.parametrize("case", ["a new row", "an updated row", "two updated rows", "an update that changed nothing", "a deleted row"])
async def test_an_undo_counts_each_row_it_changed_once(one_client: Client, case: str) -> None:
    """`changed` is how many rows the undo changed, each once (an update's row is not counted twice, before and after)."""
    open_tasks = [row["id"] for row in (await call(one_client, "db_read", table="tasks", filters=[eq("completed", False)]))["rows"]]
    done_task = (await call(one_client, "db_read", table="tasks", filters=[eq("completed", True)], limit=1))["rows"][0]["id"]
    await call(one_client, "db_read", table="shopping_list", limit=5)
    tool, arguments, rows = _writes(open_tasks, done_task)[case]
    await call(one_client, tool, **arguments)
    undone = await call(one_client, "kitchen_undo")
    said = len(undone["removed"]) + len(undone["restored"]) + len(undone["reverted"]) + len(undone["unlinked"]) + len(undone["relinked"])
    assert undone["changed"] == rows == said, undone


def test_rows_written_are_said_apart_from_the_recipes_they_came_from() -> None:
    for recipes in (["recipe_3"], ["recipe_3", "recipe_4"]):
        for lines in (1, 17):
            result = {"lines": [{"ref": f"shop_{n}"} for n in range(1, lines + 1)], "recipes": recipes, "covered": [], "meals": 0}
            said = summarize_result("shopping_list_from", result)
            assert said.startswith(f"shopping_list_from: {lines} added to the shopping list from {', '.join(recipes)}: shop_1"), said
            assert said.count("recipe_") == len(recipes)
