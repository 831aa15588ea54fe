"""The kitchen tools and host controls on a real stdio subprocess, in both protocol eras."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
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
