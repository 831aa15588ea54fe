"""Role outputs sent ahead (`then` of turn_start and turn_submit), through the real client on a seeded kitchen.

Each output in `then` is applied as a turn_submit of it would be, while the turn expects its role: a turn sent ahead
reaches the same kitchen and the same end as the same outputs submitted one by one, in fewer calls; an output the turn
no longer expects is named in `not_applied`, a refused one in `refused` (its try counted), and bad `then` input is an
error that changes nothing. The recorded conversations of round 2, their outputs sent ahead, reach the same kitchen
after every turn in fewer calls. A reply sent ahead (the last of `then`): test_reply_ahead.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from e2e.conftest import SeededKitchens
from e2e.helpers import call, call_error
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.server.tools.stage_view import ANSWERED, SEND_AHEAD

from .kitchen_digest import digest_changes, kitchen_digest
from .recorded import Recording, Replays, load_recordings, same_replay
from .scripts import plan, reply, step
from .sent_ahead_replay import replay_sent_ahead

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected

WAITS_FOR_ACT = "not applied: a step waits for Act (a call failed or warned, or Think gave the step none; see the notice)"
PEPPER = "Add black pepper to my shopping list"
PEPPER_OUTPUTS = [
    ("understand", {"processed_message": "add black pepper to the shopping list"}),
    ("think", plan("Add black pepper to the shopping list", step("write", "Add black pepper", "shopping", call={
        "tool": "db_create", "arguments": {"table": "shopping_list", "data": {"name": "black pepper", "quantity": 1, "unit": "jar"}}}))),
    ("reply", reply("Added black pepper to your shopping list.")),
]
ASKS_REPLY = [PEPPER_OUTPUTS[0], ("think", plan("Black pepper is on the list already: nothing to change"))]
"""A turn that writes nothing the state could tell: Reply is asked."""
ALREADY = reply("Black pepper is already on your shopping list.")
LOOKUP = {"quick_mode": True, "quick_mode_confidence": 0.95, "quick_read": {"tool": "recipes_search", "arguments": {"category": "fish"}},
          "processed_message": "list the fish recipes"}


def _sent(outputs: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [{"role": role, "output": output} for role, output in outputs]


SPLITS = {
    "one by one": (0, [1, 1, 1]),
    "understand ahead": (1, [2]),
    "understand and think ahead": (2, [1]),
    "think with understand's submit": (0, [2, 1]),
    "think and reply with understand's submit": (0, [3]),
    "all three with turn_start": (3, []),
}
"""How a turn's three outputs are sent: how many go with turn_start, then the size of each turn_submit's group (its
`output` and, after it, its `then`)."""


async def _drive(client: Client, message: str, outputs: list[tuple[str, dict[str, Any]]], with_start: int,
                 groups: list[int]) -> tuple[dict[str, Any], int]:
    """The turn driven as `with_start` and `groups` say; its last answer and its number of calls."""
    answer = await call(client, "turn_start", message=message, **({"then": _sent(outputs[:with_start])} if with_start else {}))
    rest = outputs[with_start:]
    for size in groups:
        (role, output), ahead = rest[0], rest[1:size]
        answer = await call(client, "turn_submit", role=role, output=output, **({"then": _sent(ahead)} if ahead else {}))
        assert "refused" not in answer and "not_applied" not in answer, answer
        rest = rest[size:]
    return answer, 1 + len(groups)


@pytest.mark.parametrize("split", SPLITS.values(), ids=SPLITS.keys())
async def test_a_write_turn_sent_ahead_ends_as_it_does_one_output_at_a_time(app: AlfredApp, tmp_path: Path,
                                                                             split: tuple[int, list[int]]) -> None:
    async with Client(build_server(app)) as client:
        answer, calls = await _drive(client, PEPPER, PEPPER_OUTPUTS, *split)
        status = await call(client, "turn_status")
    assert answer["stage"] == "done" and answer["outcome"] == "completed" and "reply" not in answer  # the model wrote it
    assert calls == 1 + len(split[1])
    assert status["state"]["model_calls"] == {"understand": 1, "think": 1, "reply": 1}
    added = [row for row in kitchen_digest(Path(app.settings.db))["shopping_list"] if "black pepper" in str(row)]
    assert len(added) == 1, added


async def test_a_lookup_is_one_call_and_think_sent_after_a_quick_read_is_not_applied(client: Client) -> None:
    answer = await call(client, "turn_start", message="What fish recipes do I have?",
                        then=_sent([("understand", LOOKUP), PEPPER_OUTPUTS[1]]))
    assert answer["stage"] == "answered" and answer["expected_role"] is None and "refused" not in answer
    assert answer["not_applied"] == ["then[1] think: not applied: Understand's quick read was the plan, so Reply is expected"]
    assert "Cod" in answer["notice"]  # the quick read's rows, as a submit of it would show them
    assert answer["answered"] == ANSWERED and "next" not in answer  # the client's model answers from them


async def test_outputs_after_a_question_to_the_user_are_not_applied_and_the_turn_asks(client: Client) -> None:
    asks = {"needs_clarification": True, "clarification_questions": ["Which list: shopping or pantry?"],
            "processed_message": "add black pepper somewhere"}
    answer = await call(client, "turn_start", message="Add black pepper", then=_sent([("understand", asks), PEPPER_OUTPUTS[1]]))
    assert answer["stage"] == "done" and answer["outcome"] == "clarify" and answer["expected_role"] is None
    assert answer["reply"] == "Which list: shopping or pantry?" and "next" not in answer
    assert answer["not_applied"] == ["then[1] think: not applied: the turn is done (it asks the user a question)"]


async def test_a_step_whose_call_failed_waits_for_act_and_a_reply_sent_ahead_is_not_applied(client: Client) -> None:
    failing = plan("Show the recipe", step("read", "Show recipe_999", call={"tool": "recipe_show", "arguments": {"recipe": "recipe_999"}}))
    await call(client, "turn_start", message="Show me that recipe")
    answer = await call(client, "turn_submit", role="understand", output={"processed_message": "show a recipe"},
                        then=_sent([("think", failing), ("reply", reply("Here it is."))]))
    assert answer["expected_role"] == "act" and answer["next"]["role"] == "act"
    assert answer["not_applied"] == [f"then[1] reply: {WAITS_FOR_ACT}"]


async def test_a_refused_output_sent_ahead_keeps_the_turn_and_says_what_a_submit_refusal_says(client: Client) -> None:
    """On a session's first turn: the refused role is expected again, its `next` teaches its shape, and the refusal
    counts as a try, exactly as the same output submitted would be refused."""
    bad = {"referenced_refs": ["recipe_999"], "processed_message": "show recipe_999"}
    answer = await call(client, "turn_start", message="Show me recipe 999", then=_sent([("understand", bad), PEPPER_OUTPUTS[1]]))
    assert answer["expected_role"] == "understand" and answer["stage"] == "understand"
    assert "understand" in answer["next"]["output_shapes"] and SEND_AHEAD["understand"] in answer["next"]["instructions"]
    assert answer["not_applied"] == ["then[1] think: not applied, since then[0] was refused"]
    refused = answer["refused"]
    assert refused["field"] == "then[0].output.referenced_refs" and refused["attempt"] == 1 and refused["attempts_left"] == 2
    again = await call_error(client, "turn_submit", role="understand", output=bad)
    assert again["message"] == refused["message"] and again["attempt"] == 2


async def test_a_refused_think_sent_ahead_keeps_understand_applied_and_teaches_think_shape(client: Client) -> None:
    answer = await call(client, "turn_start", message=PEPPER,
                        then=_sent([PEPPER_OUTPUTS[0], ("think", {"goal": "add pepper", "decision": "plan_direct", "steps": "none"})]))
    assert answer["expected_role"] == "think" and answer["refused"]["field"].startswith("then[1].output.steps")
    assert "does not match its schema" in answer["refused"]["message"] and "think" in answer["next"]["output_shapes"]
    assert SEND_AHEAD["think"] in answer["next"]["instructions"]
    status = await call(client, "turn_status")
    assert status["state"]["understanding"]["processed_message"] == "add black pepper to the shopping list"
    assert status["state"]["invalid_outputs"] == {"think": 1}


async def test_a_refused_output_on_turn_submit_applies_none_of_its_then(client: Client) -> None:
    await call(client, "turn_start", message=PEPPER)
    refused = await call_error(client, "turn_submit", role="understand", output={"quick_mode": "yes"}, then=_sent(PEPPER_OUTPUTS[1:2]))
    assert refused["role"] == "understand" and refused["attempt"] == 1
    status = await call(client, "turn_status")
    assert status["state"]["stage"] == "understand" and status["state"]["plan"] is None


BAD_THEN: dict[str, tuple[Any, str]] = {
    "not a list": ({"role": "understand", "output": {}}, "then"),
    "five outputs": ([{"role": "understand", "output": {}}] * 5, "then"),
    "a role no turn has": ([{"role": "chef", "output": {}}], "then[0].role"),
    "an output not an object": ([{"role": "understand", "output": "add pepper"}], "then[0].output"),
    "no output": ([{"role": "understand"}], "then[0].output"),
    "an unknown key": ([{"role": "understand", "output": {}, "why": "x"}], "then[0].why"),
    "an item not an object": (["understand"], "then[0]"),
    "a reply not last": ([{"role": "reply", "output": {"response": "Done."}}, {"role": "understand", "output": {}}], "then[0].role"),
}


@pytest.mark.parametrize("bad", BAD_THEN.values(), ids=BAD_THEN.keys())
async def test_bad_then_on_turn_start_names_the_field_and_begins_no_turn(client: Client, bad: tuple[Any, str]) -> None:
    value, field = bad
    error = await call_error(client, "turn_start", message=PEPPER, then=value)
    assert error["field"] == field and "then" in error["message"]
    assert (await call(client, "turn_status"))["state"] is None


@pytest.mark.parametrize("bad", BAD_THEN.values(), ids=BAD_THEN.keys())
async def test_bad_then_on_turn_submit_names_the_field_and_applies_nothing(client: Client, bad: tuple[Any, str]) -> None:
    value, field = bad
    await call(client, "turn_start", message=PEPPER)
    error = await call_error(client, "turn_submit", role="understand", output=PEPPER_OUTPUTS[0][1], then=value)
    assert error["field"] == field
    state = (await call(client, "turn_status"))["state"]
    assert state["stage"] == "understand" and state["understanding"] is None and state["model_calls"] == {}


async def test_roles_passed_over_are_not_marked_sent_so_a_later_turn_one_by_one_gets_their_instructions(client: Client) -> None:
    first = await call(client, "turn_start", message=PEPPER, then=_sent(ASKS_REPLY))  # nothing written to tell: Reply is asked
    assert first["next"]["role"] == "reply" and set(first["next"]["output_shapes"]) == {"reply"}
    await call(client, "turn_submit", role="reply", output=ALREADY)
    second = await call(client, "turn_start", message="And salt")
    assert "instructions" in second["next"] and set(second["next"]["output_shapes"]) == {"understand"}
    third = await call(client, "turn_submit", role="understand", output={"processed_message": "add salt"})
    assert "instructions" in third["next"] and set(third["next"]["output_shapes"]) == {"think"}


ROUND_2 = [recording for recording in load_recordings() if recording.name.startswith("r2_") and not recording.plain]


@pytest.mark.parametrize("recording", same_replay(ROUND_2))
async def test_a_recorded_conversation_sent_ahead_reaches_the_same_kitchen_in_fewer_calls(
        recording: Recording, tmp_path: Path, seeded_kitchens: SeededKitchens, recorded_replays: Replays) -> None:
    """Each turn's recorded Understand and Think outputs sent ahead (sent_ahead_replay.py): every turn leaves the
    kitchen as the recording did, no output sent ahead is refused or passed over, and no turn takes more calls."""
    one_by_one, ahead = await replay_sent_ahead(recording, tmp_path, seeded_kitchens, replayed=await recorded_replays.of(recording))
    for turn, recorded, sent in zip(recording.turns, one_by_one, ahead, strict=True):
        assert not recorded.diverged and not sent.diverged, f"{turn.label} {turn.message!r}: {recorded.diverged or sent.diverged}"
        assert sent.digest == recorded.digest == turn.digest, f"{turn.label}: {digest_changes(turn.digest, sent.digest)}"
        assert sent.calls <= recorded.calls, f"{turn.label}: {sent.calls} calls sent ahead, {recorded.calls} one by one"
    assert sum(log.calls for log in ahead) < sum(log.calls for log in one_by_one)


async def test_a_planned_call_that_warns_stops_the_outputs_after_it_for_act(client: Client) -> None:
    """A meal planned where that day has one is warned of: the plan's next call waits for Act (the model can ask the
    user first), so a reply sent after it is not applied."""
    meals = (await call(client, "meal_plan_show"))["meals"]
    booked = next(meal for meal in meals if meal["meal_type"] == "dinner" and meal["recipe"])
    recipe = next(meal["recipe"] for meal in meals if meal["recipe"] and meal["recipe"] != booked["recipe"])
    steps = [step("write", "Plan it for that dinner", "meal_plans", call={"tool": "db_create", "arguments": {
                 "table": "meal_plans", "data": {"date": booked["date"], "meal_type": "dinner", "recipe_id": recipe}}}),
             step("write", "And for a lunch", "meal_plans", call={"tool": "db_create", "arguments": {
                 "table": "meal_plans", "data": {"date": "2099-01-02", "meal_type": "lunch", "recipe_id": recipe}}})]
    await call(client, "turn_start", message="Plan that recipe for that dinner and for lunch on 2 January 2099")
    answer = await call(client, "turn_submit", role="understand", output={"referenced_refs": [recipe]},
                        then=_sent([("think", plan("Plan it twice", *steps)), ("reply", reply("Both are planned."))]))
    assert answer["expected_role"] == "act" and answer["step"]["number"] == 2 and "Warnings (" in answer["notice"]
    assert answer["not_applied"] == [f"then[1] reply: {WAITS_FOR_ACT}"]


async def test_a_turn_ended_by_outputs_sent_with_turn_start_answers_with_its_summary_and_no_resend_pointer(client: Client) -> None:
    """A table's quick read ends the turn inside turn_start: its answer carries the ledger, as a submit's would; a
    client sending outputs ahead knows their shapes, so no later turn_start tells it how to get them again."""
    table = {"quick_mode": True, "quick_mode_confidence": 0.95, "quick_read": {"table": "inventory", "limit": 3},
             "processed_message": "what is in the pantry"}
    for _ in range(2):
        answer = await call(client, "turn_start", message="What do I have?", then=_sent([("understand", table)]))
        assert answer["outcome"] == "quick" and answer["expected_role"] is None and answer["reply"]
        assert answer["summary"]
    for item in ("black pepper", "sea salt"):  # a plan with nothing to change: Reply is asked
        outputs = [(role, json.loads(json.dumps(output).replace("black pepper", item))) for role, output in [*ASKS_REPLY, ("reply", ALREADY)]]
        later = await call(client, "turn_start", message=f"Add {item} to my shopping list", then=_sent(outputs[:2]))
        assert later["next"]["role"] == "reply" and "sent_before" not in later["next"]
        await call(client, "turn_submit", role="reply", output=outputs[2][1])
    assert "instructions" not in later["next"]  # Reply's were sent in the turn before
