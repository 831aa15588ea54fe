"""A removal says what it touched beyond its own rows, on every backend: the rows deleted with it (`cascaded`)
and the rows it left pointing at nothing (`unlinked`: a meal without its recipe, a task, a variation, an open
shopping line naming it), in db_delete's result, in Act's notice, and in what the Reply check holds a reply to.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from e2e.helpers import call, call_error, eq
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client

from alfred_mcp.agent.act_tools import unlinked_words
from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPES, SHOPPING_LIST, TASKS
from alfred_mcp.operations.unlinking import name_words, names_it
from alfred_mcp.server.mcp_server import build_server

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    """The real MCP client on that app."""
    async with Client(build_server(app)) as connected:
        yield connected


async def _planned_recipe(client: Client) -> dict[str, Any]:
    """Carbonara, planned for Saturday's dinner, with a task, a variation and shopping lines (one open, one bought)."""
    (recipe,) = (await call(client, "db_create", table="recipes", data={"name": "Carbonara", "servings": 2}))["rows"]
    await call(client, "db_create", table="recipe_ingredients", data=[
        {"recipe_id": recipe["id"], "position": 1, "name": "spaghetti", "quantity": 200, "unit": "g"},
        {"recipe_id": recipe["id"], "position": 2, "name": "guanciale", "quantity": 100, "unit": "g"}])
    (meal,) = (await call(client, "db_create", table="meal_plans",
                          data={"date": "2030-01-05", "meal_type": "dinner", "recipe_id": recipe["id"], "servings": 2}))["rows"]
    (task,) = (await call(client, "db_create", table="tasks", data={"title": "Buy eggs", "recipe_id": recipe["id"]}))["rows"]
    (variation,) = (await call(client, "db_create", table="recipes",
                               data={"name": "Carbonara with peas", "parent_recipe_id": recipe["id"]}))["rows"]
    lines = (await call(client, "shopping_list_from", recipes=[recipe["id"]]))["lines"]
    (bought,) = (await call(client, "db_create", table="shopping_list",
                            data={"name": "pecorino", "source": "Carbonara", "is_purchased": True}))["rows"]
    return {"recipe": recipe["id"], "meal": meal["id"], "task": task["id"], "variation": variation["id"],
            "lines": [line["ref"] for line in lines], "bought": bought["id"]}


