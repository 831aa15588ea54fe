"""Act's tool line in a stage client's context never sends the model to tools/list for a tool that is not in it:
every tool the step may call is either in the client's own tools/list (named) or given apart with its typed signature
and first clause, as the bundled loop's model reads it. Generated over every step type and host control, the
listings (--listed) included."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.agent import act_tools
from alfred_mcp.agent.prompting import EVERY_TOOL
from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import load_contracts
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.server.tools.stage_listing import in_catalog
from alfred_mcp.server.toolsets import HostControls

pytestmark = pytest.mark.anyio
CONTRACTS = load_contracts()
CONTROLS: dict[str, dict[str, Any]] = {
    "default": {}, "tools all": {"tools": ("all",)}, "tools core,stages,drafts": {"tools": ("core", "stages", "drafts")},
    "listed stages": {"listed": ("stages",)}, "listed stages,db_read": {"listed": ("stages", "db_read")},
    "tools core,stages,kitchen, listed stages,recipes_search": {"tools": ("core", "stages", "kitchen"),
                                                               "listed": ("stages", "recipes_search")},
}
APART = "Not in your tools/list"


@pytest.mark.parametrize("controls", CONTROLS.values(), ids=list(CONTROLS))
@pytest.mark.parametrize("step_type", act_tools.STEP_TYPES)
async def test_every_step_tool_is_in_the_clients_tools_list_or_comes_with_its_typed_signature(
    app: AlfredApp, controls: dict[str, Any], step_type: str
) -> None:
    app.settings = replace(app.settings, **controls)
    async with Client(build_server(app)) as client:
        # a tool in the stage listing's catalog (turn_start's schema) is one the client has, as a listed one
        seen = {tool.name for tool in (await client.list_tools()).tools} | in_catalog(HostControls.from_settings(app.settings, CONTRACTS))
        await call(client, "turn_start", message="do the thing")
        await call(client, "turn_submit", role="understand", output={})
        await call(client, "turn_submit", role="think", output={"goal": "Do it", "decision": "plan_direct", "steps": [
            {"description": "Do the thing", "step_type": step_type, "subdomain": "recipes"}]})
        context = (await call(client, "turn_context", full=True))["context"]
    block = context.split("## Tools for this step\n", 1)[1].split("\n\n", 1)[0]
    named, _, apart = block.partition(APART)
    served = HostControls.from_settings(app.settings, CONTRACTS).served
    if block.startswith(EVERY_TOOL):  # a write step whose every tool the client has: named as that, not one by one
        assert step_type == "write" and set(act_tools.tools_for_step(step_type, served)) <= seen, block
        return
    for name in act_tools.tools_for_step(step_type, served):
        in_named = re.search(rf"\b{name}\b", named) is not None
        assert in_named == (name in seen), (name, block)
        if name not in seen:  # its signature: each argument with its type (as the bundled loop's model reads it)
            line = next((line for line in apart.splitlines() if line.startswith(f"- {name}(")), None)
            assert line is not None, (name, block)
            for argument in set(CONTRACTS[name].input_schema.get("properties", {})) - {"session"}:
                assert re.search(rf"[(,] ?{argument}\??: ", line), (name, argument, line)
