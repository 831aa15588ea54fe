"""The real MCP Inspector CLI (`@modelcontextprotocol/inspector` 2.12.0, pinned in package.json) over stdio, in both
protocol eras: a successful call shows its result, and a tool error reaches the user (stdout, exit 5) instead
of being thrown away by the Inspector's outputSchema validation; and it reads the stage listing (`--listed stages`)."""

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


def test_the_inspector_reads_the_stage_listing_and_a_first_turn_sends_its_outputs_ahead(tmp_path: Path) -> None:
    """`--listed stages`: the Inspector accepts the narrowed tools/list (turn_start's input schema carrying the role
    texts), and a first turn_start sends Understand's and Think's outputs ahead; Think's step calls recipes_search, which
    the listing leaves out (the Inspector itself refuses to call a tool its tools/list lacks: Act's calls run on the
    server, inside the turn)."""
    server = [sys.executable, "-m", "alfred_mcp", "--db", str(tmp_path / "kitchen.db"), "--listed", "stages"]

    def run(*method: str) -> subprocess.CompletedProcess[str]:
        command = [*node_tool(INSPECTOR), "--cli", *server, "--protocol-era", "auto", "--method", *method, "--format", "json", "-q"]
        return subprocess.run(command, capture_output=True, text=True, env=node_env(tmp_path), timeout=120, check=False)

    listed = run("tools/list")
    assert listed.returncode == 0, listed.stderr
    tools = json.loads(listed.stdout)["result"]["tools"]
    assert sorted(tool["name"] for tool in tools) == ["turn_abandon", "turn_context", "turn_start", "turn_submit"]
    turn_start = next(tool for tool in tools if tool["name"] == "turn_start")
    assert turn_start["inputSchema"]["properties"]["then"]["items"]["properties"]["output"]["description"].startswith("understand: {")
    plan = {"goal": "Find fish recipes", "decision": "plan_direct", "steps": [
        {"description": "Search fish recipes", "step_type": "read", "subdomain": "recipes",
         "call": {"tool": "recipes_search", "arguments": {"category": "fish"}}}]}
    arguments = {"message": "Show me fish recipes", "then": [{"role": "understand", "output": {}}, {"role": "think", "output": plan}]}
    started = run("tools/call", "--tool-name", "turn_start", "--tool-args-json", json.dumps(arguments))
    assert started.returncode == 0, started.stderr
    answer = json.loads(started.stdout)["result"]["structuredContent"]
    assert "answered" in answer and "not_applied" not in answer and "refused" not in answer
    assert "recipes_search" in answer["notice"] and "next" not in answer  # a lookup: answered from its rows, no Reply
