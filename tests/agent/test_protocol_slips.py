"""A client's slip in driving the stages (a role submitted when another is expected, at every stage, for every
role) is answered as an error and is no fact of the turn: Reply's context, the turn's summary and the next turn's
"what happened" never show it as a failure. (Real client, real SQLite, the client's own role outputs.)
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e.helpers import call, call_error
from mcp import Client

pytestmark = pytest.mark.anyio

ROLES = ("understand", "think", "act", "reply")
OUTPUTS: dict[str, list[dict[str, Any]]] = {
    "understand": [{"referenced_refs": []}],
    "think": [{"goal": "List recipes", "decision": "plan_direct",
               "steps": [{"description": "Read two recipes", "step_type": "read", "subdomain": "recipes"}]}],
    "act": [{"decision": {"action": "tool_call", "tool": "db_read", "arguments": {"table": "recipes", "limit": 2}}},
            {"decision": {"action": "step_complete", "result_summary": "read 2 recipes"}}],
    "reply": [{"response": "You have recipes."}],
}


async def test_a_role_out_of_order_is_refused_and_is_no_failure_of_the_turn(client: Client) -> None:
    state = await call(client, "turn_start", message="What recipes do I have?")
    for expected in ROLES:
        for output in OUTPUTS[expected]:
            assert state["expected_role"] == expected or (expected == "reply" and "answered" in state)  # a lookup takes one
            for wrong in (role for role in ROLES if role != expected):
                refused = await call_error(client, "turn_submit", role=wrong, output=OUTPUTS[wrong][0])
                assert refused["code"] == "out_of_order" and expected in refused["message"]
            if expected == "reply":
                reply_context = (await call(client, "turn_context", role="reply"))["context"]
                assert "turn_submit" not in reply_context and "out_of_order" not in reply_context
            state = await call(client, "turn_submit", role=expected, output=output)
    assert state["stage"] == "done" and not state["summary"].get("errors")

    later = await call(client, "turn_start", message="Thanks")
    assert "out_of_order" not in later["next"]["context"] and "turn_submit" not in later["next"]["context"]
