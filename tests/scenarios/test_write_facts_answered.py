"""A staged write whose call left a note that is a fact for the person, found nothing to do, or was refused because what
the person named is not there ends `answered` on the state's account, through the real client on seeded kitchens.

Every kind of note fact (`state/note_facts.NOTE_KINDS`) has a case here: the write that gives it, sent ahead, ends
answered with the fact in a person's sentence (no ref; an offer as the account's last sentence). A list made from meals
whose every ingredient is already listed, bought or covered says nothing was added. Every write tool that takes a name
where a ref goes, given a name the kitchen has no row for, ends answered saying nothing was changed and what was not
found, the kitchen as it was; a name that matches some rows by some words, an unknown ref or an unknown column still
asks the model (Act). The bundled loop still runs Reply.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from e2e.helpers import call, eq
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.operations.ref_names import CHANGES, DATA_TOOLS, FILTER_TOOLS, NAME_ARGUMENTS, REF_LISTS
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.server.tools.stage_view import ANSWERED_BY_STATE
from alfred_mcp.state.note_facts import NOTE_KINDS, fact_sentence, is_offer
from alfred_mcp.state.refs import refs_in

from .kitchen_digest import kitchen_digest
from .loop_driver import ScenarioModel, loop_turn
from .scripts import plan, step
from .test_sent_ahead import _sent
from .test_write_answered import LATER, _calls, assert_reads_like_a_person

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected


async def _staged(client: Client, tool: str, arguments: dict[str, Any], step_type: str = "write") -> dict[str, Any]:
    """A turn whose plan makes the one call, sent ahead in turn_start; its answer."""
    then = _sent([("understand", {"processed_message": f"write with {tool}"}),
                  ("think", plan(f"Write with {tool}", step(step_type, f"Write with {tool}", call={"tool": tool, "arguments": arguments})))])
    answer = await call(client, "turn_start", message=f"Do it ({tool})", then=then)
    assert "refused" not in answer, answer["refused"]
    return answer


QUUX_SOUP = {"name": "Quux Soup", "servings": 2, "instructions": ["Cook."],
             "ingredients": [{"name": "quux", "quantity": 3, "unit": "cup"}]}


async def _quux_soup(client: Client) -> str:
    """A recipe of its own (no other meal plans it, no line lists its ingredient), saved: its ref."""
    made = await call(client, "draft_create", entity_type="recipe", items=[QUUX_SOUP])
    saved = await call(client, "draft_save", refs=[made["drafts"][0]["ref"]])
    return str(saved["items"][0]["saved_as"])


async def _merged(client: Client) -> tuple[str, dict[str, Any]]:
    await call(client, "db_create", table="shopping_list", data={"name": "black pepper", "quantity": 1, "unit": "jar"})
    return "db_create", {"table": "shopping_list", "data": {"name": "black pepper", "quantity": 1, "unit": "jar"}}


async def _already_on_list(client: Client) -> tuple[str, dict[str, Any]]:
    await call(client, "db_create", table="shopping_list", data={"name": "milk", "quantity": 1, "unit": "gallon"})
    return "db_create", {"table": "shopping_list", "data": {"name": "milk"}}


async def _amount_beside(client: Client) -> tuple[str, dict[str, Any]]:
    await call(client, "db_create", table="shopping_list", data={"name": "black pepper", "quantity": 1, "unit": "jar"})
    return "db_create", {"table": "shopping_list", "data": {"name": "black pepper", "quantity": 1, "unit": "bunch"}}


async def _amount_given(client: Client) -> tuple[str, dict[str, Any]]:
    await call(client, "db_create", table="shopping_list", data={"name": "black pepper"})
    return "db_create", {"table": "shopping_list", "data": {"name": "black pepper", "quantity": 1, "unit": "jar"}}


async def _nothing_stocked(client: Client) -> tuple[str, dict[str, Any]]:
    (line,) = (await call(client, "db_create", table="shopping_list", data={"name": "quux"}))["rows"]
    return "shopping_list_check", {"items": [line["id"]], "bought": True}


async def _household_servings(client: Client) -> tuple[str, dict[str, Any]]:
    return "db_create", {"table": "meal_plans", "data": {"date": LATER, "meal_type": "dinner", "recipe_id": await _quux_soup(client)}}


async def _household_servings_saved(client: Client) -> tuple[str, dict[str, Any]]:
    made = await call(client, "draft_create", entity_type="meal", items=[
        {"date": LATER, "meal_type": "lunch", "recipe": await _quux_soup(client)}])
    return "draft_save", {"refs": [made["drafts"][0]["ref"]]}


async def _lines_for_dropped_recipe(client: Client) -> tuple[str, dict[str, Any]]:
    recipe = await _quux_soup(client)
    (meal,) = (await call(client, "db_create", table="meal_plans", data={
        "date": LATER, "meal_type": "dinner", "recipe_id": recipe, "servings": 2}))["rows"]
    await call(client, "shopping_list_from", meal_plans={"from": LATER, "to": LATER})
    return "db_delete", {"table": "meal_plans", "filters": [eq("id", meal["id"])]}


async def _ticked_not_stocked(client: Client) -> tuple[str, dict[str, Any]]:
    (line,) = (await call(client, "db_create", table="shopping_list", data={"name": "quux", "quantity": 1, "unit": "cup"}))["rows"]
    return "db_update", {"table": "shopping_list", "filters": [eq("id", line["id"])], "data": {"is_purchased": True}}


async def _pantry_followed(client: Client) -> tuple[str, dict[str, Any]]:
    recipe = await _quux_soup(client)
    (held,) = (await call(client, "db_create", table="inventory", data={"name": "quux", "quantity": 1, "unit": "cup"}))["rows"]
    await call(client, "shopping_list_from", recipes=[recipe])
    return "db_delete", {"table": "inventory", "filters": [eq("id", held["id"])]}


NOTED: dict[str, Callable[[Client], Awaitable[tuple[str, dict[str, Any]]]]] = {
    "merged": _merged, "merged/beside": _amount_beside, "merged/given": _amount_given, "already_on_list": _already_on_list,
    "nothing_stocked": _nothing_stocked, "household_servings": _household_servings, "household_servings/draft_save": _household_servings_saved,
    "lines_for_dropped_recipe": _lines_for_dropped_recipe, "ticked_not_stocked": _ticked_not_stocked,
    "pantry_followed": _pantry_followed,
}


def test_every_kind_of_note_fact_has_a_case_here() -> None:
    assert sorted(NOTE_KINDS) == sorted({case.split("/")[0] for case in NOTED})


@pytest.mark.parametrize("case", sorted(NOTED))
async def test_a_write_whose_note_is_a_fact_ends_answered_with_it_in_a_persons_words(client: Client, case: str) -> None:
    """The call's note is a fact of its kind (the result's `note_facts`); the turn ends answered, the account tells it by
    name (an offer last), and the call's record keeps no note for the model to word."""
    tool, arguments = await NOTED[case](client)
    answer = await _staged(client, tool, arguments)
    (record,) = _calls((await call(client, "turn_status"))["state"])
    kind = case.split("/")[0]
    assert record["ok"] and not record["notes"], record
    facts = [fact for fact in record["told"].get("note_facts", ()) if fact["kind"] == kind]
    assert facts, (case, record)
    assert (answer["stage"], answer.get("answered")) == ("answered", ANSWERED_BY_STATE), answer
    account = str(answer["reply"])
    assert_reads_like_a_person(account)
    for fact in facts:
        sentence = fact_sentence(fact, lambda ref: None)
        assert sentence is not None and not refs_in(sentence)
        assert sentence.split(":")[0] in account, (sentence, account)
        if is_offer(fact):
            assert account.endswith("?"), account


