"""The real MCP Inspector CLI (`@modelcontextprotocol/inspector` 2.12.0, pinned in package.json) over stdio, in both
protocol eras: a successful call shows its result, and a tool error reaches the user (stdout, exit 5) instead
of being thrown away by the Inspector's outputSchema validation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from node_tools import INSPECTOR, node_env, node_tool

TOOL_ERROR_EXIT = 5
"""The Inspector's exit code for a result with isError: true (its payload still printed)."""


def inspect(tmp_path: Path, era: str, arguments: dict[str, object]) -> subprocess.CompletedProcess[str]:
    server = [sys.executable, "-m", "alfred_mcp", "--db", str(tmp_path / "kitchen.db")]
    command = [*node_tool(INSPECTOR), "--cli", *server, "--protocol-era", era, "--method", "tools/call", "--tool-name", "db_read",
               "--tool-args-json", json.dumps(arguments), "--format", "json", "-q"]
    return subprocess.run(command, capture_output=True, text=True, env=node_env(tmp_path), timeout=120, check=False)


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_the_inspector_shows_a_result_and_a_tool_error(tmp_path: Path, era: str) -> None:
    ok = inspect(tmp_path, era, {"table": "recipes", "limit": 2})
    assert ok.returncode == 0, ok.stderr
    result = json.loads(ok.stdout)["result"]
    assert result["structuredContent"]["count"] == 2 and result["structuredContent"]["rows"][0]["id"] == "recipe_1"
    refused = inspect(tmp_path, era, {"table": "nope"})
    assert refused.returncode == TOOL_ERROR_EXIT, refused.stderr
    error = json.loads(refused.stdout)["result"]
    assert error["isError"] is True and "structuredContent" not in error
    assert error["content"][0]["text"].startswith("Error: db_read: table must be one of: recipes,")
    assert "tool_is_error" in refused.stderr
