"""Logs of the server over stdio: the protocol owns stdout, so the log stays on stderr, text by default and
JSON lines (one per tool call and lifecycle event) with ALFRED_LOG_FORMAT=json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from .helpers import call
from .test_stdio import server_params

pytestmark = pytest.mark.anyio


async def _stderr_of_a_session(tmp_path: Path, extra_env: dict[str, str]) -> list[str]:
    base = server_params(tmp_path / "kitchen.db")
    params = StdioServerParameters(command=base.command, args=base.args, env={**(base.env or {}), **extra_env})
    with (tmp_path / "stderr.log").open("w+") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            await call(client, "db_read", table="recipes", limit=2)
            await call(client, "db_read", table="inventory", limit=2)
        errlog.seek(0)
        return [line for line in errlog.read().splitlines() if line.strip()]


async def test_json_logs_on_stdio_are_one_json_line_per_call_and_event_on_stderr(tmp_path: Path) -> None:
    records = [json.loads(line) for line in await _stderr_of_a_session(tmp_path, {"ALFRED_LOG_FORMAT": "json"})]
    calls = [(r["tool"], r["outcome"]) for r in records if r["event"] == "tool_call"]
    assert calls == [("db_read", "ok"), ("db_read", "ok")]
    assert [r["transport"] for r in records if r["event"] == "serving"] == ["stdio"]


async def test_stdio_logs_text_by_default_and_no_line_per_call(tmp_path: Path) -> None:
    lines = await _stderr_of_a_session(tmp_path, {})
    assert not any(line.lstrip().startswith("{") for line in lines)
    assert not any("alfred_mcp.calls" in line for line in lines)
