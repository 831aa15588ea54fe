"""The kitchen tools and host controls on a real stdio subprocess, in both protocol eras."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters, types
from recipe_site import PAPRIKA_RECIPE, paprika_archive

from .helpers import call, call_error
from .test_stdio import server_params

pytestmark = pytest.mark.anyio
MODES = pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["2026-07-28", "2025-11-25"])


@MODES
async def test_a_paprika_archive_on_disk_imports_saves_and_undoes(tmp_path: Path, mode: str) -> None:
    archive = tmp_path / "My Recipes.paprikarecipes"
    archive.write_bytes(paprika_archive(PAPRIKA_RECIPE, {**PAPRIKA_RECIPE, "name": "Paprika Stew"}))
    async with Client(server_params(tmp_path / "kitchen.db"), mode=mode) as client:
        imported = await call(client, "recipes_import", source=str(archive))
        assert imported["source"] == {"kind": "paprika"} and [d["label"] for d in imported["drafts"]] == ["Paprika Chili", "Paprika Stew"]
        saved = await call(client, "draft_save", refs=[d["ref"] for d in imported["drafts"]])
        assert saved["saved"] == 2
        undone = await call(client, "kitchen_undo")
        assert sorted(undone["drafts_reopened"]) == sorted(d["ref"] for d in imported["drafts"])
        missing = await call_error(client, "recipes_import", source=str(tmp_path / "none.paprikarecipes"))
        assert missing["field"] == "source" and "cannot read" in missing["message"]


@MODES
async def test_read_only_on_the_command_line(tmp_path: Path, mode: str) -> None:
    params = server_params(tmp_path / "kitchen.db")
    params = StdioServerParameters(command=params.command, args=[*params.args, "--read-only"], env=params.env)
    async with Client(params, mode=mode) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert "db_read" in listed and "recipes_scale" in listed and not listed & {"db_delete", "kitchen_undo", "recipes_import"}
        result = await client.call_tool("db_delete", {"table": "recipes", "all": True})
        assert result.is_error and "read-only" in result.content[0].text
        assert (await call(client, "db_read", table="recipes"))["count"] >= 8


@MODES
async def test_scale_export_shop_cook_and_a_confirmed_undo_on_an_allow_list(tmp_path: Path, mode: str) -> None:
    """--tools kitchen,core,drafts over stdio; undoing a save asks the user (elicitation) and goes ahead on yes."""
    asked: list[str] = []

    async def yes(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})

    params = server_params(tmp_path / "kitchen.db")
    params = StdioServerParameters(command=params.command, args=[*params.args, "--tools", "kitchen,core,drafts"], env=params.env)
    async with Client(params, mode=mode, elicitation_callback=yes) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        assert "chat" not in listed and "turn_start" not in listed and "kitchen_undo" in listed
        recipe = (await call(client, "db_read", table="recipes", limit=1))["rows"][0]["id"]
        assert (await call(client, "recipes_scale", recipe=recipe, servings=8))["factor"] > 1
        exported = await call(client, "recipes_export", recipe=recipe)
        imported = await call(client, "recipes_import", source=json.dumps(exported["content"]))
        saved = await call(client, "draft_save", refs=[imported["drafts"][0]["ref"]])
        shopping = await call(client, "shopping_list_from", recipes=[recipe])
        cooked = await call(client, "meal_cooked", recipe=recipe)
        assert cooked["log"].startswith("log_")
        expected = ["meal_cooked", *(["shopping_list_from"] if shopping["lines"] else []), "draft_save"]
        undone = [await call(client, "kitchen_undo") for _ in expected]
        assert [u["undone"]["tool"] for u in undone] == expected
        assert undone[-1]["drafts_reopened"] == [imported["drafts"][0]["ref"]]
        assert sum("Undo of the draft_save" in q for q in asked) == 1 and saved["saved"] == 1
