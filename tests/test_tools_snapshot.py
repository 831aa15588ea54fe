"""The whole tools/list, as a client receives it, is committed and compared: every change to a
tool's contract shows in review. Regenerate after an intended change with
`ALFRED_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_tools_snapshot.py`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.server.mcp_server import build_server

SNAPSHOT = Path(__file__).parent / "snapshots" / "tools_list.json"


def _render(tools: list[dict[str, object]]) -> str:
    return json.dumps({"tools": tools}, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


@pytest.mark.anyio
async def test_tools_list_matches_the_committed_snapshot(tmp_path: Path) -> None:
    """What tools/list advertises equals tests/snapshots/tools_list.json, byte for byte."""
    app = AlfredApp.from_settings(Settings(db=str(tmp_path / "kitchen.db"), seed_demo=False))
    async with Client(build_server(app)) as client:
        listed = await client.list_tools()
    tools = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed.tools]
    rendered = _render(tools)
    if os.environ.get("ALFRED_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.write_text(rendered, encoding="utf-8")
    assert SNAPSHOT.read_text(encoding="utf-8") == rendered, "tools/list changed: review it, then regenerate the snapshot"


def test_only_tools_that_reach_outside_the_kitchen_are_open_world() -> None:
    """`chat` calls a model (the configured provider's, or the client's); `recipes_import` fetches web pages."""
    from alfred_mcp.contracts import load_contracts

    assert {name for name, c in load_contracts().items() if c.hint("openWorldHint")} == {"chat", "recipes_import"}


def test_the_default_tools_list_fits_its_budget_compact_and_spaced() -> None:
    """Issue 14's budget for what a client's model reads on connecting: 40,000 bytes as sent (compact JSON) and
    pretty-printed with ', ' and ': ' (how it was first measured). The snapshot is the default list, whole."""
    tools = json.loads(SNAPSHOT.read_text(encoding="utf-8"))["tools"]
    compact = len(json.dumps({"tools": tools}, separators=(",", ":"), ensure_ascii=False).encode())
    spaced = len(json.dumps({"tools": tools}).encode())
    assert max(compact, spaced) <= 40_000, f"tools/list is {compact:,} bytes compact, {spaced:,} spaced"