@pytest.mark.parametrize("case", sorted(NOTED))
async def test_a_reply_sent_ahead_of_a_noted_write_is_applied_with_the_notes_sentence_appended(client: Client, case: str) -> None:
    """The model's reply sent ahead could not know the call's note (a fact, or an offer: lines listed for a recipe no
    longer planned): it is applied with the note's sentence for a person appended (`model+state`, an offer last), so the
    person hears it, as the state's account would have told it."""
    tool, arguments = await NOTED[case](client)
    then = _sent([("understand", {"processed_message": f"write with {tool}"}),
                  ("think", plan(f"Write with {tool}", step("write", f"Write with {tool}", call={"tool": tool, "arguments": arguments}))),
                  ("reply", {"response": "Done."})])
    answer = await call(client, "turn_start", message=f"Do it ({tool})", then=then)
    assert answer["expected_role"] is None and "not_applied" not in answer and "refused" not in answer, answer
    state = (await call(client, "turn_status"))["state"]
    (record,) = _calls(state)
    facts = [fact for fact in record["told"].get("note_facts", ()) if fact["kind"] == case.split("/")[0]]
    assert facts and state["reply_source"] == "model+state" and state["reply"].startswith("Done. "), state["reply"]
    assert not refs_in(state["reply"]) and answer["reply"] == state["reply"]
    for fact in facts:
        sentence = fact_sentence(fact, lambda ref: None)
        assert sentence is not None and sentence.split(":")[0] in state["reply"], (sentence, state["reply"])
        if is_offer(fact):
            assert state["reply"].endswith("?"), state["reply"]


