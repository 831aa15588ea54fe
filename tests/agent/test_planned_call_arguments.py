"""A quick read or a Think step's `call` whose arguments the tool would refuse is refused when the role output is
submitted: a role output error naming the argument's path and what is valid, counted as a try, nothing run. Generated
over every tool a step may call (unknown argument, missing required, wrong type) and every table of the table tools
(bad op, unknown filter column, unknown columns read, unknown data column), through the real MCP client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from e2e.helpers import call, call_error
from mcp import Client
from scenarios.kitchen_digest import kitchen_digest

from alfred_mcp.agent.act_tools import tools_for_step
from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import load_contracts
from alfred_mcp.kitchen.query import OPS
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.server.mcp_server import build_server

pytestmark = pytest.mark.anyio

WRITE_TOOLS = tools_for_step("write")
"""A write step may call every tool a step may call."""

_WRONG = {"string": 12, "integer": "twelve", "number": "twelve", "boolean": "yes", "array": "one", "object": "one"}


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected


def _wrong_type_cases(tool: str) -> list[tuple[str, dict[str, Any], set[str]]]:
    """(what, arguments, fields any of which may be named): each typed argument given a value of another type."""
    schema = load_contracts()[tool].input_schema
    required = set(schema.get("required", ()))
    cases = []
    for name, prop in schema.get("properties", {}).items():
        kind = prop.get("type")
        if isinstance(kind, str) and kind in _WRONG:
            cases.append((f"{name} of the wrong type", {name: _WRONG[kind]}, {name} | (required - {name})))
        elif "enum" in prop:
            cases.append((f"{name} not one of its values", {name: "no-such-value"}, {name} | (required - {name})))
    return cases


def _tool_cases(tool: str) -> list[tuple[str, dict[str, Any], set[str]]]:
    schema = load_contracts()[tool].input_schema
    required = list(schema.get("required", ()))
    cases = [("an unknown argument", {"not_an_argument": 1}, {"not_an_argument", *required})]
    if required:
        cases.append(("a required argument missing", {}, set(required)))
    return cases + _wrong_type_cases(tool)


def _table_cases(tool: str) -> list[tuple[str, dict[str, Any], set[str], str]]:
    """(what, arguments, the one field named, a word the message must hold: what is valid)."""
    cases = []
    for table in TABLES.values():
        if tool != "db_read" and not table.user_owned:
            continue
        column = table.visible_columns[1]
        scope: dict[str, Any] = {"table": table.name}
        data = {"data": {column: None}} if tool in ("db_create", "db_update") else {}
        cases += [] if tool == "db_create" else [
            (f"{table.name}: op '='", {**scope, **data, "filters": [{"field": column, "op": "=", "value": "x"}]}, {"filters[0].op"}, "ilike"),
            (f"{table.name}: unknown filter column", {**scope, **data, "filters": [{"field": "colour", "op": "eq", "value": "x"}]},
             {"filters[0].field"}, column),
        ]
        if tool == "db_read":
            cases.append((f"{table.name}: unknown column read", {**scope, "columns": [column, "colour"]}, {"columns"}, column))
        if tool in ("db_create", "db_update"):
            filters = {"filters": [{"field": "id", "op": "eq", "value": f"{table.entity_type}_1"}]} if tool == "db_update" else {}
            cases.append((f"{table.name}: unknown data column", {**scope, **filters, "data": {"colour": "red"}}, {"data.colour"}, column))
    return cases


async def _refused_at_think(client: Client, app: AlfredApp, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A two-step plan whose second step carries the call: the refusal, checked to have run nothing and cost one try."""
    before = kitchen_digest(Path(app.settings.db))
    await call(client, "turn_start", message="do it")
    await call(client, "turn_submit", role="understand", output={})
    steps = [{"description": "look first", "step_type": "read", "subdomain": "recipes"},
             {"description": f"{tool} now", "step_type": "write", "subdomain": "recipes", "call": {"tool": tool, "arguments": arguments}}]
    refused = await call_error(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct", "steps": steps})
    state = (await call(client, "turn_status"))["state"]
    assert state["stage"] == "think" and state["invalid_outputs"] == {"think": 1}, refused
    assert kitchen_digest(Path(app.settings.db)) == before
    await call(client, "turn_abandon")
    return refused


def test_every_tool_a_step_may_call_has_cases() -> None:
    assert all(_tool_cases(tool) for tool in WRITE_TOOLS)


@pytest.mark.parametrize("tool", WRITE_TOOLS)
async def test_a_planned_call_the_tools_contract_refuses_is_refused_at_think_naming_the_argument(
    client: Client, app: AlfredApp, tool: str,
) -> None:
    for what, arguments, fields in _tool_cases(tool):
        refused = await _refused_at_think(client, app, tool, arguments)
        named = refused["field"].removeprefix("output.steps[1].call.arguments.")
        assert named.split(".")[0].split("[")[0] in fields, (what, refused)
        assert f"steps[1].call.arguments.{named}:" in refused["message"], (what, refused)


@pytest.mark.parametrize("tool", ["db_read", "db_create", "db_update", "db_delete"])
async def test_a_planned_table_call_the_tool_would_refuse_is_refused_at_think_with_what_is_valid(
    client: Client, app: AlfredApp, tool: str,
) -> None:
    await call(client, "db_read", table="meal_plans", limit=1)  # meal_1 and the like are refs of the session
    for what, arguments, fields, valid in _table_cases(tool):
        refused = await _refused_at_think(client, app, tool, arguments)
        assert refused["field"].removeprefix("output.steps[1].call.arguments.") in fields, (what, refused)
        assert valid in refused["message"], (what, refused)


@pytest.mark.parametrize(("filters", "field", "valid"), [
    ([{"field": "location", "op": "=", "value": "fridge"}], "output.quick_read.filters[0].op", list(OPS)),
    ([{"field": "colour", "op": "eq", "value": "red"}], "output.quick_read.filters[0].field", ["location", "expiry_date"]),
    ([{"field": "expiry_date", "op": "ilike", "value": "%3%"}], "output.quick_read.filters[0].op", ["eq", "lte"]),
])
async def test_a_quick_read_of_a_table_the_read_would_refuse_is_refused_at_understand(
    client: Client, app: AlfredApp, filters: list[dict[str, Any]], field: str, valid: list[str],
) -> None:
    """'What is in my fridge?' with op '=': one refused try naming the op and the valid ones, then the fixed read runs."""
    await call(client, "turn_start", message="What is in my fridge?")
    quick = {"quick_mode": True, "quick_mode_confidence": 0.95, "quick_read": {"table": "inventory", "filters": filters}}
    refused = await call_error(client, "turn_submit", role="understand", output=quick)
    assert refused["field"] == field and all(word in refused["message"] for word in valid), refused
    state = (await call(client, "turn_status"))["state"]
    assert state["stage"] == "understand" and state["invalid_outputs"] == {"understand": 1}
    fixed = {**quick, "quick_read": {"table": "inventory", "filters": [{"field": "location", "op": "eq", "value": "fridge"}]}}
    answered = await call(client, "turn_submit", role="understand", output=fixed)
    assert answered["stage"] == "answered" and answered["outcome"] == "quick"
