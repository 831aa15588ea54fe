"""A write driven stage by stage ends without a Reply call when the state's own account tells it whole, through the real
client on seeded kitchens.

For every write tool Act may call, a turn whose plan makes that call (sent ahead in turn_start) ends `answered` with the
state's account in `reply` when no call failed or warned and the reply check accepts the account; a call that warned or
failed asks for Reply as ever. A reply submitted anyway is checked and kept; the next turn_start closes the turn with the
account as its reply (`reply_source: state`), and the conversation reads it.

The account reads like a person wrote it: sentences per table and action, no brackets, no table names in parentheses, no
"Done:", each fact once (repeated reasons grouped), meals named by recipe and slot, a cook logged as such, and the result's
partial outcomes (a recipe still planned, what the pantry covers) told once.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import date, timedelta
from typing import Any

import pytest
from e2e.helpers import call, eq
from mcp import Client

from alfred_mcp.agent.account_words import meal_words
from alfred_mcp.agent.act_tools import tools_for_step
from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.dates import day_text
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.server.tools.stage_view import ANSWERED_BY_STATE
from alfred_mcp.state.refs import refs_in

from .scripts import plan, reply, step
from .test_lookup_answered import LEMON_COD, _recipe
from .test_sent_ahead import _sent

pytestmark = pytest.mark.anyio

Setup = Callable[[Client], Awaitable[tuple[str, dict[str, Any]]]]
"""What a write needs first (read or made with plain calls, as a model would have it): its step type and arguments."""


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected


async def _draft(client: Client) -> str:
    made = await call(client, "draft_create", entity_type="recipe", items=[LEMON_COD])
    return str(made["drafts"][0]["ref"])


async def _row(client: Client, table: str) -> str:
    rows = (await call(client, "db_read", table=table, limit=1))["rows"]
    return str(rows[0]["id"])


async def _db_create(client: Client) -> tuple[str, dict[str, Any]]:
    return "write", {"table": "shopping_list", "data": {"name": "black pepper", "quantity": 1, "unit": "jar"}}


async def _db_update(client: Client) -> tuple[str, dict[str, Any]]:
    return "write", {"table": "tasks", "filters": [eq("id", await _row(client, "tasks"))], "data": {"title": "Thaw the cod before noon"}}


async def _db_delete(client: Client) -> tuple[str, dict[str, Any]]:
    return "write", {"table": "shopping_list", "filters": [eq("id", await _row(client, "shopping_list"))]}


async def _draft_create(client: Client) -> tuple[str, dict[str, Any]]:
    return "generate", {"entity_type": "recipe", "items": [LEMON_COD]}


async def _draft_save(client: Client) -> tuple[str, dict[str, Any]]:
    return "write", {"refs": [await _draft(client)]}


async def _draft_discard(client: Client) -> tuple[str, dict[str, Any]]:
    return "generate", {"refs": [await _draft(client)]}


async def _draft_revise(client: Client) -> tuple[str, dict[str, Any]]:
    return "generate", {"ref": await _draft(client), "patch": {"servings": 4}}


async def _recipes_import(client: Client) -> tuple[str, dict[str, Any]]:
    return "generate", {"source": "Garlic Rice\nServes 2\n\nIngredients\n- 1 cup rice\n- 2 cloves garlic\n\nInstructions\n"
                                  "1. Cook the rice with the garlic."}


async def _meal_cooked(client: Client) -> tuple[str, dict[str, Any]]:
    return "write", {"recipe": await _recipe(client), "servings": 2}


async def _shopping_list_check(client: Client) -> tuple[str, dict[str, Any]]:
    return "write", {"items": [await _row(client, "shopping_list")], "bought": True}


async def _shopping_list_from(client: Client) -> tuple[str, dict[str, Any]]:
    recipes = (await call(client, "db_read", table="recipes", order_by=[{"field": "name", "direction": "desc"}], limit=1))["rows"]
    return "write", {"recipes": [recipes[0]["id"]], "servings": {recipes[0]["id"]: 12}}


async def _kitchen_undo(client: Client) -> tuple[str, dict[str, Any]]:
    await call(client, "db_create", table="shopping_list", data={"name": "black pepper", "quantity": 1, "unit": "jar"})
    return "write", {}


async def _batch_skip(client: Client) -> tuple[str, dict[str, Any]]:
    ref = await _draft(client)
    opened = await call(client, "batch_open", refs=[ref])
    return "write", {"batch": opened["batch"]["batch"], "refs": [ref], "reason": "not wanted after all"}


WRITES: dict[str, Setup] = {
    "db_create": _db_create, "db_update": _db_update, "db_delete": _db_delete, "draft_create": _draft_create,
    "draft_save": _draft_save, "draft_discard": _draft_discard, "draft_revise": _draft_revise,
    "recipes_import": _recipes_import, "meal_cooked": _meal_cooked, "shopping_list_check": _shopping_list_check,
    "shopping_list_from": _shopping_list_from, "kitchen_undo": _kitchen_undo, "batch_skip": _batch_skip,
}


WRITES_NOTHING = frozenset({"batch_skip"})
"""A skip writes nothing the state's account could tell."""


