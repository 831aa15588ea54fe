"""Issue 14 benchmarks: what a model reads. The size of tools/list, and the bytes each stage-by-stage
turn of the scenario conversations returns to the client's model (tests/scenarios/scripts.py)."""

from __future__ import annotations

import json
import sys
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.operations.seeding import seed
from alfred_mcp.server.mcp_server import build_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from scenarios.driver import StageClient  # noqa: E402
from scenarios.scripts import SCENARIOS, TURN_BYTES_BUDGET, drive  # noqa: E402

TOOLS_LIST_BUDGET = 40_000


async def _listed(folder: Path, *, all_tools: bool) -> list[dict[str, Any]]:
    tools = ("all",) if all_tools else ()
    app = AlfredApp.from_settings(Settings(db=str(folder / f"tools{all_tools}.db"), seed_demo=False, tools=tools))
    async with Client(build_server(app)) as client:
        tools = (await client.list_tools()).tools
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]


async def tools_list_bytes() -> dict[str, object]:
    """The default tools/list as it travels (compact JSON, `bytes`) and pretty-printed with ', ' and ': ' separators
    (`spaced_bytes`, how the 72.6 KB of issue 14 was measured); `all_bytes` lists every tool (ALFRED_TOOLS=all)."""
    with tempfile.TemporaryDirectory() as folder:
        default = await _listed(Path(folder), all_tools=False)
        everything = await _listed(Path(folder), all_tools=True)
    wire = len(json.dumps({"tools": default}, separators=(",", ":"), ensure_ascii=False).encode())
    spaced = len(json.dumps({"tools": default}).encode())
    full = len(json.dumps({"tools": everything}, separators=(",", ":"), ensure_ascii=False).encode())
    return {"bytes": wire, "spaced_bytes": spaced, "tools": len(default), "all_bytes": full, "all_tools": len(everything),
            "target": TOOLS_LIST_BUDGET, "ok": max(wire, spaced) <= TOOLS_LIST_BUDGET}


async def stage_turn_bytes() -> dict[str, object]:
    """Per scenario: the bytes and calls of every turn driven stage by stage; `max_bytes` over all turns."""
    out: dict[str, object] = {}
    largest = 0
    with tempfile.TemporaryDirectory() as folder:
        for scenario in SCENARIOS:
            app = AlfredApp.from_settings(Settings(db=str(Path(folder) / f"{scenario.name}.db"), seed_demo=False))
            await app.open()
            try:
                await seed(app.store, app.user_id, today=date.today())
                async with Client(build_server(app)) as client:
                    logs = await drive(StageClient(client), scenario)
            finally:
                await app.close()
            turns = [log.bytes for log in logs]
            out[scenario.name] = {"turn_bytes": turns, "calls": [log.count for log in logs], "max_bytes": max(turns)}
            largest = max(largest, *turns)
    return {**out, "max_bytes": largest, "target": TURN_BYTES_BUDGET, "ok": largest <= TURN_BYTES_BUDGET}
