"""A tool, resource or prompt answers the same on both protocol eras: the same calls over 2026-07-28 and over the
2025-11-25 handshake, on two identical seeded kitchens with the clock stopped, give identical results.

This is what lets every other behaviour test run on 2026-07-28 only (tests/conftest.py `both_eras`): the eras differ
in framing (handshake, sessions, capabilities, sampling, notifications), which the tests marked `both_eras` prove, and
in nothing a tool, resource or prompt says. The calls: EVERY tool in the registry on a scripted turn through the demo
kitchen and with the generated bad calls of `test_error_contract.py` (unknown argument, missing, wrong type, unknown
session, placeholder values), an unknown tool, tools/list, every resource and resource template, every prompt,
completions, subscribe/unsubscribe and logging/setLevel (on the era that has them), and the protocol errors.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, time
from pathlib import Path
from typing import Any

import pytest
import time_machine
from mcp import Client, MCPError
from mcp.types import (
    LOG_LEVEL_META_KEY,
    CallToolResult,
    LoggingMessageNotificationParams,
    PromptReference,
    ResourceTemplateReference,
)

from alfred_mcp.contracts import load_contracts
from alfred_mcp.server.dispatch import ERROR_META
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.server.prompts import role_prompts
from alfred_mcp.server.resources import resource_templates
from e2e.conftest import TODAY, SeededKitchens
from e2e.test_error_contract import error_cases

pytestmark = pytest.mark.anyio
ERAS = ("auto", "legacy")
CONTRACTS = load_contracts()

TURN: list[tuple[str, dict[str, Any]]] = [
    ("turn_begin", {"message": "what can I cook with cod this week?"}),
    ("session_start", {}),
    ("turn_begin", {"message": "show me my recipes"}),
    ("describe_table", {"table": "recipes"}),
    ("db_read", {"table": "recipes", "limit": 3}),
    ("db_read", {"table": "inventory", "limit": 2}),
    ("entity_resolve", {"text": "the cod"}),
    ("recipe_show", {"recipe": "recipe_1"}),
    ("recipes_scale", {"recipe": "recipe_1", "servings": 6}),
    ("recipes_export", {"recipe": "recipe_1"}),
    ("recipes_search", {"ingredient": "cod"}),
    ("recipes_makeable", {"limit": 3}),
    ("constraints_read", {}),
    ("show_working_set", {}),
    ("meal_plan_show", {}),
    ("shopping_list_show", {}),
    ("understanding_submit", {"message": "show me my recipes", "referenced_refs": ["recipe_1"]}),
    ("draft_create", {"entity_type": "recipe", "items": [{"name": "Parity Pie", "ingredients": [{"name": "apple"}], "instructions": ["Bake."]}]}),
    ("draft_read", {}),
    ("draft_revise", {"ref": "gen_recipe_1", "patch": {"name": "Parity Tart"}}),
    ("batch_open", {"refs": ["gen_recipe_1"]}),
    ("batch_status", {}),
    ("draft_save", {"refs": ["gen_recipe_1"]}),
    ("draft_create", {"entity_type": "recipe", "items": [{"name": "Parity Soup", "ingredients": [{"name": "leek"}], "instructions": ["Boil."]}]}),
    ("batch_open", {"refs": ["gen_recipe_2"]}),
    ("batch_skip", {"batch": "batch_3", "refs": ["gen_recipe_2"], "reason": "not wanted"}),
    ("batch_complete", {"batch": "batch_3"}),
    ("draft_discard", {"refs": ["gen_recipe_2"]}),
    ("db_create", {"table": "shopping_list", "data": {"name": "lemons", "quantity": 2}}),
    ("db_update", {"table": "shopping_list", "data": {"quantity": 3}, "filters": [{"field": "name", "op": "eq", "value": "lemons"}]}),
    ("shopping_list_check", {"items": ["shop_1"], "bought": True}),
    ("shopping_list_from", {"recipes": ["recipe_1"], "preview": True}),
    ("meal_cooked", {"recipe": "recipe_1", "servings": 2}),
    ("db_delete", {"table": "shopping_list", "filters": [{"field": "name", "op": "eq", "value": "lemons"}]}),
    ("kitchen_undo", {}),
    ("recipes_import", {"source": "Lemon cod\n\nIngredients\n- 2 cod fillets\n- 1 lemon\n\nMethod\n1. Bake the cod with lemon."}),
    ("turn_reply", {"response": "Here are your recipes."}),
    ("turn_status", {}),
    ("turn_start", {"message": "what is in the fridge?"}),
    ("turn_context", {}),
    ("turn_submit", {"role": "understand", "output": {}}),
    ("turn_abandon", {"reason": "parity check"}),
    ("chat", {"message": "hello"}),
]
"""One scripted conversation touching every tool: most succeed on the demo kitchen, some are refused; either way the
two eras must agree."""


def outcome(result: CallToolResult) -> dict[str, Any]:
    """What a tool call says: its text, structured content, isError and error fields."""
    return {"text": [block.model_dump(mode="json") for block in result.content], "structured": result.structured_content,
            "is_error": result.is_error, "error": (result.meta or {}).get(ERROR_META)}


async def answered(call: Awaitable[Any]) -> Any:
    """The JSON of a request's result, or of the JSON-RPC error it was refused with."""
    try:
        found = await call
    except MCPError as error:
        return {"error": error.error.model_dump(mode="json")}
    return outcome(found) if isinstance(found, CallToolResult) else found.model_dump(mode="json", exclude={"meta"})


