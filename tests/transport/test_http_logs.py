"""ALFRED_LOG_FORMAT=json on a real `serve --http` process: one JSON line per tool call (tool, duration, outcome,
user hashed, request and trace ids) and per lifecycle event; text stays the default."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from test_http_metrics import CALLS

from alfred_mcp.server.dispatch import ERROR_META
from tests.entry_point import run_entry_point

sys.path.insert(0, str(Path(__file__).parents[1]))
from http_harness import free_port, http_client, http_server  # noqa: E402

pytestmark = pytest.mark.anyio
TOKEN = "logs-user-token-0123456789"
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


async def _serve_and_call(tmp_path: Path, env: dict[str, str]) -> tuple[list[str], list[tuple[str, str, str | None]]]:
    """The server's output lines after CALLS (the last one sent with a traceparent), and what the client was answered."""
    answered = []
    with (tmp_path / "server.log").open("w+b") as log:
        async with http_server(str(tmp_path / "k.db"), {TOKEN: "alice"}, env, log=log) as url, http_client(url, TOKEN) as client:
            for n, (tool, arguments) in enumerate(CALLS):
                meta: Any = {"traceparent": TRACEPARENT} if n == len(CALLS) - 1 else None
                result = await client.call_tool(tool, arguments, meta=meta)
                code = (result.meta or {}).get(ERROR_META, {}).get("code") if result.is_error else None
                answered.append((tool, "ok" if code is None else "internal_error" if code == "internal_error" else "refused", code))
        log.seek(0)
        lines = log.read().decode().splitlines()
    return [line for line in lines if line.strip()], answered


async def test_json_logs_one_line_per_tool_call_and_lifecycle_event(tmp_path: Path) -> None:
    lines, answered = await _serve_and_call(tmp_path, {"ALFRED_LOG_FORMAT": "json"})
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"time", "level", "logger", "event", "message"} <= record.keys() for record in records)
    calls = [record for record in records if record["event"] == "tool_call"]
    assert [(r["tool"], r["outcome"], r["code"]) for r in calls] == answered
    assert all(r["duration_ms"] > 0 and r["request_id"] for r in calls)
    assert len({r["request_id"] for r in calls}) == len(calls)
    users = {r["user"] for r in calls}
    assert len(users) == 1 and re.fullmatch(r"[0-9a-f]{12}", users.pop() or "")
    assert [r["trace_id"] for r in calls] == [None] * (len(calls) - 1) + [TRACE_ID]
    assert not any("alice" in line or UUID.search(line) for line in lines if '"tool_call"' in line)
    events = [record["event"] for record in records if record["event"] in ("serving", "stopped")]
    assert events == ["serving", "stopped"]
    serving = next(record for record in records if record["event"] == "serving")
    assert serving["transport"] == "http" and serving["tokens"] == 1


async def test_text_stays_the_default(tmp_path: Path) -> None:
    lines, answered = await _serve_and_call(tmp_path, {})
    assert len(answered) == len(CALLS)
    assert not any(line.lstrip().startswith("{") for line in lines)


@pytest.mark.parametrize("value", ["yaml", "JSONL", "1"])
def test_an_unknown_log_format_stops_the_server_naming_the_setting(
        tmp_path: Path, value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The command's entry point in this process (tests/cli/test_bad_settings.py runs this refusal in its own process too)."""
    env = {key: val for key, val in os.environ.items() if not key.startswith("ALFRED_")}
    env.update({"ALFRED_TOKENS": f"{TOKEN}=alice", "ALFRED_LOG_FORMAT": value})
    done = run_entry_point(["--db", str(tmp_path / "k.db"), "serve", "--http", f"127.0.0.1:{free_port()}"], env,
                           monkeypatch=monkeypatch, capsys=capsys)
    assert done.returncode != 0
    assert not (tmp_path / "k.db").exists()
    assert f"ALFRED_LOG_FORMAT takes 'text' or 'json' (got {value!r})" in done.stderr


@pytest.mark.parametrize(("verbosity", "form", "logged"), [
    (0, "text", False), (1, "text", True), (2, "text", True), (0, "json", True), (2, "json", True),
])
def test_the_per_call_log_is_on_for_json_or_verbose_text_only(verbosity: int, form: Any, logged: bool) -> None:
    """Off by default (an embedding process's INFO root logger does not turn it on), on with JSON or -v."""
    import logging

    from alfred_mcp.server.logs import calls_logger, configure_logging

    before, root = calls_logger.level, logging.getLogger().level
    try:
        logging.getLogger().setLevel(logging.INFO)  # as the mcp SDK leaves a process that configured nothing
        assert not calls_logger.isEnabledFor(logging.INFO)
        configure_logging(verbosity, form)
        assert calls_logger.isEnabledFor(logging.INFO) is logged
    finally:
        calls_logger.setLevel(before)
        logging.getLogger().setLevel(root)
