"""A role output sent ahead and refused for a bad argument changed nothing: the answer gives the refusal (what to fix)
and the role's instructions and shape as usual, but not the role's context again; the context is still the client's
to ask for (turn_context), and the memo of what it was sent is not fooled. Through the real client."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.server.tools.stage_view import NOT_RESENT

from .test_sent_ahead import PEPPER, PEPPER_OUTPUTS

pytestmark = pytest.mark.anyio

UNDERSTAND, THINK, _ = PEPPER_OUTPUTS
THINK_PLAN: dict[str, Any] = THINK[1]
WRONG_COLUMN = json.loads(json.dumps(THINK_PLAN).replace('"name": "black pepper"', '"item": "black pepper"'))
BAD = {  # the outputs sent ahead, the last one refused, and the field its refusal names
    "understand: an unknown ref": ([("understand", {"referenced_refs": ["recipe_999"], "processed_message": "x"})], "then[0]"),
    "think: no steps": ([UNDERSTAND, ("think", {"goal": "add pepper", "decision": "plan_direct", "steps": "none"})], "then[1]"),
    "think: a wrong column": ([UNDERSTAND, ("think", WRONG_COLUMN)], "then[1]"),
}


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected


@pytest.mark.parametrize("sent", BAD.values(), ids=BAD.keys())
async def test_a_refused_output_sent_ahead_is_answered_without_its_roles_context(
        client: Client, sent: tuple[list[tuple[str, dict[str, Any]]], str]) -> None:
    outputs, field = sent
    role = outputs[-1][0]
    answer = await call(client, "turn_start", message=PEPPER, then=[{"role": r, "output": o} for r, o in outputs])
    assert answer["expected_role"] == role and answer["refused"]["field"].startswith(field), answer
    assert answer["next"]["context"] == NOT_RESENT and answer["next"]["role"] == role
    asked = await call(client, "turn_context")
    assert asked["context"].startswith("## ") and "unchanged" not in asked["context"].split("\n", 1)[0], asked["context"][:200]
    fixed = dict(PEPPER_OUTPUTS)[role]
    onward = await call(client, "turn_submit", role=role, output=fixed)
    assert "refused" not in onward and onward["expected_role"] != role
