"""A write step whose rows are not there ('mark the eggs as bought' with no eggs on the list) ends honestly: Act
completes it saying why, the turn is not blocked, the reply says nothing was changed, and the state's own account
never asks the user to name what to change. A write step that simply did not write (nothing looked up and found
missing) still ends blocked, without that misleading hint."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from e2e.helpers import call, call_error
from mcp import Client
from scenarios.kitchen_digest import kitchen_digest

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server

pytestmark = pytest.mark.anyio

FIND = {"table": "shopping_list", "filters": [{"field": "name", "op": "ilike", "value": "%dragon fruit%"}], "columns": ["name"]}
NOTHING = {"action": "step_complete", "result_summary": "Nothing to mark: no dragon fruit line on the shopping list; nothing changed."}
HONEST = "Dragon fruit isn't on your shopping list, so there was nothing to mark as bought and I changed nothing."


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected


def _plan(find_with_a_call: bool) -> dict[str, Any]:
    find: dict[str, Any] = {"description": "find the dragon fruit line", "step_type": "read", "subdomain": "shopping"}
    if find_with_a_call:
        find["call"] = {"tool": "db_read", "arguments": FIND}
    return {"goal": "mark dragon fruit bought", "decision": "plan_direct",
            "steps": [find, {"description": "mark it bought", "step_type": "write", "subdomain": "shopping"}]}


async def _at_the_write_step(client: Client, find_with_a_call: bool) -> None:
    await call(client, "turn_start", message="Mark the dragon fruit as bought.")
    await call(client, "turn_submit", role="understand", output={})
    planned = await call(client, "turn_submit", role="think", output=_plan(find_with_a_call))
    if not find_with_a_call:
        await call(client, "turn_submit", role="act", output={"decision": {
            "action": "tool_call", "tool": "db_read", "arguments": FIND, "complete_step": True}})
    else:
        assert planned["step"]["number"] == 2


@pytest.mark.parametrize("find_with_a_call", [True, False], ids=["the plan's read", "Act's read"])
async def test_a_write_step_over_rows_a_read_found_missing_completes_and_the_reply_says_so(
    client: Client, app: AlfredApp, find_with_a_call: bool,
) -> None:
    before = kitchen_digest(Path(app.settings.db))
    await _at_the_write_step(client, find_with_a_call)
    answer = await call(client, "turn_submit", role="act", output={"decision": NOTHING})
    assert answer["expected_role"] == "reply", answer.get("notice")
    done = await call(client, "turn_submit", role="reply", output={"response": HONEST})
    state = (await call(client, "turn_status"))["state"]
    assert done["outcome"] == "completed" and (state["reply"], state["reply_source"]) == (HONEST, "model")
    assert kitchen_digest(Path(app.settings.db)) == before


async def test_the_states_own_account_of_such_a_turn_does_not_ask_to_name_the_change(client: Client) -> None:
    await _at_the_write_step(client, True)
    await call(client, "turn_submit", role="act", output={"decision": NOTHING})
    for _ in range(2):
        await call_error(client, "turn_submit", role="reply", output={"response": "I marked the dragon fruit as bought."})
    last = await call(client, "turn_submit", role="reply", output={"response": "I marked the dragon fruit as bought."})
    assert last["outcome"] == "completed" and "naming what to change" not in last["reply"], last["reply"]


async def test_a_write_step_that_did_not_write_with_nothing_found_missing_still_ends_blocked_without_the_hint(client: Client) -> None:
    await call(client, "turn_start", message="Add eggs to my shopping list.")
    await call(client, "turn_submit", role="understand", output={})
    await call(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct", "steps": [
        {"description": "add eggs", "step_type": "write", "subdomain": "shopping"}]})
    ended = await call(client, "turn_submit", role="act", output={"decision": {"action": "step_complete", "result_summary": "added"}})
    assert ended["outcome"] == "blocked" and "naming what to change" not in ended["reply"], ended["reply"]