Transcript = list[tuple[str, Any]]
Script = Callable[[Client, Transcript], Awaitable[None]]


async def tool_calls(client: Client, seen: Transcript) -> None:
    for tool, arguments in TURN:
        seen.append((f"{tool} {arguments}", await answered(client.call_tool(tool, arguments))))
    seen.append(("unknown tool", await answered(client.call_tool("no_such_tool", {}))))


async def generated_bad_calls(client: Client, seen: Transcript) -> None:
    for tool, contract in CONTRACTS.items():
        for case, arguments, _ in error_cases(contract):
            seen.append((f"{tool}: {case}", await answered(client.call_tool(tool, arguments))))


async def listings_resources_prompts(client: Client, seen: Transcript) -> None:
    for tool, arguments in TURN[:TURN.index(("batch_status", {})) + 2]:  # a turn with refs, a draft saved in a batch
        await client.call_tool(tool, arguments)
    seen.append(("tools/list", await answered(client.list_tools())))
    seen.append(("resources/list", await answered(client.list_resources())))
    seen.append(("resources/templates/list", await answered(client.list_resource_templates())))
    seen.append(("prompts/list", await answered(client.list_prompts())))
    for resource in (await client.list_resources()).resources:
        seen.append((str(resource.uri), await answered(client.read_resource(resource.uri))))
    for template in resource_templates():
        for session in ("current", "session_9") if "session" in template.parsed_template.variable_names else ("current",):
            values = {"session": session, "ref": "recipe_1", "turn": "last", "batch": "latest", "table": "recipes"}
            uri = template.parsed_template.expand({name: values[name] for name in template.parsed_template.variable_names})
            seen.append((uri, await answered(client.read_resource(uri))))
    seen.append(("unknown resource", await answered(client.read_resource("alfred://nowhere"))))
    arguments = {"understand": {"message": "the cod"}, "think": {}, "act": {"step_type": "read", "description": "read recipes"},
                 "reply": {}}
    for prompt in role_prompts():
        seen.append((f"prompt {prompt.name}", await answered(client.get_prompt(prompt.name, arguments[prompt.name]))))
    seen.append(("prompt act, a bad step", await answered(client.get_prompt("act", {"step_type": "bake"}))))
    seen.append(("unknown prompt", await answered(client.get_prompt("no_such_prompt", {}))))
    ref = ResourceTemplateReference(uri="alfred://session/{session}/ref/{ref}")
    for reference, argument, value in [(ref, "ref", "rec"), (ref, "session", ""), (PromptReference(name="act"), "step_type", "w"),
                                       (ResourceTemplateReference(uri="alfred://kitchen/schema/{table}"), "table", "re"),
                                       (PromptReference(name="act"), "bogus", "")]:
        seen.append((f"complete {argument}", await answered(client.complete(reference, {"name": argument, "value": value}))))


async def log_messages(client: Client, seen: Transcript) -> None:
    """After asking for info-level logs (2025-11-25: logging/setLevel; 2026-07-28: the request's log level), a refused
    call and a good one send the same log messages."""
    meta: dict[str, Any] | None = None
    if client.protocol_version == "2025-11-25":
        await client.set_logging_level("info")
    else:
        meta = {LOG_LEVEL_META_KEY: "info"}
    for arguments in ({"table": "nope"}, {"table": "recipes", "limit": 1}, {"table": "recipes", "limit": "x"}):
        seen.append((f"db_read {arguments}", await answered(client.call_tool("db_read", arguments, meta=meta))))


SCRIPTS: dict[str, Script] = {"tool calls": tool_calls, "generated bad calls": generated_bad_calls,
                              "listings, resources, prompts, completions": listings_resources_prompts, "log messages": log_messages}


async def transcript(kitchens: SeededKitchens, folder: Path, mode: str, script: Script) -> Transcript:
    """`script` run by a `mode` client on a fresh copy of the demo kitchen in `folder`, and the log messages it got."""
    folder.mkdir()
    seen: Transcript = []
    logged: list[LoggingMessageNotificationParams] = []

    async def on_log(message: LoggingMessageNotificationParams) -> None:
        logged.append(message)

    async with kitchens.copy(folder, TODAY) as app, Client(build_server(app), mode=mode, logging_callback=on_log) as client:
        await script(client, seen)
    return [*seen, ("log messages sent", [(message.level, message.logger, str(message.data)) for message in logged])]


@pytest.mark.filterwarnings("ignore::mcp.MCPDeprecationWarning")  # logging/setLevel, deprecated by 2026-07-28
@pytest.mark.parametrize("script", list(SCRIPTS))
async def test_both_eras_answer_the_same(tmp_path: Path, seeded_kitchens: SeededKitchens, script: str) -> None:
    with time_machine.travel(datetime.combine(TODAY, time(12)), tick=False):
        current, legacy = [await transcript(seeded_kitchens, tmp_path / mode, mode, SCRIPTS[script]) for mode in ERAS]
    assert [call for call, _ in current] == [call for call, _ in legacy]
    for (call, now), (_, before) in zip(current, legacy):
        assert now == before, call
    if script == "tool calls":  # the same answers, and answers worth comparing: every tool but chat (no model) succeeds
        succeeded = {call.split()[0] for call, answer in current if isinstance(answer, dict) and answer.get("is_error") is False}
        assert succeeded == set(CONTRACTS) - {"chat"}


def test_the_tool_script_calls_every_tool() -> None:
    assert {tool for tool, _ in TURN} == set(CONTRACTS)
