"""A client's model in a new chat on an old session lacks what the session's first turns were sent: each turn's first
answer says so, and turn_context with full: true sends it again."""

from __future__ import annotations

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.tools.agent_turns import SENT_BEFORE

pytestmark = pytest.mark.anyio

QUICK = {"quick_mode": True, "quick_mode_confidence": 0.9, "quick_read": {"table": "tasks", "limit": 3}}


@pytest.mark.parametrize("turns_before", [1, 3])
async def test_a_turns_first_answer_says_where_the_instructions_went(client: Client, app: AlfredApp, turns_before: int) -> None:
    first = await call(client, "turn_start", message="what are my tasks?")
    assert "instructions" in first["next"] and "sent_before" not in first["next"]
    await call(client, "turn_submit", role="understand", output=QUICK)
    for _ in range(turns_before - 1):
        await call(client, "turn_start", message="and again?")
        await call(client, "turn_submit", role="understand", output=QUICK)
    later = await call(client, "turn_start", message="what are my tasks now?")
    assert later["next"]["sent_before"] == SENT_BEFORE and "instructions" not in later["next"]
    again = await call(client, "turn_context", full=True)
    assert again["instructions"].startswith("# Understand") and "output_schema" in again
