"""--read-only, --tools and confirmation through elicitation, through the real client in both protocol eras."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from mcp import Client, types

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.contracts import listed as is_listed
from alfred_mcp.contracts import load_contracts
from alfred_mcp.errors import ConfigError
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import RECIPES
from alfred_mcp.server.mcp_server import AlfredServer, build_server
from alfred_mcp.server.toolsets import TOOLSETS, HostControls

from .helpers import call, call_error, eq

pytestmark = [pytest.mark.anyio, pytest.mark.both_eras]  # the subject is the protocol: both eras (tests/conftest.py)
MODES = pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["2026-07-28", "2025-11-25"])


def _served(app: AlfredApp, **settings: Any) -> AlfredServer:
    app.settings = replace(app.settings, **settings)
    return build_server(app)


def test_every_tool_is_in_exactly_one_toolset() -> None:
    """A new tool must be given a toolset, so `--tools core,kitchen` keeps meaning what the README says."""
    named = [tool for tools in TOOLSETS.values() for tool in tools]
    assert sorted(named) == sorted(load_contracts())


@pytest.mark.parametrize("names", [("bogus",), ("core", "db_reed"), ("kitchn",)])
def test_an_unknown_tool_or_toolset_fails_naming_it(names: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError) as raised:
        HostControls.from_settings(Settings(tools=names), load_contracts())
    assert f"'{[n for n in names if n not in TOOLSETS][0]}'" in raised.value.message and "Toolsets: core" in raised.value.message


@MODES
async def test_read_only_lists_and_serves_only_read_only_tools(app: AlfredApp, mode: str) -> None:
    contracts = load_contracts()
    async with Client(_served(app, read_only=True), mode=mode) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        read_only = {name for name, c in contracts.items() if c.hint("readOnlyHint")}
        assert listed == {name for name in read_only if is_listed(name, everything=False, has_model=app.llm is not None)}
        assert {"db_read", "recipes_scale", "recipes_export"} <= listed
        for name in sorted(set(contracts) - read_only):
            result = await client.call_tool(name, {})
            assert result.is_error and "read-only (--read-only)" in result.content[0].text, name
        assert (await call(client, "db_read", table="recipes", limit=1))["count"] == 1


@MODES
async def test_an_allow_list_of_toolsets_and_names(app: AlfredApp, mode: str) -> None:
    async with Client(_served(app, tools=("kitchen", "db_read")), mode=mode) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert listed == {*TOOLSETS["kitchen"], "db_read"}
        refused = await client.call_tool("db_delete", {"table": "recipes", "all": True})
        assert refused.is_error and "allow-list (--tools)" in refused.content[0].text
    assert len(await app.store.select(RECIPES, Query(), user_id=app.user_id)) > 1


def _elicitation(action: str, asked: list[str], confirm: bool = True) -> Any:
    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=action, content={"confirm": confirm} if action == "accept" else None)  # type: ignore[arg-type]

    return answer


@pytest.fixture(params=["auto", "legacy"], ids=["2026-07-28", "2025-11-25"])
async def mode(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    yield str(request.param)


@pytest.mark.parametrize(("action", "confirm", "deleted"), [("accept", True, True), ("accept", False, False),
                                                            ("decline", True, False), ("cancel", True, False)])
async def test_deleting_a_recipe_asks_first_and_a_no_changes_nothing(
    app: AlfredApp, mode: str, action: str, confirm: bool, deleted: bool
) -> None:
    asked: list[str] = []
    async with Client(build_server(app), mode=mode, elicitation_callback=_elicitation(action, asked, confirm)) as client:
        ref = (await call(client, "db_read", table="recipes", limit=1))["rows"][0]["id"]
        arguments = {"table": "recipes", "filters": [eq("id", ref)]}
        if deleted:
            assert (await call(client, "db_delete", **arguments))["count"] == 1
        else:
            error = await call_error(client, "db_delete", **arguments)
            assert error["code"] == "declined" and "Nothing was changed" in error["message"]
            assert (await call(client, "db_read", table="recipes", filters=[eq("id", ref)]))["count"] == 1
    assert len(asked) == 1 and ref in asked[0] and "with its ingredients" in asked[0]


async def test_removing_one_pantry_row_does_not_ask_but_two_do(app: AlfredApp, mode: str) -> None:
    asked: list[str] = []
    async with Client(build_server(app), mode=mode, elicitation_callback=_elicitation("accept", asked)) as client:
        rows = (await call(client, "db_read", table="inventory", limit=3))["rows"]
        await call(client, "db_delete", table="inventory", filters=[eq("id", rows[0]["id"])])
        assert asked == []
        await call(client, "db_delete", table="inventory", filters=[{"field": "id", "op": "in", "value": [r["id"] for r in rows[1:]]}])
        assert len(asked) == 1 and "2 pantry items" in asked[0]


async def test_the_question_names_the_meal_a_recipe_delete_would_leave_without_its_recipe(app: AlfredApp, mode: str) -> None:
    asked: list[str] = []
    async with Client(build_server(app), mode=mode, elicitation_callback=_elicitation("decline", asked)) as client:
        (recipe,) = (await call(client, "db_read", table="recipes", filters=[eq("name", "Spaghetti Carbonara")]))["rows"]
        planned = (await call(client, "db_read", table="meal_plans", filters=[eq("recipe_id", recipe["id"])]))["rows"]
        error = await call_error(client, "db_delete", table="recipes", filters=[eq("id", recipe["id"])])
    assert error["code"] == "declined" and len(planned) == 1 and len(asked) == 1
    assert f"It would leave the meal plan entry {planned[0]['id']} (" in asked[0] and "pointing at what it removes" in asked[0]


async def test_undoing_a_save_asks_because_it_removes_a_recipe(app: AlfredApp, mode: str) -> None:
    asked: list[str] = []
    async with Client(build_server(app), mode=mode, elicitation_callback=_elicitation("decline", asked)) as client:
        draft = await call(client, "draft_create", entity_type="recipe",
                           items=[{"name": "Ask Pie", "ingredients": [{"name": "apple"}], "instructions": ["Bake."]}])
        saved = await call(client, "draft_save", refs=[draft["drafts"][0]["ref"]])
        error = await call_error(client, "kitchen_undo")
        assert error["code"] == "declined" and len(asked) == 1 and "Undo of the draft_save call" in asked[0]
        assert (await call(client, "db_read", table="recipes", filters=[eq("id", saved["items"][0]["saved_as"])]))["count"] == 1


async def test_without_elicitation_a_delete_runs_as_before(client: Client) -> None:
    rows = (await call(client, "db_read", table="recipes", limit=2))["rows"]
    result = await call(client, "db_delete", table="recipes", filters=[{"field": "id", "op": "in", "value": [r["id"] for r in rows]}])
    assert result["count"] == 2


@pytest.mark.parametrize(("action", "deleted"), [("accept", True), ("decline", False)])
async def test_a_delete_submitted_as_acts_tool_call_asks_first(app: AlfredApp, mode: str, action: str, deleted: bool) -> None:
    """A client's model driving the stages deletes through turn_submit: the user is asked as for a direct call;
    a no leaves the row, the turn where it was (Act's output not taken) and says so."""
    asked: list[str] = []
    async with Client(build_server(app), mode=mode, elicitation_callback=_elicitation(action, asked)) as client:
        ref = (await call(client, "db_read", table="recipes", limit=1))["rows"][0]["id"]
        before = len(await app.store.select(RECIPES, Query(), user_id=app.user_id))
        await call(client, "turn_start", message=f"delete {ref}")
        await call(client, "turn_submit", role="understand", output={})
        await call(client, "turn_submit", role="think", output={
            "goal": "Delete a recipe", "decision": "plan_direct",
            "steps": [{"description": f"Delete {ref}", "step_type": "write", "subdomain": "recipes"}]})
        decision = {"action": "tool_call", "tool": "db_delete", "arguments": {"table": "recipes", "filters": [eq("id", ref)]}}
        if deleted:
            state = await call(client, "turn_submit", role="act", output=decision)
            assert state["expected_role"] == "act"
        else:
            error = await call_error(client, "turn_submit", role="act", output={"decision": decision})
            assert error["code"] == "declined" and "Nothing was removed" in error["message"]
            assert (await call(client, "turn_context"))["role"] == "act"
    after = len(await app.store.select(RECIPES, Query(), user_id=app.user_id))
    assert after == before - (1 if deleted else 0)
    assert len(asked) == 1 and ref in asked[0] and "with its ingredients" in asked[0]


@pytest.mark.parametrize(("action", "undone"), [("accept", True), ("decline", False)])
async def test_an_undo_submitted_as_acts_tool_call_asks_first_when_it_removes_a_recipe(
    app: AlfredApp, mode: str, action: str, undone: bool
) -> None:
    """kitchen_undo is Act's to call in a write step; undoing a save removes the recipe, so the user is asked first."""
    asked: list[str] = []
    async with Client(build_server(app), mode=mode, elicitation_callback=_elicitation(action, asked)) as client:
        draft = await call(client, "draft_create", entity_type="recipe",
                           items=[{"name": "Undo Pie", "ingredients": [{"name": "apple"}], "instructions": ["Bake."]}])
        saved = (await call(client, "draft_save", refs=[draft["drafts"][0]["ref"]]))["items"][0]["saved_as"]
        await call(client, "turn_start", message="undo that")
        await call(client, "turn_submit", role="understand", output={})
        await call(client, "turn_submit", role="think", output={
            "goal": "Undo the save", "decision": "plan_direct",
            "steps": [{"description": "Undo the last write", "step_type": "write", "subdomain": "recipes"}]})
        decision = {"action": "tool_call", "tool": "kitchen_undo", "arguments": {}}
        if undone:
            state = await call(client, "turn_submit", role="act", output={"decision": decision})
            assert saved in state["notice"] and state["expected_role"] == "act"
        else:
            error = await call_error(client, "turn_submit", role="act", output={"decision": decision})
            assert error["code"] == "declined" and "Nothing was removed" in error["message"]
        left = (await call(client, "db_read", table="recipes", filters=[eq("name", "Undo Pie")]))["count"]
    assert left == (0 if undone else 1)
    assert len(asked) == 1 and "Undo of the draft_save call" in asked[0]


async def test_a_read_submitted_as_acts_tool_call_asks_nothing(app: AlfredApp, mode: str) -> None:
    asked: list[str] = []
    async with Client(build_server(app), mode=mode, elicitation_callback=_elicitation("decline", asked)) as client:
        await call(client, "turn_start", message="what recipes do I have")
        await call(client, "turn_submit", role="understand", output={})
        await call(client, "turn_submit", role="think", output={
            "goal": "List recipes", "decision": "plan_direct",
            "steps": [{"description": "Read recipes", "step_type": "read", "subdomain": "recipes"}]})
        state = await call(client, "turn_submit", role="act", output={"action": "tool_call", "tool": "db_read",
                                                                       "arguments": {"table": "recipes", "limit": 3}})
    assert state["expected_role"] == "act" and asked == []