def _expected_unlinked(kitchen: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {("meal_plans", kitchen["meal"], "recipe_id"), ("tasks", kitchen["task"], "recipe_id"),
            ("recipes", kitchen["variation"], "parent_recipe_id"), *(("shopping_list", ref, "source") for ref in kitchen["lines"])}


async def test_deleting_a_planned_recipe_names_the_emptied_meal_and_every_row_left_pointing_at_it(
    client: Client, app: AlfredApp
) -> None:
    kitchen = await _planned_recipe(client)
    deleted = await call(client, "db_delete", table="recipes", filters=[eq("id", kitchen["recipe"])])
    assert [row["id"] for row in deleted["rows"]] == [kitchen["recipe"]]
    assert deleted["cascaded"] == [{"table": "recipe_ingredients", "count": 2}]
    assert {(u["table"], u["ref"], u["column"]) for u in deleted["unlinked"]} == _expected_unlinked(kitchen)
    assert {u["was"] for u in deleted["unlinked"]} == {kitchen["recipe"]}
    meal = next(u for u in deleted["unlinked"] if u["table"] == "meal_plans")
    assert meal["label"].endswith("[dinner]") and "Jan 5" in meal["label"]
    assert kitchen["bought"] not in {u["ref"] for u in deleted["unlinked"]}  # a bought line is done with
    store, user = app.store, app.user_id
    assert [m["recipe_id"] for m in await store.select(MEAL_PLANS, Query(), user_id=user)] == [None]
    assert [t["recipe_id"] for t in await store.select(TASKS, Query(), user_id=user)] == [None]
    variation = await store.select(RECIPES, Query(where=Where(all_of=(Filter("name", "eq", "Carbonara with peas"),))), user_id=user)
    assert [r["parent_recipe_id"] for r in variation] == [None]
    open_lines = await store.select(SHOPPING_LIST, Query(where=Where(all_of=(Filter("is_purchased", "eq", False),))), user_id=user)
    assert {line["source"] for line in open_lines} == {"Carbonara (for 2)"}  # the lines stay, still naming it (for its 2 servings)

    undone = await call(client, "kitchen_undo")
    assert [item["ref"] for item in undone["restored"]] == [kitchen["recipe"]] and undone["unlinked"] == []
    (meal_row,) = (await call(client, "db_read", table="meal_plans", filters=[eq("id", kitchen["meal"])]))["rows"]
    assert meal_row["recipe_id"] == kitchen["recipe"]


async def test_acts_notice_and_the_reply_check_name_the_meal_a_delete_left_without_its_recipe(client: Client) -> None:
    kitchen = await _planned_recipe(client)
    await call(client, "turn_start", message="delete the carbonara")
    await call(client, "turn_submit", role="understand", output={"referenced_refs": [kitchen["recipe"]]})
    plan = {"goal": "Delete the carbonara", "decision": "plan_direct", "steps": [
        {"description": f"Delete {kitchen['recipe']}", "step_type": "write", "subdomain": "recipes",
         "batch": [{"ref": kitchen["recipe"]}]}]}
    await call(client, "turn_submit", role="think", output=plan)
    acted = await call(client, "turn_submit", role="act", output={"decision": {
        "action": "tool_call", "tool": "db_delete", "arguments": {"table": "recipes", "filters": [eq("id", kitchen["recipe"])]}}})
    notice = acted["notice"]
    assert "Deleted with them: 2 recipe_ingredients" in notice
    for table, ref, _column in _expected_unlinked(kitchen):
        assert ref in notice, f"Act's notice leaves out {table} {ref}"
    assert f"{kitchen['meal']} " in notice and "recipe_id is now empty (was " + kitchen["recipe"] + ")" in notice
    await call(client, "turn_submit", role="act", output={"decision": {"action": "step_complete", "result_summary": "deleted"}})
    reply_context = await call(client, "turn_context", full=True)
    assert kitchen["meal"] in reply_context["context"]

    refused = await call_error(client, "turn_submit", role="reply", output={"response": "Deleted the carbonara."})
    assert kitchen["meal"] in refused["message"] and "pointing at nothing" in refused["message"]
    done = await call(client, "turn_submit", role="reply", output={
        "response": "Deleted the carbonara. Saturday's dinner is now without a recipe, and two shopping lines still name it."})
    assert done["stage"] == "done" and "reply" not in done  # the model wrote it: not echoed
    ledger = (await call(client, "turn_status"))["state"]["ledger"]  # the summary leaves out refs the notice showed
    assert {e["ref"] for e in ledger["entities_unlinked"]} == {ref for _, ref, _ in _expected_unlinked(kitchen)}



# --- the mirror: undoing a removal says what it linked again -------------------------------------------------

CHILD_ROWS: dict[tuple[str, str], dict[str, Any]] = {
    ("meal_plans", "recipe_id"): {"date": "2030-01-05", "meal_type": "dinner"},
    ("tasks", "recipe_id"): {"title": "Buy eggs"},
    ("recipes", "parent_recipe_id"): {"name": "Carbonara with peas"},
    ("cooking_log", "recipe_id"): {"cooked_at": "2030-01-04T19:00:00Z", "servings": 2},
    ("tasks", "meal_plan_id"): {"title": "Thaw the fish"},
    ("cooking_log", "from_meal_plan_id"): {"cooked_at": "2030-01-05T19:00:00Z", "servings": 2},
}
"""A row of each table that can point at a removable row (its reference cleared when that row goes)."""
PARENT_ROWS = {"recipes": {"name": "Carbonara", "servings": 2}, "meal_plans": {"date": "2030-01-05", "meal_type": "dinner"}}
REMOVABLE = [name for name in PARENT_ROWS]


def test_every_reference_a_removal_clears_has_a_row_here() -> None:
    """A new set-null reference to a table a user removes from is covered by the undo test below, or this fails."""
    from alfred_mcp.kitchen.schema import TABLES, children_of

    cleared = {(child.name, column.name) for parent in TABLES.values() if parent.name != "ingredients"
               for child, column in children_of(parent.name) if column.fk is not None and column.fk.on_delete == "set_null"}
    assert cleared == set(CHILD_ROWS) and {column.fk.table for t in TABLES.values() for column in t.fk_columns
                                          if column.fk and (t.name, column.name) in cleared} == set(REMOVABLE)


@pytest.mark.parametrize("parent", REMOVABLE)
async def test_undoing_a_removal_names_every_row_it_linked_again(client: Client, app: AlfredApp, parent: str) -> None:
    """Delete a row that others point at, then undo: the result, Act's notice, the call log and the state's own
    reply name each row pointing at the restored row again (the mirror of the delete's `unlinked`)."""
    from alfred_mcp.agent.act_tools import result_card
    from alfred_mcp.kitchen.schema import children_of

    (row,) = (await call(client, "db_create", table=parent, data=PARENT_ROWS[parent]))["rows"]
    children = {}
    for child, column in children_of(parent):
        if (child.name, column.name) in CHILD_ROWS:
            (made,) = (await call(client, "db_create", table=child.name,
                                  data={**CHILD_ROWS[(child.name, column.name)], column.name: row["id"]}))["rows"]
            children[made["id"]] = (child.name, column.name)
    deleted = await call(client, "db_delete", table=parent, filters=[eq("id", row["id"])])
    assert {u["ref"] for u in deleted["unlinked"] if u["column"] != "source"} == set(children)

    undone = await call(client, "kitchen_undo")
    assert {(r["table"], r["ref"], r["column"], r["now"]) for r in undone["relinked"]} == \
        {(table, ref, column, row["id"]) for ref, (table, column) in children.items()}
    assert all(r["label"] for r in undone["relinked"])
    for ref, (table, column) in children.items():
        (now,) = (await call(client, "db_read", table=table, filters=[eq("id", ref)]))["rows"]
        assert now[column] == row["id"]
    notice = result_card("kitchen_undo", {}, undone)
    assert "Pointing at what was restored again" in notice and all(ref in notice for ref in children)


async def test_an_undo_inside_a_turn_names_the_meal_it_gave_its_recipe_back_to(client: Client) -> None:
    """'Bring it back' after deleting a planned recipe: Act's notice, the Reply context and the turn's summary name
    the meal whose recipe is set again."""
    kitchen = await _planned_recipe(client)
    await call(client, "db_delete", table="recipes", filters=[eq("id", kitchen["recipe"])])
    await call(client, "turn_start", message="bring the carbonara back")
    await call(client, "turn_submit", role="understand", output={"referenced_refs": []})
    plan = {"goal": "Restore the carbonara", "decision": "plan_direct", "steps": [
        {"description": "Undo the delete of the carbonara", "step_type": "write", "subdomain": "recipes"}]}
    await call(client, "turn_submit", role="think", output=plan)
    acted = await call(client, "turn_submit", role="act", output={"decision": {"action": "tool_call", "tool": "kitchen_undo", "arguments": {}}})
    relinked = {kitchen["meal"], kitchen["task"], kitchen["variation"]}
    assert "Pointing at what was restored again (3; tell the user)" in acted["notice"]
    assert all(f"{ref} " in acted["notice"] for ref in relinked) and f"recipe_id is {kitchen['recipe']} again" in acted["notice"]
    await call(client, "turn_submit", role="act", output={"decision": {"action": "step_complete", "result_summary": "restored"}})
    reply_context = (await call(client, "turn_context", full=True))["context"]
    assert "Pointing at what the undo restored again" in reply_context and kitchen["meal"] in reply_context
    done = await call(client, "turn_submit", role="reply", output={
        "response": "I brought the carbonara back, and Saturday's dinner has its recipe again."})
    assert done["stage"] == "done"
    ledger = (await call(client, "turn_status"))["state"]["ledger"]  # the summary leaves out refs the notice showed
    assert {e["ref"] for e in ledger["entities_relinked"]} == relinked


NOTED = [
    ("leftover Greek chicken and potatoes", "2030-01-06", True),
    ("Greek lemon chicken, reheated", "2030-01-07", True),
    ("double the potatoes for lunch leftovers", "2030-01-08", False),
    ("use up the chicken", "2030-01-09", False),
    ("leftover Greek chicken and potatoes", "2020-01-06", False),
]


async def test_deleting_a_recipe_names_the_meals_to_come_whose_notes_name_it_as_maybe_stale(client: Client) -> None:
    """'leftover Greek chicken and potatoes' on Sunday's lunch names the deleted 'Greek Lemon Chicken and Potatoes' by
    its words: the delete's unlinked list (what to tell the user) has it, its notes left as they are; a note naming
    too few of its words, or a meal in the past, is not listed."""
    (recipe,) = (await call(client, "db_create", table="recipes", data={"name": "Greek Lemon Chicken and Potatoes"}))["rows"]
    meals = {}
    for notes, day, _named in NOTED:
        (meal,) = (await call(client, "db_create", table="meal_plans", data={"date": day, "meal_type": "lunch", "notes": notes}))["rows"]
        meals[(notes, day)] = meal["id"]
    deleted = await call(client, "db_delete", table="recipes", filters=[eq("id", recipe["id"])])
    noted = {u["ref"]: u for u in deleted["unlinked"] if u["column"] == "notes"}
    assert set(noted) == {meals[(notes, day)] for notes, day, named in NOTED if named}
    assert all(u["table"] == "meal_plans" and u["was"] == recipe["id"] for u in noted.values())
    kept = (await call(client, "db_read", table="meal_plans", filters=[eq("id", meals[NOTED[0][:2]])]))["rows"]
    assert kept[0]["notes"] == NOTED[0][0]


@given(st.lists(st.sampled_from(["greek", "lemon", "chicken", "potatoes", "fajitas", "rice", "soup", "miso"]), min_size=1, max_size=5,
                unique=True), st.sampled_from(["leftover", "reheat the", "", "half of the"]))
def test_notes_name_a_recipe_by_most_of_its_words_and_the_notice_says_they_may_be_stale(words: list[str], lead: str) -> None:
    name = " ".join(word.capitalize() for word in words)
    assert names_it(f"{lead} {name.lower()}", name_words(name)), "notes holding the whole name name it"
    if len(words) >= 2:
        assert not names_it(f"{lead} {words[0]}", name_words(name)), "one word of a longer name does not"
    entry = {"table": "meal_plans", "ref": "meal_1", "label": "Sun Nov 29 [lunch]", "column": "notes", "was": "recipe_3"}
    assert unlinked_words(entry) == "its notes name recipe_3: they may be stale"
