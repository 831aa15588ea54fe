"""A session's first turn_start answer that passes Think's context over (Understand's and Think's outputs sent ahead)
carries the kitchen's overview (the household and the meals planned next, by ref) under `kitchen`, once a session;
not while Understand or Think is next (Think's context carries the dashboard), nor once the client was sent it.
(Real client, real SQLite, the demo kitchen.)"""

from __future__ import annotations

import re
from typing import Any

import pytest
from mcp import Client

from .helpers import call

pytestmark = pytest.mark.anyio
HEAD = "Your kitchen (sent once a session):"
UNDERSTAND = {"role": "understand", "output": {"processed_message": "list my recipes"}}
THINK = {"role": "think", "output": {"goal": "list recipes", "decision": "plan_direct", "steps": [
    {"description": "Read recipes", "step_type": "read", "subdomain": "recipes",
     "call": {"tool": "db_read", "arguments": {"table": "recipes", "columns": ["name"]}}}]}}
AHEAD: dict[str, list[dict[str, Any]]] = {"nothing": [], "understand": [UNDERSTAND], "understand+think": [UNDERSTAND, THINK]}


def _overview(answer: dict[str, Any]) -> str | None:
    kitchen = answer.get("kitchen")
    assert kitchen is None or kitchen.startswith(HEAD)
    return kitchen


@pytest.mark.parametrize("ahead", AHEAD)
async def test_the_first_answer_of_a_session_carries_the_week_once(client: Client, ahead: str) -> None:
    session = (await call(client, "session_start"))["session"]
    first = await call(client, "turn_start", message="what recipes do I have?", session=session, then=AHEAD[ahead])
    overview = _overview(first)
    if ahead != "understand+think":
        assert overview is None and first["expected_role"] in ("understand", "think")
        return
    assert overview is not None, first
    assert "- Household: 2 adults, 1 kid (meals default to 3 servings)" in overview
    (meals,) = [line for line in overview.splitlines() if line.startswith("- Next meals (")]
    assert re.search(r"meal_\d+ \w{3} \w{3} \d+ \[dinner\] → recipe_\d+ ", meals), meals
    await call(client, "turn_abandon", session=session)
    again = await call(client, "turn_start", message="and my pantry?", session=session, then=AHEAD[ahead])
    assert _overview(again) is None


async def test_a_client_sent_the_dashboard_gets_no_overview(client: Client) -> None:
    session = (await call(client, "session_start"))["session"]
    await call(client, "turn_start", message="plan dinners", session=session, then=[UNDERSTAND])  # Think's context: the dashboard
    await call(client, "turn_abandon", session=session)
    assert _overview(await call(client, "turn_start", message="and lunch?", session=session, then=[UNDERSTAND, THINK])) is None
