"""`run` and the `chat` tool against each misbehaving server (fake_openai.MISBEHAVIOURS): bounded, told, never wedged.

`run` is the console script's entry point called in this process for every misbehaviour, with retries a hundredth of a
second apart (how long a retry waits is not what these tests prove); for one misbehaviour that completes and one that
blocks it is also the installed command in its own process, with its real waits, proving the exit codes and the JSON
lines of the script itself. The `chat` tool goes through the real MCP client.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.agent.llm import openai_compat
from alfred_mcp.agent.llm.openai_compat import OpenAICompatibleLLM
from alfred_mcp.agent.llm.transport import RetryPolicy
from alfred_mcp.app import AlfredApp
from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.server.mcp_server import build_server
from tests.entry_point import run_entry_point

from .llm.fake_openai import MISBEHAVIOURS, FakeModelServer

REPO = Path(__file__).resolve().parents[2]
MESSAGES = ("what are my tasks?", "what is in the fridge?")
OPTIONS = {"ALFRED_MODEL_MAX_TOKENS": "64"}


def _check(turns: list[dict[str, object]], name: str) -> None:
    expected = MISBEHAVIOURS[name]
    assert tuple(t["outcome"] for t in turns) == expected.outcomes
    for turn in turns:
        calls = turn["model_calls"]
        assert isinstance(calls, dict) and 1 <= sum(calls.values()) <= expected.max_calls_per_turn <= 15
        reply = str(turn["reply"])
        if turn["outcome"] == "blocked":
            assert reply.splitlines()[-1].startswith("I couldn't finish this: ") and reply.count("finish this") == 1
            assert "Stopped:" not in reply and 'File "' not in reply and len(reply.splitlines()) <= 2
    assert find_uuid(json.dumps(turns)) is None


IN_A_PROCESS = {"refuses-json-schema", "answers-prose"}
"""The misbehaviours `run` also meets as the installed command in its own process: one whose turns complete (exit 0),
one whose turns are blocked (exit 1)."""
RUNS = [pytest.param(name, way, id=f"{name}-{way}") for name in sorted(MISBEHAVIOURS)
        for way in ("entry-point", *(["process"] if name in IN_A_PROCESS else []))]


@pytest.mark.parametrize(("name", "way"), RUNS)
def test_run_against_a_misbehaving_server(tmp_path: Path, name: str, way: str, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    messages = tmp_path / "messages.txt"
    messages.write_text("\n".join(MESSAGES))
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "HOME": str(tmp_path), **OPTIONS,
           "ALFRED_MODEL_TIMEOUT": str(MISBEHAVIOURS[name].timeout)}
    with FakeModelServer(MISBEHAVIOURS[name].make()) as server:
        argv = ["--db", str(tmp_path / "k.db"), "--model", f"openai-compatible:fake@{server.base_url}", "run", str(messages)]
        if way == "process":
            done = subprocess.run([sys.executable, "-m", "alfred_mcp", *argv], capture_output=True, text=True, env=env, timeout=60, check=False)
        else:
            monkeypatch.setattr(openai_compat, "RetryPolicy", partial(RetryPolicy, base_delay=0.01))
            done = run_entry_point(argv, env, monkeypatch=monkeypatch, capsys=capsys)
    turns = [json.loads(line) for line in done.stdout.splitlines()]
    _check(turns, name)
    assert done.returncode == (1 if "blocked" in MISBEHAVIOURS[name].outcomes else 0), done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(MISBEHAVIOURS))
async def test_the_chat_tool_against_a_misbehaving_server(app: AlfredApp, name: str) -> None:
    app.model_options = app.model_options.from_env(env=OPTIONS)
    with FakeModelServer(MISBEHAVIOURS[name].make()) as server:
        app.llm = OpenAICompatibleLLM("fake", base_url=server.base_url, timeout=MISBEHAVIOURS[name].timeout,
                                      retry=RetryPolicy(attempts=3, base_delay=0.01))
        async with Client(build_server(app)) as client:
            results = [await call(client, "chat", message=message) for message in MESSAGES]
    _check([{**r, "model_calls": r["model_calls"]} for r in results], name)
