"""Act reaches everything the server can do: every tool contract gets a step type, or a stated reason why Act never
calls it, and what a step may call is what the host serves (--read-only, --tools), in the state's checks, in the
runner and in the prompt alike. Generated over the tool registry, so a tool added later is covered by these tests."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.agent import act_tools
from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.agent.prompting import EVERY_TOOL
from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import load_contracts
from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.server.tools.runner import KITCHEN_HANDLERS, tool_runner
from alfred_mcp.server.toolsets import HostControls
from alfred_mcp.state.cards import card_columns

pytestmark = pytest.mark.anyio
CONTRACTS = load_contracts()
HOST_CONTROLS: dict[str, dict[str, Any]] = {
    "everything": {},
    "read-only": {"read_only": True},
    "tools core": {"tools": ("core",)},
    "tools kitchen,drafts": {"tools": ("kitchen", "drafts")},
    "read-only, tools kitchen,views": {"read_only": True, "tools": ("kitchen", "views")},
}


@pytest.mark.parametrize("name", CONTRACTS)
def test_every_tool_is_reachable_from_a_step_type_or_says_why_not(name: str) -> None:
    contract = CONTRACTS[name]
    reachable = [step for step in act_tools.STEP_TYPES if name in act_tools.tools_for_step(step)]
    reason = act_tools.why_not_for_act(contract)
    assert bool(reachable) != bool(reason), f"{name}: steps {reachable}, reason {reason!r}"
    if reason is None:
        assert name in KITCHEN_HANDLERS, f"{name} is listed for Act but the turn's runner cannot run it"
        assert "write" in reachable  # a write step may do everything a read or generate step may


@pytest.mark.parametrize("name", CONTRACTS)
def test_a_tools_step_types_follow_from_its_contract(name: str) -> None:
    """Read-only tools in every step; drafting tools (`_meta` alfred/step: generate) from generate on; writes in write."""
    contract = CONTRACTS[name]
    kind = act_tools.tool_class(contract)
    reachable = {step for step in act_tools.STEP_TYPES if name in act_tools.tools_for_step(step)}
    declared = (contract.meta or {}).get(act_tools.STEP_KEY)
    if kind == "read":
        assert contract.hint("readOnlyHint") and reachable == set(act_tools.STEP_TYPES)
    elif kind == "generate":
        assert declared == "generate" and not contract.hint("readOnlyHint") and reachable == {"generate", "write"}
    elif kind == "write":
        assert not contract.hint("readOnlyHint") and declared is None and reachable == {"write"}
    else:
        assert not reachable
    assert declared in (None, "generate"), f"{name}: unknown {act_tools.STEP_KEY} {declared!r}"


def test_every_excluded_tool_is_a_real_tool_with_a_reason() -> None:
    assert set(act_tools.NOT_FOR_ACT) <= set(CONTRACTS)
    assert all(reason.strip() for reason in act_tools.NOT_FOR_ACT.values())
    assert {"turn_start", "turn_submit", "chat", "session_start"} <= set(act_tools.NOT_FOR_ACT)


def test_the_kitchen_tools_are_reachable_where_the_issue_found_them_missing() -> None:
    reads, writes = act_tools.tools_for_step("read"), act_tools.tools_for_step("write")
    generate = act_tools.tools_for_step("generate")
    assert {"recipes_scale", "recipes_export", "recipe_show", "meal_plan_show", "shopping_list_show"} <= set(reads)
    assert {"shopping_list_from", "meal_cooked", "kitchen_undo"} <= set(writes) - set(generate)
    assert "recipes_import" in set(generate) - set(reads)


@pytest.mark.parametrize("controls", HOST_CONTROLS, ids=list(HOST_CONTROLS))
async def test_a_tool_the_host_hides_is_in_no_step_list_and_is_refused(app: AlfredApp, controls: str) -> None:
    app.settings = replace(app.settings, **HOST_CONTROLS[controls])
    served = HostControls.from_settings(app.settings, CONTRACTS).served
    async with app.work("test") as work:
        machine = TurnMachine(work, tool_runner(app, work.session.name))
        for step in act_tools.STEP_TYPES:
            listed = machine.step_tools(step)
            assert set(listed) <= served
            assert set(listed) == {name for name in act_tools.tools_for_step(step) if name in served}
            for name in set(act_tools.tools_for_step(step)) - served:
                with pytest.raises(InputError) as refused:
                    act_tools.check_tool_allowed(name, step, served)
                assert name in refused.value.message
                with pytest.raises(InputError) as hidden:
                    await machine.run_tool(name, {})
                assert "not available" in hidden.value.message and ("--read-only" in hidden.value.message or "--tools" in hidden.value.message)


@pytest.mark.parametrize("name", sorted(act_tools.NOT_FOR_ACT))
async def test_the_runner_refuses_a_tool_act_never_calls_naming_why(app: AlfredApp, name: str) -> None:
    async with app.work("test") as work:
        with pytest.raises(InputError) as refused:
            await tool_runner(app, work.session.name)(name, {})
    assert act_tools.NOT_FOR_ACT[name] in refused.value.message



@pytest.mark.parametrize(("controls", "hidden"), [({}, set()), ({"tools": ("core", "stages", "drafts")}, {"kitchen_undo", "recipes_scale"})],
                         ids=["everything", "tools core,stages,drafts"])
async def test_turn_context_names_a_write_steps_tools_and_the_arguments_of_unlisted_ones(
    app: AlfredApp, controls: dict[str, Any], hidden: set[str]
) -> None:
    """A stage client's model is told the step's tools by name (it has tools/list); a tool outside the default
    tools/list comes with its typed arguments, and a tool the host hides is not named at all."""
    app.settings = replace(app.settings, **controls)
    async with Client(build_server(app)) as client:
        await call(client, "turn_start", message="tidy up")
        await call(client, "turn_submit", role="understand", output={})
        await call(client, "turn_submit", role="think", output={"goal": "Tidy", "decision": "plan_direct", "steps": [
            {"description": "Tidy the kitchen", "step_type": "write", "subdomain": "recipes"}]})
        context = (await call(client, "turn_context", full=True))["context"]
        listed_names = {tool.name for tool in (await client.list_tools()).tools}
    named = context.split("## Tools for this step", 1)[1].split("\n\n", 1)[0]
    served = HostControls.from_settings(app.settings, CONTRACTS).served
    for name in act_tools.tools_for_step("write", served):
        assert name in named or (EVERY_TOOL in named and name in listed_names), (name, named)
    if not controls:  # an allow-list lists what it names, so its tools/list has the extras
        assert "batch_skip(batch: string, refs: string[], reason: string)" in named and "show_working_set(" in named
    for name in hidden:
        assert name not in named


@pytest.mark.parametrize(("tool", "result", "line"), [
    ("shopping_list_from", {"lines": [{"ref": "shop_1"}, {"ref": "shop_2"}], "recipes": ["recipe_1"], "covered": [], "meals": 0},
     "shopping_list_from: 2 added to the shopping list from recipe_1: shop_1, shop_2"),
    ("shopping_list_from", {"lines": [{"ref": f"shop_{n}"} for n in range(1, 18)], "recipes": ["recipe_3", "recipe_4"], "covered": [],
                            "meals": 3},
     "shopping_list_from: 17 added to the shopping list from recipe_3, recipe_4: shop_1, shop_2, shop_3, shop_4, shop_5, shop_6, "
     "shop_7, shop_8, shop_9, shop_10, shop_11, shop_12 and 5 more"),
    ("meal_cooked", {"recipe": "recipe_1", "meal": "meal_1", "log": "log_3", "deducted": [], "not_deducted": []},
     "meal_cooked: cooked: recipe_1, meal_1, log_3"),
    ("kitchen_undo", {"undone": {}, "removed": [{"ref": "recipe_5"}], "restored": [], "reverted": [], "unlinked": []},
     "kitchen_undo: 1 undone: recipe_5"),
    # a view's result counts what it shows, never '0 result(s)' for a day with two meals
    ("meal_plan_show", {"from": "2026-12-02", "to": "2026-12-02", "days": [{"date": "2026-12-02"}], "meal_types": ["dinner"],
                        "meals": [{"date": "2026-12-02"}, {"date": "2026-12-02"}]}, "meal_plan_show: 2 meals"),
    ("shopping_list_show", {"sections": [{"name": "Produce"}], "count": 3}, "shopping_list_show: 3 results"),
])
def test_a_kitchen_tools_summary_counts_what_it_did(tool: str, result: dict[str, Any], line: str) -> None:
    assert act_tools.summarize_result(tool, result) == line


@pytest.mark.parametrize("tool", sorted(name for name, contract in load_contracts().items()
                                        if "preview" in contract.input_schema.get("properties", {})))
def test_a_preview_call_of_a_write_tool_writes_nothing_so_completes_no_write_step(tool: str) -> None:
    """A preview lists what the call would write: it is no write (a write step's items stay pending) and its summary
    says nothing was written."""
    assert act_tools.is_write(tool, {}) and not act_tools.is_write(tool, {"preview": True})
    summary = act_tools.summarize_result(tool, {"lines": [{"name": "leeks", "action": "added"}], "preview": True})
    assert summary == f"{tool}: 1 to add (a preview: nothing written)"


_SET_VALUES = {"text": "set by the call", "text[]": ["set"], "numeric": 2.5, "int": 3, "bool": True, "date": "2026-03-02",
               "timestamp": "2026-03-02T10:00:00Z"}
_SET_COLUMNS = [(table, column) for table in TABLES.values() for column in table.writable_columns
                if column.name not in table.label_columns]


@pytest.mark.parametrize("tool", ["db_create", "db_update"])
@pytest.mark.parametrize(("table", "column"), _SET_COLUMNS, ids=[f"{t.name}.{c.name}" for t, c in _SET_COLUMNS])
def test_a_writes_notice_shows_every_column_it_set(tool: str, table: Any, column: Any) -> None:
    """db_update set rating=5 and notes: Act's notice shows both, whatever the table's usual card columns are."""
    value = f"{TABLES[column.fk.table].entity_type}_2" if column.fk is not None else (
        column.enum[-1] if column.enum else _SET_VALUES[column.type])
    others = {name: "usual" for name in card_columns(table.name)}
    row = {"id": f"{table.entity_type}_1", **others, column.name: value}
    card = act_tools.result_card(tool, {"table": table.name, "data": {column.name: value}},
                                 {"table": table.name, "rows": [row]})
    assert f"{column.name}=" in card, card


@pytest.mark.parametrize("nothing", [None, "", []], ids=["null", "empty text", "empty list"])
@pytest.mark.parametrize("table", ["meal_plans", "shopping_list", "inventory", "tasks", "recipes"])
def test_an_updates_card_says_which_columns_it_cleared_which_its_rows_no_longer_show(table: str, nothing: object) -> None:
    """Round 4, b1 t4: db_update set a meal's notes to null, and the card showed the row without them: the head line
    names each column the update set to nothing, and none when it set only values."""
    result_card = act_tools.result_card
    result = {"table": table, "rows": [{"id": "x_1", "name": "Eggs", "notes": None}], "count": 1}
    cleared = result_card("db_update", {"table": table, "data": {"notes": nothing, "name": "Eggs"}}, result)
    assert cleared.splitlines()[0] == f"db_update {table}: 1 updated; notes cleared"
    kept = result_card("db_update", {"table": table, "data": {"name": "Eggs"}}, result)
    assert kept.splitlines()[0] == f"db_update {table}: 1 updated"
