"""The stage listing (`--listed stages`): tools/list narrowed to the turn tools, carrying the roles' output shapes and a
first turn's instructions once (in turn_start's input schema), while every served tool stays callable and reachable from Act's steps. Through the
real client on a seeded kitchen."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from e2e.helpers import call
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from alfred_mcp.agent.act_tools import STEP_TYPES, act_callable, tools_for_step
from alfred_mcp.agent.prompting import EVERY_TOOL
from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.contracts import EXTRA_TOOLS, load_contracts
from alfred_mcp.errors import ConfigError
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.server.tools.stage_listing import COLUMNS_HEAD, COLUMNS_LEFT_OUT, in_catalog
from alfred_mcp.server.toolsets import TOOLSETS, HostControls
from alfred_mcp.state.table_columns import columns_section, table_line

from .first_turn import SEARCH, followed_first_turn, sent_ahead_first_turn
from .scripts import plan, step

pytestmark = pytest.mark.anyio
CONTRACTS = load_contracts()
STAGE_TOOLS = {"turn_start", "turn_submit", "turn_context", "turn_abandon"}
LISTINGS: dict[str, tuple[str, ...]] = {
    "stages": ("stages",), "turn_start,turn_submit": ("turn_start", "turn_submit"), "views,db_read": ("views", "db_read"),
    "stages,turn_status": ("stages", "turn_status"),
}


def _listing(app: AlfredApp, listed: tuple[str, ...]) -> AlfredApp:
    app.settings = replace(app.settings, listed=listed)
    return app


def _bytes(tools: list[Any]) -> int:
    dumped = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
    return len(json.dumps({"tools": dumped}, separators=(",", ":"), ensure_ascii=False).encode())


def test_the_stage_listing_is_the_turn_tools_a_stage_client_calls() -> None:
    """`stages` lists the turn tools but turn_status, an extra (the answers carry the turn's status); named, it is listed."""
    assert HostControls.from_settings(Settings(listed=("stages",)), CONTRACTS).listing == STAGE_TOOLS
    assert HostControls.from_settings(Settings(listed=("stages", "turn_status")), CONTRACTS).listing == STAGE_TOOLS | {"turn_status"}
    assert HostControls.from_settings(Settings(listed=("all",)), CONTRACTS).listing == set(CONTRACTS)
    drafts = HostControls.from_settings(Settings(listed=("drafts",)), CONTRACTS).listing
    assert drafts == set(TOOLSETS["drafts"]) - EXTRA_TOOLS


@settings(max_examples=200, deadline=None)
@given(names=st.lists(st.sampled_from(sorted([*TOOLSETS, "all", *CONTRACTS])), min_size=1, max_size=5),
       tools=st.sampled_from([(), ("core", "stages"), ("stages", "kitchen", "db_read"), ("all",)]), read_only=st.booleans())
def test_a_listing_never_narrows_what_is_served_and_lists_what_it_names(
        names: list[str], tools: tuple[str, ...], read_only: bool) -> None:
    """Any listing, under any other controls: what is served is what it would be without the listing; the listing is
    served tools only, every tool it names by name, and nothing it does not name (an extra only by name or `all`). A
    tool it names that is not served stops the start, saying why, and so does a listing of no served tool."""
    unlisted = HostControls.from_settings(Settings(tools=tools, read_only=read_only), CONTRACTS)
    by_toolset = {tool for name in names if name in TOOLSETS for tool in TOOLSETS[name] if tool not in EXTRA_TOOLS}
    named = set(CONTRACTS) if "all" in names else {name for name in names if name in CONTRACTS} | by_toolset
    try:
        controls = HostControls.from_settings(Settings(tools=tools, read_only=read_only, listed=tuple(names)), CONTRACTS)
    except ConfigError as error:
        refused = [name for name in names if name in CONTRACTS and name not in unlisted.served]
        if refused:
            assert error.message.startswith(f"--listed / ALFRED_LISTED names {refused[0]}, which is not served: ")
        else:
            assert not named & unlisted.served and "lists no tool this server serves" in error.message
        return
    assert controls.served == unlisted.served and controls.listing is not None and controls.listing <= controls.served
    assert {name for name in names if name in CONTRACTS} <= controls.listing
    assert controls.listing == named & controls.served


@pytest.mark.parametrize("names", [("bogus",), ("stages", "turn_strat"), ("stage",)])
def test_an_unknown_listed_name_fails_naming_it(names: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError) as raised:
        HostControls.from_settings(Settings(listed=names), CONTRACTS)
    unknown = next(name for name in names if name not in TOOLSETS)
    assert raised.value.message.startswith(f"--listed / ALFRED_LISTED: unknown tool or toolset '{unknown}'.")
    assert raised.value.fields["field"] == "listed"


def test_a_listed_tool_the_host_does_not_serve_fails_saying_why() -> None:
    with pytest.raises(ConfigError) as raised:
        HostControls.from_settings(Settings(tools=("core",), listed=("stages", "recipes_scale")), CONTRACTS)
    assert raised.value.message == ("--listed / ALFRED_LISTED names recipes_scale, which is not served: it is not in this "
                                    "server's tool allow-list (--tools).")
    narrowed = HostControls.from_settings(Settings(tools=("core", "turn_start"), listed=("stages",)), CONTRACTS)
    assert narrowed.listing == {"turn_start"}, "a toolset's tools the host does not serve are not listed"


@pytest.mark.parametrize("listed", LISTINGS.values(), ids=list(LISTINGS))
async def test_a_listing_narrows_tools_list_and_every_served_tool_stays_callable(app: AlfredApp, listed: tuple[str, ...]) -> None:
    """Generated over the registry: each tool is listed exactly when the listing names it, and each one, listed or not,
    is run when called (its own answer or its own argument error, never a refusal by the host)."""
    async with Client(build_server(_listing(app, listed))) as client:
        shown = {tool.name for tool in (await client.list_tools()).tools}
        assert shown == HostControls.from_settings(app.settings, CONTRACTS).listing
        for name in CONTRACTS:
            result = await client.call_tool(name, {})
            text = result.content[0].text if result.content and result.content[0].type == "text" else ""
            assert "is not available" not in text and "Unknown tool" not in text, (name, text)
            if result.is_error:
                error = (result.meta or {}).get("alfred/error", {})
                assert error.get("code") != "internal_error", (name, text)


async def test_the_other_controls_still_narrow_what_is_served_under_a_listing(app: AlfredApp) -> None:
    app.settings = replace(app.settings, tools=("stages", "core"), listed=("stages",))
    async with Client(build_server(app)) as client:
        refused = await client.call_tool("recipes_scale", {"recipe": "recipe_1", "servings": 2})
        assert refused.is_error and "allow-list (--tools)" in refused.content[0].text  # type: ignore[union-attr]
        assert (await call(client, "db_read", table="recipes", limit=1))["count"] == 1


def _without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {key: _without_descriptions(value) for key, value in schema.items() if key != "description"}
    return [_without_descriptions(value) for value in schema] if isinstance(schema, list) else schema


@pytest.mark.parametrize("listed", LISTINGS.values(), ids=list(LISTINGS))
async def test_a_listing_keeps_the_contracts_and_every_description_within_what_clients_keep(
        app: AlfredApp, listed: tuple[str, ...]) -> None:
    """Each listed tool is its contract as published; turn_start's carries the role texts in its input schema's field
    descriptions (what it admits is the same) and says so after its own description, which stays within the 2,048
    characters Claude Code keeps of a tool's description."""
    async with Client(build_server(_listing(app, listed))) as client:
        tools = (await client.list_tools()).tools
    for tool in tools:
        contract = CONTRACTS[tool.name]
        assert (tool.output_schema, tool.title) == (contract.output_schema, contract.title)
        assert _without_descriptions(tool.input_schema) == _without_descriptions(contract.input_schema)
        carries = tool.name == "turn_start"
        assert (tool.input_schema == contract.input_schema, tool.description == contract.description) == (not carries, not carries)
        assert tool.description.startswith(contract.description) and len(tool.description) <= 2_048, tool.name


async def test_the_stage_listing_is_far_smaller_than_the_default(app: AlfredApp) -> None:
    """The stage listing, role texts and the catalog of Act's tools included, is at most half the default list's bytes."""
    async with Client(build_server(app)) as client:
        default = (await client.list_tools()).tools
    async with Client(build_server(_listing(app, ("stages",)))) as client:
        staged = (await client.list_tools()).tools
    assert _bytes(staged) * 2 <= _bytes(default), (_bytes(staged), _bytes(default))


async def test_tools_list_carries_the_shapes_and_instructions_the_answers_would_send_and_they_are_not_sent_again(
        app: AlfredApp) -> None:
    """One source: the texts the answers send under the default listing are, word for word, in the stage listing's
    turn_start input schema; under it, the same turn's answers send no output shape and only Act's instructions."""
    async with Client(build_server(app)) as client:
        shapes, instructions, _ = await followed_first_turn(client)
    assert set(shapes) == {"understand", "think", "act"} == set(instructions)  # a lookup: answered from its rows, no Reply
    async with Client(build_server(_listing(app, ("stages",)))) as client:
        schema = next(tool.input_schema for tool in (await client.list_tools()).tools if tool.name == "turn_start")
        await call(client, "session_start")
        listed_shapes, listed_instructions, _ = await followed_first_turn(client)
    item = schema["properties"]["then"]["items"]["properties"]
    assert item["output"]["description"].startswith("\n".join(f"{role}: {shapes[role]}" for role in ("understand", "think", "act")))
    assert "\nreply: {" in item["output"]["description"]  # and Reply's, for a turn that needs one
    assert item["role"]["description"].startswith("\n\n".join(instructions[role] for role in ("understand", "think")))
    assert listed_shapes == {}
    assert set(listed_instructions) == {"act"}


async def test_turn_context_says_what_tools_list_carried_and_full_sends_it_again(app: AlfredApp) -> None:
    async with Client(build_server(_listing(app, ("stages",)))) as client:
        await call(client, "turn_start", message=SEARCH.message)
        marked = await call(client, "turn_context")
        assert "instructions" in marked and "output_schema" not in marked
        assert marked["instructions"] == ("(the understand instructions: in tools/list (turn_start's input schema); "
                                          "full: true sends them again)")
        assert marked["output_schema_sent_turn"] == 0
        full = await call(client, "turn_context", full=True)
        assert full["instructions"].startswith("# Understand") and full["output_schema"]["properties"]["referenced_refs"]


async def test_a_first_turn_sends_understand_and_think_ahead_from_tools_list_alone_and_act_calls_an_unlisted_tool(
        app: AlfredApp) -> None:
    """The model reads only tools/list, then sends Understand's and Think's outputs with its FIRST turn_start; Act's step
    calls recipes_search, which its tools/list does not list (its catalog gives its typed signature); the turn
    completes in fewer calls, and fewer bytes with tools/list counted, than the same first turn on the default listing,
    where the model learns the shapes from the answers."""
    async with Client(build_server(app)) as client:
        default_list = _bytes((await client.list_tools()).tools)
        *_, default = await followed_first_turn(client)
    async with Client(build_server(_listing(app, ("stages",)))) as client:
        tools = (await client.list_tools()).tools
        assert "recipes_search" not in {tool.name for tool in tools}
        await call(client, "session_start")
        listed = await sent_ahead_first_turn(client)
        status = await call(client, "turn_status")
    act_calls = [call for step in status["state"]["steps"] for call in step["tool_calls"]]
    assert [(call["tool"], call["ok"]) for call in act_calls] == [("recipes_search", True)]
    assert (listed.calls, default.calls) == (3, 5)  # a lookup needs no Reply call
    assert listed.bytes + _bytes(tools) < default.bytes + default_list, (listed.bytes, default.bytes)


CONTROLS = [{}, {"tools": ("stages", "core")}, {"tools": ("stages", "kitchen", "db_read", "drafts")}]


@pytest.mark.parametrize("controls", CONTROLS, ids=lambda controls: ",".join(f"{k}={v}" for k, v in controls.items()) or "all")
async def test_the_stage_listing_carries_once_the_signature_of_every_tool_act_may_call(
        app: AlfredApp, controls: dict[str, Any]) -> None:
    """Generated over the registry, under other controls: turn_start's `then` describes every served tool some step may
    call, by its typed signature without `session` (Think can give any step its `call`), and no tool the host does not
    serve; no other listed tool repeats them."""
    app.settings = replace(app.settings, listed=("stages",), **controls)
    served = HostControls.from_settings(app.settings, CONTRACTS).served
    async with Client(build_server(app)) as client:
        tools = (await client.list_tools()).tools
    catalog = next(tool.input_schema for tool in tools if tool.name == "turn_start")["properties"]["then"]["description"]
    lines = catalog.splitlines()
    for name in act_callable():
        properties = CONTRACTS[name].input_schema.get("properties", {})
        shown = [line for line in lines if line.startswith(f"- {name}(")]
        assert len(shown) == (name in served), (name, shown)
        if shown:
            arguments = shown[0].split("): ", 1)[0]
            assert all(f"{key}:" in arguments or f"{key}?:" in arguments for key in properties if key != "session"), shown[0]
            assert "session" not in arguments and shown[0].split("): ", 1)[1], shown[0]
    filter_ops = CONTRACTS["db_read"].input_schema["$defs"]["Filter"]["properties"]["op"]["enum"]
    assert "Filter = {" in catalog and all(f'"{op}"' in catalog for op in filter_ops)
    others = json.dumps([tool.model_dump(mode="json") for tool in tools if tool.name != "turn_start"])
    assert not any(f"{name}(" in others for name in act_callable())


async def test_the_stage_listing_carries_every_writable_column_of_every_table_a_step_writes(app: AlfredApp) -> None:
    """Generated over the schema: after the catalog, one line per table a client may write names each writable column
    (`*` when a create must give it), its type when not text, its allowed values, and what a foreign key takes (a
    meal's `recipe_id` is a recipe ref): the line a write step's context gives (`columns_section`), so a step's `call`
    never guesses a column (a long list of values the catalog already gave, e.g. the cuisines, is 'values as above').
    The shared catalog, read-only, is not among them, nor those left out, each for a reason."""
    async with Client(build_server(_listing(app, ("stages",)))) as client:
        tools = (await client.list_tools()).tools
    catalog = next(tool.input_schema for tool in tools if tool.name == "turn_start")["properties"]["then"]["description"]
    lines = {line.split(": ", 1)[0]: line for line in catalog.splitlines() if ": " in line and not line.startswith("- ")}
    for table in TABLES.values():
        if not table.user_owned or table.name in COLUMNS_LEFT_OUT:
            assert table.name not in lines and (table.user_owned or table.name not in COLUMNS_LEFT_OUT), table.name
            continue
        section = columns_section(table.subdomain).splitlines()
        assert lines[table.name] in section or table_line(table, shown=catalog.split(COLUMNS_HEAD)[0]) == lines[table.name], table.name
        columns = dict(part.split(" ", 1)[0:1] + [part] for part in lines[table.name].split(": ", 1)[1].split(", "))
        for column in table.columns:
            if not column.writable:
                assert column.name not in columns and f"{column.name}*" not in columns, (table.name, column.name)
                continue
            shown = columns[column.name + ("*" if column.required_on_create else "")]
            listed = "|".join(str(value) for value in column.enum or ())
            assert listed in shown or (shown.endswith("(values as above)") and listed in catalog.replace('"', "")), shown
            if column.fk is not None:
                assert shown.endswith(f"{TABLES[column.fk.table].entity_type} ref"), shown


@pytest.mark.parametrize("step_type", STEP_TYPES)
async def test_under_the_stage_listing_acts_steps_name_their_tools_and_resend_no_signature(app: AlfredApp, step_type: str) -> None:
    """A step of each type, its plan sent ahead with the first turn_start: Act's context names every tool the step may
    call (the catalog in tools/list has their arguments) and describes none again."""
    app.settings = replace(app.settings, listed=("stages",))
    async with Client(build_server(app)) as client:
        await call(client, "session_start")
        answer = await call(client, "turn_start", message="Work on my recipes", then=[
            {"role": "understand", "output": {}},
            {"role": "think", "output": plan("Work on my recipes", step(step_type, "Look at my recipes"))}])
    context = answer["next"]["context"]
    tools = context.split("## Tools for this step", 1)[1]
    assert "Not in your tools/list" not in tools, tools
    if step_type == "write":  # it may call every tool Act may, all in the catalog: said so, not named one by one
        assert tools.strip().startswith(EVERY_TOOL) and set(tools_for_step(step_type)) <= in_catalog(HostControls.from_settings(app.settings, CONTRACTS)), tools
        return
    assert "(" not in tools.split("(arguments", 1)[0], tools
    assert [name.strip() for name in tools.split("(arguments", 1)[0].split(",")] == list(tools_for_step(step_type)), tools


SUBDOMAINS = sorted({table.subdomain for table in TABLES.values() if table.user_owned})


@pytest.mark.parametrize("subdomain", SUBDOMAINS)
async def test_a_write_steps_columns_the_catalog_carries_are_not_sent_again(app: AlfredApp, subdomain: str) -> None:
    """Generated over the areas a write step works in: under the stage listing, a step whose tables' columns the
    catalog carries names its columns section as sent; one with a table the catalog leaves out sends it whole; the
    default listing sends it whole."""
    section = columns_section(subdomain)
    heading = section.partition("\n")[0]
    carried = not any(table.name in COLUMNS_LEFT_OUT for table in TABLES.values() if table.subdomain == subdomain)
    for listed in (("stages",), ()):
        app.settings = replace(app.settings, listed=listed)
        async with Client(build_server(app)) as client:
            await call(client, "session_start")
            answer = await call(client, "turn_start", message="Change my kitchen", then=[
                {"role": "understand", "output": {}},
                {"role": "think", "output": plan("Change my kitchen", step("write", "Change it", subdomain))}])
        context = answer["next"]["context"]
        sent_whole = section in context
        assert sent_whole == (not listed or not carried), (listed, context)
        assert sent_whole or heading[3:] in context.rsplit("(As sent before", 1)[-1], context
