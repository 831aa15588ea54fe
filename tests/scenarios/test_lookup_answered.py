"""A lookup driven stage by stage needs no Reply call, through the real client on seeded kitchens.

A turn whose every call only read (Understand's quick read with any read tool, or a plan of read steps) and none failed
or warned is answered from its rows: the answer says so (`answered`, no Reply `next`), the client's model tells the user
from the notice, and the next turn_start closes it (its reply: what was shown), "the second one" counting in those rows.
A read that also noted or dropped constraints is answered from its rows too, the answer's `answered` text saying what it noted (so a
plan that reads before it proposes ends in one call: its model proposes from the rows). A reply may still be submitted; a
failed read still needs its own (writes, drafts and constraints noted alone are told by the state's account:
test_write_answered.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from e2e.conftest import SeededKitchens
from e2e.helpers import call, eq
from mcp import Client

from alfred_mcp.agent.act_tools import tools_for_step
from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.server.tools.stage_view import ANSWERED, ANSWERED_BY_STATE, ANSWERED_WORDED

from .recorded import Recording, Replays, load_recordings, same_replay
from .scripts import constraint, plan, reply, step
from .sent_ahead_replay import LookupsAnswered, replay_sent_ahead, same_kitchens
from .test_sent_ahead import PEPPER_OUTPUTS, _sent

pytestmark = pytest.mark.anyio

Arguments = Callable[[Client], Awaitable[dict[str, Any]]]


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected


LEMON_COD = {"name": "Lemon Pepper Cod", "ingredients": [{"name": "cod fillet", "quantity": 2, "unit": "piece"}],
             "instructions": ["Bake the cod."], "servings": 2}


async def _recipe(client: Client) -> str:
    """A recipe's ref, read with a plain call first (as a model reading first would have it)."""
    rows = (await call(client, "db_read", table="recipes", order_by=[{"field": "name", "direction": "asc"}], limit=1))["rows"]
    return str(rows[0]["id"])


async def _none(client: Client) -> dict[str, Any]:
    return {}


async def _of_recipe(client: Client) -> dict[str, Any]:
    return {"recipe": await _recipe(client)}


async def _scaled(client: Client) -> dict[str, Any]:
    return {"recipe": await _recipe(client), "servings": 2}


async def _batch(client: Client) -> dict[str, Any]:
    """The latest batch: a draft is made and a batch opened for it first (batch_status has no batch to show before)."""
    made = await call(client, "draft_create", entity_type="recipe", items=[LEMON_COD])
    opened = await call(client, "batch_open", refs=[made["drafts"][0]["ref"]])
    return {"batch": opened["batch"]["batch"]}


async def _fixed(arguments: dict[str, Any]) -> dict[str, Any]:
    return arguments


READ_ARGUMENTS: dict[str, Arguments] = {
    "batch_status": _batch, "constraints_read": _none, "db_read": lambda c: _fixed({"table": "recipes", "limit": 3}),
    "describe_table": lambda c: _fixed({"table": "recipes"}), "draft_read": _none,
    "entity_resolve": lambda c: _fixed({"text": "cod"}), "meal_plan_show": _none, "recipe_show": _of_recipe,
    "recipes_export": _of_recipe, "recipes_makeable": _none, "recipes_scale": _scaled,
    "recipes_search": lambda c: _fixed({"category": "fish"}), "shopping_list_show": _none, "show_working_set": _none,
}
"""Arguments for each read tool (given the client, which may read a ref first)."""