def test_every_write_tool_act_may_call_has_a_case_here() -> None:
    assert sorted(WRITES) == sorted(set(tools_for_step("write")) - set(tools_for_step("read")))


def _calls(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [record for one in [*state["superseded_steps"], *state["steps"]] for record in one["tool_calls"]]


@pytest.mark.parametrize("tool", sorted(WRITES))
async def test_a_write_with_any_tool_ends_answered_by_the_states_account_or_asks_for_reply(client: Client, tool: str) -> None:
    """No call failed or warned: `answered`, the account in `reply` (names, no refs), and the next turn_start closes the
    turn with it as the reply on record, read by the next turn's context. A call that warned or failed: Reply is asked."""
    step_type, arguments = await WRITES[tool](client)
    then = _sent([("understand", {"processed_message": f"write with {tool}"}),
                  ("think", plan(f"Write with {tool}", step(step_type, f"Write with {tool}", call={"tool": tool, "arguments": arguments})))])
    answer = await call(client, "turn_start", message=f"Do it ({tool})", then=then)
    assert "refused" not in answer, answer["refused"]  # the case's own call is valid: else it proves nothing of its tool
    state = (await call(client, "turn_status"))["state"]
    calls = _calls(state)
    assert calls, f"{tool}: the planned call never ran"
    told = {line for record in calls for line in record["warnings"]} - {f"{s['label']}: {s['reason']}" for record in calls
                                                                          for s in record["shortfalls"]}
    if any(not record["ok"] for record in calls) or told or state["stage"] != "reply":
        assert "answered" not in answer and answer["expected_role"] is not None, answer  # never answered silently
        return
    if tool in WRITES_NOTHING:  # nothing in the kitchen to tell: Reply words it
        assert answer["expected_role"] == "reply" and "answered" not in answer, answer
        return
    assert (answer["stage"], answer["expected_role"], answer["answered"]) == ("answered", None, ANSWERED_BY_STATE), answer
    account = answer["reply"]
    assert account and not refs_in(account) and "next" not in answer, account
    assert_reads_like_a_person(account)
    following = await call(client, "turn_start", message="Thanks")
    closed = (await call(client, "turn_status", turn=answer["turn"]))["state"]
    assert (closed["stage"], closed["reply_source"], closed["reply"]) == ("done", "state", account)
    assert "reply" not in closed["model_calls"] and closed["ledger"]
    assert following["turn"] == answer["turn"] + 1


async def _answered_write(client: Client) -> dict[str, Any]:
    step_type, arguments = await _db_create(client)
    then = _sent([("understand", {"processed_message": "add black pepper"}), ("think", plan(
        "Add black pepper", step(step_type, "Add black pepper", "shopping", call={"tool": "db_create", "arguments": arguments})))])
    answer = await call(client, "turn_start", message="Add black pepper to my shopping list", then=then)
    assert answer["answered"] == ANSWERED_BY_STATE and "black pepper" in answer["reply"], answer
    return answer


async def test_a_reply_submitted_after_a_write_answered_is_checked_and_kept(client: Client) -> None:
    await _answered_write(client)
    refused = await client.call_tool("turn_submit", {"role": "reply", "output": reply("I removed the milk from your list.")})
    assert refused.is_error, "a reply claiming what did not happen is refused, as ever"
    done = await call(client, "turn_submit", role="reply", output=reply("Black pepper is on your shopping list now."))
    assert done["expected_role"] is None and done["outcome"] == "completed"
    state = (await call(client, "turn_status"))["state"]
    assert state["reply_source"] == "model" and state["reply"] == "Black pepper is on your shopping list now."


async def test_turn_abandon_on_a_write_answered_closes_it_with_the_account(client: Client) -> None:
    answer = await _answered_write(client)
    ended = await call(client, "turn_abandon")
    assert (ended["stage"], ended["outcome"], ended["reply"]) == ("done", "completed", answer["reply"])
    assert (await call(client, "turn_status"))["state"]["blocked_reason"] is None


async def test_a_write_that_warned_ends_answered_with_the_warning_said_to_a_person(client: Client) -> None:
    """Black pepper already on the list, added again with a note of its own: the second line warns, and the state's account
    tells it in a person's words (no ref, no 'merge them'), so the turn still ends answered."""
    await _answered_write(client)
    answer = await call(client, "turn_start", message="Add black pepper again", then=_sent([
        ("understand", {"processed_message": "add black pepper"}), ("think", plan("Add black pepper", step("write", "Add it", "shopping", call={
            "tool": "db_create", "arguments": {"table": "shopping_list", "data": {"name": "black pepper", "quantity": 1, "unit": "bunch",
                                                                                 "notes": "whole peppercorns"}}})))]))
    assert answer["answered"] == ANSWERED_BY_STATE, answer
    assert "black pepper was already on your shopping list (1 jar), so it has a second line now (1 bunch)." in answer["reply"].lower(), answer["reply"]
    assert not refs_in(answer["reply"]) and "merge" not in answer["reply"], answer["reply"]


@pytest.mark.parametrize(("then", "said"), [
    ({}, "black pepper is already on your shopping list (1 jar)."),
    ({"quantity": 1, "unit": "bunch"}, "black pepper was already on your shopping list, so it has 1 bunch more: 1 jar + 1 bunch now."),
    ({"quantity": 2, "unit": "jar"}, "black pepper was already on your shopping list, so it has 2 jars more: 3 jars now."),
])
async def test_an_item_on_the_list_named_again_keeps_one_line_and_the_turn_ends_answered_saying_so(
    client: Client, then: dict[str, Any], said: str,
) -> None:
    """Round 9: 'milk' with no amount beside an open '1 gallon milk' line made a second line and a garbled sentence. An
    item named again is one line: no amount changes nothing, an amount adds (beside the line's own when the units do not
    compare), and the account says which, so the turn ends answered."""
    await _answered_write(client)
    before = (await call(client, "db_read", table="shopping_list", filters=[eq("name", "black pepper")]))["rows"]
    answer = await call(client, "turn_start", message="Put black pepper on the list", then=_sent([
        ("understand", {"processed_message": "add black pepper"}), ("think", plan("Add black pepper", step("write", "Add it", "shopping", call={
            "tool": "db_create", "arguments": {"table": "shopping_list", "data": {"name": "black pepper", **then}}})))]))
    after = (await call(client, "db_read", table="shopping_list", filters=[eq("name", "black pepper")]))["rows"]
    assert answer["answered"] == ANSWERED_BY_STATE and said in answer["reply"].lower(), answer
    assert [row["id"] for row in after] == [row["id"] for row in before], after
    assert (after == before) == (not then), (before, after)


async def test_a_write_whose_warning_has_no_words_for_a_person_asks_for_reply(client: Client, app: AlfredApp) -> None:
    """A warning no kind reads (here an import's note on what did not carry over) is the model's to word: Reply is asked."""
    answer = await call(client, "turn_start", message="Import it", then=_sent([
        ("understand", {"processed_message": "import a recipe"}), ("think", plan("Import", step("generate", "Import it", call={
            "tool": "recipes_import", "arguments": {"source": "Garlic Rice\nServes 2 to 4\n\nIngredients\n- 1 cup rice\n\n"
                                                               "Instructions\n1. Cook the rice."}})))]))
    warned = [line for record in _calls((await call(client, "turn_status"))["state"]) for line in record["warnings"]]
    assert warned, "the import warns of the range of servings"
    assert answer["expected_role"] == "reply" and "answered" not in answer and answer["next"]["role"] == "reply", answer


async def _booked_dinner(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    meals = (await call(client, "meal_plan_show"))["meals"]
    booked = next(meal for meal in meals if meal["meal_type"] == "dinner" and meal["recipe"])
    other = next(meal["recipe"] for meal in meals if meal["recipe"] and meal["recipe"] != booked["recipe"])
    return {"processed_message": "plan it for that dinner", "referenced_refs": [other]}, {
        "table": "meal_plans", "data": {"date": booked["date"], "meal_type": "dinner", "recipe_id": other, "servings": 2}}


async def _note_kept(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    old, new = (await call(client, "db_read", table="recipes", columns=["name"], limit=2))["rows"]
    (meal,) = (await call(client, "db_create", table="meal_plans", data={"date": "2031-05-02", "meal_type": "dinner",
                                                                         "recipe_id": old["id"], "notes": "double the potatoes"}))["rows"]
    return {"processed_message": "swap the recipe"}, {"table": "meal_plans", "filters": [eq("id", meal["id"])],
                                                      "data": {"recipe_id": new["id"]}}


async def _excluded(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
    said = {"processed_message": "no pepper this week; add black pepper anyway", "constraint_snapshot": {
        "new_constraints": [{"type": "ingredient_excluded", "field": "ingredient", "value": "black pepper"}],
        "source_phrases": ["no pepper this week"]}}
    return said, {"table": "shopping_list", "data": {"name": "black pepper", "quantity": 1, "unit": "jar"}}


WARNED: dict[str, tuple[Callable[[Client], Awaitable[tuple[dict[str, Any], dict[str, Any]]]], str, str]] = {
    "double_booked": (_booked_dinner, "db_create", "both are planned now"),
    "note_kept": (_note_kept, "db_update", "still has its note 'double the potatoes', written for"),
    "avoided": (_excluded, "db_create", "is something you asked to leave out"),
}


@pytest.mark.parametrize("kind", sorted(WARNED))
async def test_a_write_whose_call_warned_ends_answered_with_the_warning_in_a_persons_words(client: Client, kind: str) -> None:
    """Each kind of warning a staged write gives is told in the state's account, by name and with no ref."""
    setup, tool, words = WARNED[kind]
    understood, arguments = await setup(client)
    answer = await call(client, "turn_start", message=f"Do it ({kind})", then=_sent([
        ("understand", understood), ("think", plan("Write it", step("write", "Write it", call={"tool": tool, "arguments": arguments})))]))
    warned = [line for record in _calls((await call(client, "turn_status"))["state"]) for line in record["warnings"]]
    assert warned, f"the {kind} write gave no warning"
    assert answer.get("answered") == ANSWERED_BY_STATE and words in answer["reply"], (warned, answer)
    assert not refs_in(answer["reply"]), answer["reply"]


_TABLE_IN_PARENTHESES = re.compile(r"\((?:shopping list|pantry|recipes|meal plans?|tasks|cooking log|preferences)\)", re.IGNORECASE)


def assert_reads_like_a_person(account: str) -> None:
    """No brackets, no table named in parentheses, no 'Done:' label, no ref, and no sentence nor reason said twice."""
    assert "[" not in account and "]" not in account, account
    assert not _TABLE_IN_PARENTHESES.search(account) and not account.startswith("Done:") and not refs_in(account), account
    sentences = [sentence.strip() for sentence in re.split(r"(?<=\.)\s+", account) if sentence.strip()]
    assert len(sentences) == len(set(sentences)), account
    for reason in ("not taken out of the pantry", "not in the pantry", "left off the shopping list", "not saved"):
        assert account.lower().count(reason) <= 1, account


LATER = (date.today() + timedelta(days=100)).isoformat()
"""A day no seeded meal plans, near enough to be told without its year."""


async def _planned(client: Client, recipe: str, day: str, slot: str = "dinner") -> None:
    await call(client, "db_create", table="meal_plans", data={"recipe_id": recipe, "date": day, "meal_type": slot, "servings": 2})


async def _recipe_named(client: Client) -> tuple[str, str]:
    rows = (await call(client, "db_read", table="recipes", order_by=[{"field": "name", "direction": "desc"}], limit=1))["rows"]
    return str(rows[0]["id"]), str(rows[0]["name"])


async def _answered(client: Client, tool: str, step_type: str, arguments: dict[str, Any]) -> str:
    then = _sent([("understand", {"processed_message": f"write with {tool}"}),
                  ("think", plan(f"Write with {tool}", step(step_type, f"Write with {tool}", call={"tool": tool, "arguments": arguments})))])
    answer = await call(client, "turn_start", message=f"Do it ({tool})", then=then)
    assert (answer["stage"], answer.get("answered")) == ("answered", ANSWERED_BY_STATE), answer
    account = str(answer["reply"])
    assert_reads_like_a_person(account)
    return account


async def test_a_meal_planned_is_told_by_its_recipe_and_slot(client: Client) -> None:
    recipe, name = await _recipe_named(client)
    account = await _answered(client, "db_create", "write", {"table": "meal_plans", "data": {
        "recipe_id": recipe, "date": LATER, "meal_type": "dinner", "servings": 2}})
    assert account == f"Planned {meal_words(f'{day_text(LATER)} [dinner]', name)}.", account
    assert account == f"Planned {name} for dinner on {day_text(LATER)}.", account


async def test_a_meal_saved_from_its_draft_is_told_by_its_recipe_and_slot(client: Client) -> None:
    recipe, name = await _recipe_named(client)
    made = await call(client, "draft_create", entity_type="meal", items=[{"date": LATER, "meal_type": "lunch", "recipe": recipe, "servings": 2}])
    account = await _answered(client, "draft_save", "write", {"refs": [made["drafts"][0]["ref"]]})
    assert account == f"Planned {name} for lunch on {day_text(LATER)}.", account


async def test_a_cook_with_an_empty_pantry_is_logged_groups_what_was_not_taken_and_tells_the_meals_still_planned(client: Client) -> None:
    """One 'not taken out of the pantry' for every ingredient, each named once; the cook logged by its recipe, today, with
    its servings; the recipe's other meals (the result's `still_planned`) told once, by slot and day."""
    recipe, name = await _recipe_named(client)
    await _planned(client, recipe, LATER)
    pantry = (await call(client, "db_read", table="inventory"))["rows"]
    await call(client, "db_delete", table="inventory", filters=[{"field": "id", "op": "in", "value": [row["id"] for row in pantry]}])
    account = await _answered(client, "meal_cooked", "write", {"recipe": recipe, "servings": 2})
    assert account.startswith(f"Logged {name} as cooked today (2 servings). {name} is still planned for "), account
    assert account.count("still planned") == 1 and account.count(f"dinner on {day_text(LATER)}") == 1, account
    assert account.count("Not taken out of the pantry: ") == 1 and account.count("none there") == 1, account
    short = [found["label"] for record in _calls((await call(client, "turn_status"))["state"]) for found in record["shortfalls"]]
    grouped = account.split("Not taken out of the pantry: ")[1]
    assert len(short) > 1 and all(grouped.count(label) == 1 for label in short), (short, account)


async def test_a_list_from_a_recipe_tells_what_was_added_topped_up_and_what_the_pantry_covers(client: Client) -> None:
    _, arguments = await _shopping_list_from(client)
    account = await _answered(client, "shopping_list_from", "write", arguments)
    assert account.startswith("Added ") and "to your shopping list." in account, account
    assert "Topped up " in account and "Your pantry covers " in account, account


async def test_a_recipe_removed_and_the_removal_undone_tell_its_meals_by_slot(client: Client) -> None:
    """The meals a removal left without their recipe, and the undo that linked them again, named as a person would."""
    recipe, name = await _recipe_named(client)
    await _planned(client, recipe, LATER)
    removed = await _answered(client, "db_delete", "write", {"table": "recipes", "filters": [eq("id", recipe)]})
    assert removed.startswith(f"Removed {name} from your recipes. ") and "no longer linked" in removed, removed
    assert f"dinner on {day_text(LATER)}" in removed, removed
    restored = await _answered(client, "kitchen_undo", "write", {})
    assert restored.startswith(f"Restored {name} to your recipes. Linked again: ") and f"dinner on {day_text(LATER)}" in restored, restored