async def test_a_reply_sent_ahead_that_already_tells_a_noted_fact_in_its_own_words_is_applied_as_sent(client: Client) -> None:
    """The model foresaw the merge and told it (the thing and its amount now): the fact's sentence is not appended."""
    tool, arguments = await _merged(client)
    said = "Black pepper: 2 jars on your list now."
    then = _sent([("understand", {"processed_message": "add black pepper"}),
                  ("think", plan("Add black pepper", step("write", "Add it", call={"tool": tool, "arguments": arguments}))),
                  ("reply", {"response": said})])
    answer = await call(client, "turn_start", message="Add black pepper", then=then)
    assert answer["expected_role"] is None and "not_applied" not in answer, answer
    state = (await call(client, "turn_status"))["state"]
    assert (state["reply_source"], state["reply"]) == ("model", said), state


async def test_a_reply_submitted_after_a_noted_write_is_checked_and_kept(client: Client) -> None:
    tool, arguments = await _merged(client)
    await _staged(client, tool, arguments)
    refused = await client.call_tool("turn_submit", {"role": "reply", "output": {"response": "I removed the milk from your list."}})
    assert refused.is_error
    done = await call(client, "turn_submit", role="reply", output={"response": "Black pepper: 2 jars on your list now."})
    assert done["outcome"] == "completed"
    assert (await call(client, "turn_status"))["state"]["reply_source"] == "model"


async def test_a_list_from_meals_already_covered_ends_answered_saying_nothing_was_added(client: Client) -> None:
    recipe = await _quux_soup(client)
    await call(client, "shopping_list_from", recipes=[recipe])
    answer = await _staged(client, "shopping_list_from", {"recipes": [recipe]})
    assert (answer["stage"], answer.get("answered")) == ("answered", ANSWERED_BY_STATE), answer
    assert answer["reply"].startswith("Nothing was added to your shopping list. Already on your shopping list: quux"), answer["reply"]


ABSENT = "Zorblat Quuxberry"
"""A name no seeded row holds, nor any of its words."""