def _quick(tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    return _sent([("understand", {"quick_mode": True, "quick_mode_confidence": 0.95, "processed_message": f"look up with {tool}",
                                  "quick_read": {"tool": tool, "arguments": arguments}})])


def _read_plan(tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    return _sent([("understand", {"processed_message": f"look up with {tool}"}),
                  ("think", plan(f"Look up with {tool}", step("read", f"Read with {tool}", call={"tool": tool, "arguments": arguments})))])


ROUTES = {"quick read": _quick, "read step": _read_plan}


def test_every_read_tool_has_arguments_here() -> None:
    assert sorted(READ_ARGUMENTS) == sorted(tools_for_step("read"))


@pytest.mark.parametrize("route", ROUTES.values(), ids=ROUTES.keys())
@pytest.mark.parametrize("tool", sorted(READ_ARGUMENTS))
async def test_a_lookup_with_any_read_tool_is_answered_from_its_rows_in_one_call(
        client: Client, tool: str, route: Callable[[str, dict[str, Any]], list[dict[str, Any]]]) -> None:
    """turn_start with the lookup's outputs is the turn: the answer says it is answered, sends no Reply `next`, and the
    next turn_start closes it as answered (no reply submitted), what was shown on record."""
    arguments = await READ_ARGUMENTS[tool](client)
    answer = await call(client, "turn_start", message=f"Look it up ({tool})", then=route(tool, arguments))
    assert answer["answered"] == ANSWERED and "next" not in answer and "not_applied" not in answer, answer
    assert answer["stage"] == "answered" and answer["expected_role"] is None and answer["notice"]  # one ending, as a table's
    following = await call(client, "turn_start", message="Thanks")
    assert following["stage"] == "understand" and following["turn"] == answer["turn"] + 1
    closed = (await call(client, "turn_status", turn=answer["turn"]))["state"]
    assert closed["stage"] == "done" and closed["outcome"] == "completed" and closed["reply_source"] == "rows"
    assert closed["reply"].startswith("Shown: ") and "reply" not in closed["model_calls"] and closed["ledger"]


@pytest.mark.parametrize("table", ["recipes", "inventory", "shopping_list", "meal_plans", "tasks"])
async def test_a_tables_quick_read_ends_as_a_tools_lookup_does(client: Client, table: str) -> None:
    """One ending for a lookup, whatever answered it: a table's quick read (the state words its rows) is `answered` with
    no expected role, as a read tool's lookup is; only what `answered` says of the reply differs."""
    understand = {"quick_mode": True, "quick_mode_confidence": 0.95, "processed_message": f"list my {table}",
                  "quick_read": {"table": table, "limit": 5}}
    answer = await call(client, "turn_start", message=f"What is in my {table}?", then=_sent([("understand", understand)]))
    assert (answer["stage"], answer["expected_role"], answer["answered"]) == ("answered", None, ANSWERED_WORDED), answer
    assert answer["reply"] and "next" not in answer
    following = await call(client, "turn_start", message="Thanks")
    assert following["turn"] == answer["turn"] + 1


async def _written(client: Client) -> tuple[str, list[dict[str, Any]]]:
    return "Add black pepper to my shopping list", _sent(PEPPER_OUTPUTS[:2])


async def _drafted(client: Client) -> tuple[str, list[dict[str, Any]]]:
    dish = LEMON_COD
    return "Draft a lemon pepper cod recipe", _sent([("understand", {"processed_message": "draft a cod recipe"}), ("think", plan(
        "Draft a cod recipe", step("generate", "Draft it", expected_count=1,
                                   call={"tool": "draft_create", "arguments": {"entity_type": "recipe", "items": [dish]}})))])


async def _noted(client: Client) -> tuple[str, list[dict[str, Any]]]:
    noted = {"constraint_snapshot": {"new_constraints": [constraint("ingredient_excluded", "dairy", "dairy")],
                                     "source_phrases": ["no dairy from now on"]}, "nothing_to_do": True}
    return "No dairy from now on.", _sent([("understand", noted)])


async def _read_and_noted(client: Client) -> tuple[str, list[dict[str, Any]]]:
    noted = {"constraint_snapshot": {"new_constraints": [constraint("ingredient_excluded", "dairy", "dairy")],
                                     "source_phrases": ["no dairy"]}, "quick_mode": True, "quick_mode_confidence": 0.95,
             "quick_read": {"tool": "recipes_search", "arguments": {"category": "fish"}}, "processed_message": "fish recipes, no dairy"}
    return "No dairy from now on; what fish recipes do I have?", _sent([("understand", noted)])


async def _failed_read(client: Client) -> tuple[str, list[dict[str, Any]]]:
    gone, kept = (await call(client, "db_read", table="recipes", order_by=[{"field": "name", "direction": "asc"}], limit=2))["rows"]
    await call(client, "db_delete", table="recipes", filters=[eq("id", gone["id"])])
    return "Show me that recipe", _sent([("understand", {"processed_message": "show a recipe"}), ("think", plan(
        "Show the recipe", step("read", "Show it", call={"tool": "recipe_show", "arguments": {"recipe": gone["id"]}})))])


NEEDS_REPLY: dict[str, Callable[[Client], Awaitable[tuple[str, list[dict[str, Any]]]]]] = {
    "a read that failed": _failed_read,
}
ANSWERED_BY_THE_STATE: dict[str, Callable[[Client], Awaitable[tuple[str, list[dict[str, Any]]]]]] = {
    "a write": _written, "a draft generated": _drafted, "a constraint noted": _noted,
}


@pytest.mark.parametrize("case", ANSWERED_BY_THE_STATE.values(), ids=ANSWERED_BY_THE_STATE.keys())
async def test_a_write_a_draft_or_a_constraint_noted_is_answered_by_the_states_account(client: Client, case: Callable[..., Any]) -> None:
    """No rows to tell from, but the state's own account tells the turn whole: `answered`, the account in `reply`."""
    message, then = await case(client)
    answer = await call(client, "turn_start", message=message, then=then)
    assert (answer["stage"], answer["expected_role"], answer["answered"]) == ("answered", None, ANSWERED_BY_STATE), answer
    assert answer["reply"].startswith(("Added ", "Drafted ", "Noted: ")) and "next" not in answer


async def _planned_reads_and_noted(client: Client) -> tuple[str, list[dict[str, Any]]]:
    noted = {"constraint_snapshot": {"new_constraints": [constraint("ingredient_excluded", "protein", "fish"),
                                                         constraint("days", "days", 3)],
                                     "goal_update": "dinners for 3 days, no fish", "goal_subdomain": "meal_plans",
                                     "source_phrases": ["no fish", "3 days"]}, "processed_message": "plan 3 dinners, no fish"}
    return "Plan my dinners for the next 3 days, no fish", _sent([("understand", noted), ("think", plan(
        "Propose 3 dinners", step("read", "Read the planned meals", subdomain="meal_plans", call={"tool": "meal_plan_show", "arguments": {}}),
        step("read", "Read the recipes", call={"tool": "db_read", "arguments": {"table": "recipes", "columns": ["name"]}})))])


READ_AND_NOTED: dict[str, Callable[[Client], Awaitable[tuple[str, list[dict[str, Any]]]]]] = {
    "a quick read that noted a constraint": _read_and_noted,
    "a plan of reads before a proposal, its goal's constraints noted": _planned_reads_and_noted,
}


@pytest.mark.parametrize("case", READ_AND_NOTED.values(), ids=READ_AND_NOTED.keys())
async def test_a_read_that_also_noted_constraints_is_answered_from_its_rows_saying_what_was_noted(
        client: Client, case: Callable[..., Any]) -> None:
    """The constraints are the model's own words: the rows answer the turn (a proposal is made from them), `answered` names
    each constraint stated, and the next turn_start closes the turn with what was shown and noted on record."""
    message, then = await case(client)
    answer = await call(client, "turn_start", message=message, then=then)
    assert (answer["stage"], answer["expected_role"]) == ("answered", None), answer
    assert answer["answered"].startswith(f"{ANSWERED} Noted: ") and "next" not in answer and answer["notice"], answer
    noted = answer["answered"].removeprefix(f"{ANSWERED} ")  # said in the declared `answered` text, no key of its own
    stated = then[0]["output"]["constraint_snapshot"]["new_constraints"]
    assert all(str(item["value"]) in noted for item in stated), noted
    following = await call(client, "turn_start", message="Thanks")
    closed = (await call(client, "turn_status", turn=answer["turn"]))["state"]
    assert following["turn"] == answer["turn"] + 1 and closed["reply_source"] == "rows"
    assert closed["reply"].startswith("Shown: ") and closed["reply"].endswith(noted), closed["reply"]


async def test_a_lookup_that_noted_nothing_has_no_noted(client: Client) -> None:
    answer = await call(client, "turn_start", message="What fish recipes do I have?", then=_quick("recipes_search", {"category": "fish"}))
    assert answer["answered"] == ANSWERED and "Noted" not in answer["answered"]


@pytest.mark.parametrize("case", NEEDS_REPLY.values(), ids=NEEDS_REPLY.keys())
async def test_a_turn_that_did_more_than_read_still_needs_its_reply(client: Client, case: Callable[..., Any]) -> None:
    """A failed read: Reply's `next` as ever, and turn_start waits for the reply."""
    message, then = await case(client)
    answer = await call(client, "turn_start", message=message, then=then)
    if answer["expected_role"] == "act":  # the failed read's step waits for Act: it reads another recipe, and completes
        kept = await _recipe(client)
        answer = await call(client, "turn_submit", role="act", output={"decision": {
            "action": "tool_call", "tool": "recipe_show", "arguments": {"recipe": kept}, "complete_step": True}})
    assert answer["expected_role"] == "reply" and "answered" not in answer and answer["next"]["role"] == "reply", answer
    refused = await client.call_tool("turn_start", {"message": "Next thing"})
    assert refused.is_error and "reply stage" in "".join(b.text for b in refused.content if b.type == "text")


async def test_a_reply_submitted_after_a_lookup_answered_is_accepted_and_checked(client: Client) -> None:
    answer = await call(client, "turn_start", message="What fish recipes do I have?", then=_quick("recipes_search", {"category": "fish"}))
    assert answer["answered"] == ANSWERED
    refused = await client.call_tool("turn_submit", {"role": "reply", "output": reply("Added cod to your shopping list.")})
    assert refused.is_error, "a reply claiming a write the lookup never made is refused, as ever"
    done = await call(client, "turn_submit", role="reply", output=reply("You have a few fish recipes; want one of them?"))
    assert done["expected_role"] is None and done["outcome"] == "completed"
    state = (await call(client, "turn_status"))["state"]
    assert state["reply_source"] == "model" and state["reply"].startswith("You have a few fish recipes")


async def test_the_second_one_after_a_lookup_answered_is_the_second_row_shown(client: Client) -> None:
    answer = await call(client, "turn_start", message="What fish recipes do I have?", then=_quick("recipes_search", {"category": "fish"}))
    shown = (await call(client, "turn_status"))["state"]["steps"][0]["tool_calls"][0]["refs"]
    assert answer["answered"] == ANSWERED and len(shown) >= 2
    second = await call(client, "turn_start", message="Show me the second one",
                        then=_quick("entity_resolve", {"text": "the second one"}))
    assert second["answered"] == ANSWERED
    mention = (await call(client, "entity_resolve", text="the second one"))["mentions"][0]
    assert mention["ref"] == shown[1]


async def test_turn_begin_after_a_lookup_answered_closes_it_as_answered(client: Client) -> None:
    """A client recording its own turns (turn_begin) after a lookup answered from its rows: the lookup is closed as
    answered, and the new turn begins."""
    answer = await call(client, "turn_start", message="What fish recipes do I have?", then=_quick("recipes_search", {"category": "fish"}))
    begun = await call(client, "turn_begin", message="Thanks")
    assert begun["closed_turn"] == answer["turn"] and begun["turn"] == answer["turn"] + 1
    closed = (await call(client, "turn_status", turn=answer["turn"]))["state"]
    assert closed["stage"] == "done" and closed["reply_source"] == "rows"


async def test_rows_a_lookup_answered_showed_are_not_sent_again_to_a_reply_sent_anyway(client: Client) -> None:
    """The answer sends no Reply view, but the client was shown the rows: Reply's context, fetched for a reply the
    client sends anyway, points at the notice rather than repeating them."""
    answer = await call(client, "turn_start", message="What fish recipes do I have?", then=_quick("recipes_search", {"category": "fish"}))
    rows = [line.strip() for line in answer["notice"].splitlines()[1:] if line.strip()]
    context = (await call(client, "turn_context", role="reply"))["context"]
    assert rows and not any(row in context for row in rows), context


async def test_turn_context_and_turn_abandon_on_a_lookup_answered(client: Client) -> None:
    """turn_context gives Reply's view (a reply is still accepted); turn_abandon closes the turn as answered, not blocked."""
    await call(client, "turn_start", message="What fish recipes do I have?", then=_quick("recipes_search", {"category": "fish"}))
    view = await call(client, "turn_context")
    assert view["role"] == "reply" and view["context"]
    ended = await call(client, "turn_abandon")
    assert ended["stage"] == "done" and ended["outcome"] == "completed" and ended["reply"].startswith("Shown: ")
    state = (await call(client, "turn_status"))["state"]
    assert state["reply_source"] == "rows" and state["blocked_reason"] is None


ROUND_4 = [recording for recording in load_recordings() if recording.name.startswith("r4_") and not recording.plain]
"""The round driven on the code with replies sent ahead: its lookups were each answered with a reply submitted."""


@pytest.mark.parametrize("recording", same_replay(ROUND_4))
async def test_a_recorded_conversation_with_its_lookups_answered_from_their_rows_reaches_the_same_kitchen(
        recording: Recording, tmp_path: Path, seeded_kitchens: SeededKitchens, recorded_replays: Replays) -> None:
    """Each lookup's recorded reply left out where the answer said `answered` (sent_ahead_replay.py): every turn leaves
    the kitchen as the recording did, nothing diverges, and each such turn saves at least its reply's call."""
    answered = LookupsAnswered()
    one_by_one, replayed = await replay_sent_ahead(recording, tmp_path, seeded_kitchens, replies=answered,
                                                   replayed=await recorded_replays.of(recording))
    for turn, recorded, sent in same_kitchens(recording, one_by_one, replayed):
        assert sent.calls <= recorded.calls - (turn.label in answered.answered), f"{turn.label}: {sent.calls} vs {recorded.calls}"


async def test_a_question_sent_after_a_lookup_answered_is_what_the_next_turns_yes_answers(client: Client) -> None:
    answer = await call(client, "turn_start", message="What fish recipes do I have?", then=_quick("recipes_search", {"category": "fish"}))
    assert "a question to the user: send it as reply" in answer["answered"]
    await call(client, "turn_submit", role="reply", output=reply("You have a few fish recipes; shall I plan the cod for tonight?"))
    following = await call(client, "turn_start", message="Yes")
    assert following["expected_role"] == "understand"
    context = await call(client, "turn_context", role="understand", full=True)  # the client holds what it wrote: not resent
    assert "shall I plan the cod for tonight?" in str(context), context
