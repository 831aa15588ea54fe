"""Every step of a plan that carries its `call` runs it at once when the turn reaches it, also after a step Act
carried out (a plan of 2-4 steps, the later steps' calls of every tool class: read, generate, write)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from itertools import product
from typing import Any

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server

pytestmark = pytest.mark.anyio

CALLS: dict[str, tuple[str, str, dict[str, Any], str]] = {
    "read": ("read", "db_read", {"table": "tasks", "limit": 5}, "db_read tasks"),
    "read tool": ("read", "recipe_show", {"recipe": "recipe_1"}, "recipe_show"),
    "generate": ("generate", "draft_create", {"entity_type": "task", "items": [{"title": "Soak the beans"}]}, "draft_create"),
    "write": ("write", "db_create", {"table": "tasks", "data": {"title": "Defrost the salmon"}}, "db_create tasks: 1 created"),
}
"""A step's call of each class: (step type, tool, arguments, how its notice begins)."""
SAVE_THE_DRAFT = ("write", "draft_save", {"refs": ["gen_task_1"]}, "draft_save")
"""A write after the generate step covers its draft: it saves it."""


def _call_of(name: str, earlier: tuple[str, ...]) -> tuple[str, str, dict[str, Any], str]:
    return SAVE_THE_DRAFT if name == "write" and "generate" in earlier else CALLS[name]

PLANS = [later for size in (1, 2, 3) for later in product(sorted(CALLS), repeat=size) if len(set(later)) == size]


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected


@pytest.mark.parametrize("later", PLANS, ids=[" then ".join(plan) for plan in PLANS])
async def test_the_calls_of_the_steps_after_acts_step_run_without_asking_act(client: Client, later: tuple[str, ...]) -> None:
    await call(client, "db_read", table="recipes", columns=["name"], order_by=[{"field": "name"}], limit=1)
    await call(client, "turn_start", message="Look at my meals, then the rest")
    await call(client, "turn_submit", role="understand", output={"referenced_refs": ["recipe_1"]})
    steps = [{"description": "read the meals", "step_type": "read", "subdomain": "meal_plans"}]
    for index, name in enumerate(later):
        step_type, tool, arguments, _ = _call_of(name, later[:index])
        steps.append({"description": f"{name} step", "step_type": step_type, "subdomain": "tasks", "call": {"tool": tool, "arguments": arguments}})
    planned = await call(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct", "steps": steps})
    assert planned["expected_role"] == "act" and planned["step"]["number"] == 1, "the first step carries no call: Act's"
    answer = await call(client, "turn_submit", role="act", output={"decision": {
        "action": "tool_call", "tool": "db_read", "arguments": {"table": "meal_plans", "limit": 3}, "complete_step": True}})
    assert answer["expected_role"] == "reply" or "answered" in answer, answer.get("notice")  # reads only: answered from rows
    notice = answer["notice"]
    assert notice.startswith("db_read meal_plans"), "Act's own call is told first"
    positions = [notice.find(_call_of(name, later[:index])[3]) for index, name in enumerate(later)]
    assert all(at > 0 for at in positions) and positions == sorted(positions), notice
    status = (await call(client, "turn_status"))["state"]
    assert [step["status"] for step in status["steps"]] == ["completed"] * len(steps)
    assert status["model_calls"]["act"] == 1