async def _named_cases(client: Client) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every write tool (and argument) that takes a name where a ref goes, each with a name the kitchen has no row for."""
    cases: dict[str, tuple[str, dict[str, Any]]] = {}
    for tool, arguments in NAME_ARGUMENTS.items():
        if tool in CHANGES:
            cases[f"{tool}.{arguments[0]}"] = (tool, {arguments[0]: ABSENT, "servings": 2})
    for tool, (argument, _table) in REF_LISTS.items():
        cases[f"{tool}.{argument}"] = (tool, {argument: [ABSENT], **({"bought": True} if tool == "shopping_list_check" else {})})
    for tool in sorted(FILTER_TOOLS & CHANGES):
        for table in ("recipes", "inventory", "shopping_list", "tasks"):
            data = {"data": _CHANGE[table]} if tool == "db_update" else {}
            cases[f"{tool}.filters.{table}"] = (tool, {"table": table, "filters": [eq("id", ABSENT)], **data})
    for tool in sorted(DATA_TOOLS):
        data = {"date": LATER, "meal_type": "dinner", "recipe_id": ABSENT, "servings": 2}
        cases[f"{tool}.data.recipe_id"] = (tool, {"table": "meal_plans", "data": data} if tool == "db_create" else {
            "table": "meal_plans", "filters": [eq("id", await _a_meal(client))], "data": {"recipe_id": ABSENT}})
    return cases


_CHANGE = {"recipes": {"servings": 3}, "inventory": {"notes": "x"}, "shopping_list": {"notes": "x"}, "tasks": {"title": "x"}}
"""A valid change of each named table's rows (db_update's `data`)."""


async def _a_meal(client: Client) -> str:
    return str((await call(client, "db_read", table="meal_plans", limit=1))["rows"][0]["id"])


NAMED_CASES = ("db_create.data.recipe_id", "db_delete.filters.inventory", "db_delete.filters.recipes", "db_delete.filters.shopping_list",
               "db_delete.filters.tasks", "db_update.data.recipe_id", "db_update.filters.inventory", "db_update.filters.recipes",
               "db_update.filters.shopping_list", "db_update.filters.tasks", "meal_cooked.recipe", "shopping_list_check.items",
               "shopping_list_from.recipes")


def _db(app: AlfredApp) -> Path:
    return Path(app.settings.db)


async def test_the_named_cases_are_every_write_that_takes_a_name(client: Client) -> None:
    assert sorted(await _named_cases(client)) == sorted(NAMED_CASES)


@pytest.mark.parametrize("case", NAMED_CASES)
async def test_a_write_naming_what_is_not_there_ends_answered_saying_nothing_was_changed(client: Client, app: AlfredApp, case: str) -> None:
    """The call is refused (the name means no row, nor any row by some words): the step stops, the turn ends answered,
    the account says nothing was changed and what was not found, and the kitchen is as it was."""
    tool, arguments = (await _named_cases(client))[case]
    before = kitchen_digest(_db(app))
    answer = await _staged(client, tool, arguments)
    (record,) = _calls((await call(client, "turn_status"))["state"])
    assert not record["ok"] and record["absent"] == {"name": ABSENT, "table": record["absent"]["table"]}, record
    assert (answer["stage"], answer.get("answered")) == ("answered", ANSWERED_BY_STATE), answer
    assert answer["reply"].startswith(f"Nothing was changed: I found no {ABSENT} "), answer["reply"]
    assert_reads_like_a_person(answer["reply"])
    assert kitchen_digest(_db(app)) == before


async def test_a_name_matching_rows_by_some_words_still_asks_the_model(client: Client) -> None:
    """'Zorblat pepper' is no line, but 'black pepper' holds one of its words: the model chooses (Act), nothing answered."""
    await call(client, "db_create", table="shopping_list", data={"name": "black pepper", "quantity": 1, "unit": "jar"})
    answer = await _staged(client, "shopping_list_check", {"items": ["Zorblat pepper"], "bought": True})
    assert answer["expected_role"] == "act" and "answered" not in answer, answer


@pytest.mark.parametrize("arguments", [
    {"table": "shopping_list", "filters": [eq("id", "shop_999")], "data": {"notes": "x"}},
    {"table": "shopping_list", "filters": [eq("nonsense", "x")], "data": {"notes": "x"}},
], ids=["unknown-ref", "unknown-column"])
async def test_a_call_refused_for_the_models_arguments_still_asks_the_model(client: Client, arguments: dict[str, Any]) -> None:
    then = _sent([("understand", {"processed_message": "update it"}),
                  ("think", plan("Update it", step("write", "Update it", call={"tool": "db_update", "arguments": arguments})))])
    answer = await call(client, "turn_start", message="Update it", then=then)
    assert answer.get("answered") is None and answer["stage"] != "answered", answer


async def test_an_undo_with_nothing_to_undo_ends_answered_saying_so(client: Client, app: AlfredApp) -> None:
    before = kitchen_digest(_db(app))
    answer = await _staged(client, "kitchen_undo", {})
    (record,) = _calls((await call(client, "turn_status"))["state"])
    assert not record["ok"] and record["absent"] == {"nothing": "to undo"}, record
    assert (answer["stage"], answer.get("answered"), answer["reply"]) == (
        "answered", ANSWERED_BY_STATE, "Nothing was changed: there was nothing to undo."), answer
    assert kitchen_digest(_db(app)) == before


async def test_the_bundled_loop_still_runs_reply_after_a_refusal_of_a_row_not_there(app: AlfredApp) -> None:
    """Through the bundled loop (a turn with an owner), the same refusal stops the step and Reply is the model's: its
    reply, checked, is the turn's, and nothing changed."""
    before = kitchen_digest(_db(app))
    outputs = {"understand": [{"processed_message": "mark it bought"}],
               "think": [plan("Mark it", step("write", "Mark it", "shopping", call={
                   "tool": "shopping_list_check", "arguments": {"items": [ABSENT], "bought": True}}))],
               "reply": [{"response": f"{ABSENT} is not on your shopping list, so I changed nothing."}]}
    state = await loop_turn(app, ScenarioModel(), "Mark it as bought", outputs)
    assert (state.stage, state.reply_source) == ("done", "model"), state
    assert state.steps[0].status == "stopped" and state.steps[0].tool_calls[0].absent["name"] == ABSENT
    assert kitchen_digest(_db(app)) == before
