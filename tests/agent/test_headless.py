"""`alfred-mcp run` and `alfred-mcp chat` as real subprocesses: a scripted model file, and loopback model servers (a few
cases call the command's entry point in this process instead, where the process itself is not what they prove)."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from alfred_mcp.cli import main
from alfred_mcp.server.leak_guard import find_uuid
from tests.entry_point import run_entry_point

from .llm.fake_openai import Answer, FakeModelServer, Request, Silent, always, by_role

REPO = Path(__file__).resolve().parents[2]

SCRIPT = {
    "_note": "turn 1 is a quick read; turn 2 plans a read step",
    "understand": [
        {"quick_mode": True, "quick_mode_confidence": 0.9, "quick_read": {"table": "tasks", "limit": 3}},
        {"referenced_refs": ["task_1"]},
    ],
    "think": [{"goal": "Check the fridge", "decision": "plan_direct",
               "steps": [{"description": "Read the fridge", "step_type": "read", "subdomain": "inventory"}]}],
    "act": [
        {"decision": {"action": "tool_call", "tool": "db_read", "arguments": {"table": "inventory", "filters": [{"field": "location", "op": "eq", "value": "fridge"}]}}},
        {"decision": {"action": "step_complete", "result_summary": "read the fridge"}},
    ],
    "reply": [{"response": "Your fridge is well stocked."}],
}


def _run(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "HOME": str(tmp_path)}
    command = [sys.executable, "-m", "alfred_mcp", "--db", str(tmp_path / "kitchen.db"), "--model", f"scripted:{script}", *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, timeout=60, check=False)


def test_run_prints_a_json_line_per_turn_with_every_stage(tmp_path: Path) -> None:
    messages = tmp_path / "messages.txt"
    messages.write_text("what are my tasks?\n\nwhat's in the fridge?\n")
    done = _run(tmp_path, "run", str(messages))
    assert done.returncode == 0, done.stderr
    turns = [json.loads(line) for line in done.stdout.splitlines()]
    assert [t["message"] for t in turns] == ["what are my tasks?", "what's in the fridge?"]
    assert turns[0]["outcome"] == "quick" and turns[0]["reply"].startswith("You have 3 tasks:") and "task_" not in turns[0]["reply"]
    second = turns[1]
    assert second["understanding"]["referenced_refs"] == ["task_1"] and second["plan"]["goal"] == "Check the fridge"
    assert second["steps"][0]["tool_calls"][0]["ok"] and second["reply"] == "Your fridge is well stocked."
    assert second["ledger"]["model_calls"] == {"understand": 1, "think": 1, "act": 2, "reply": 1}
    assert find_uuid(done.stdout) is None
    for stage in ("turn 1/2 · understanding", "turn 2/2 · planning", "turn 2/2 · acting step 1/1", "turn 2/2 · done: completed"):
        assert stage in done.stderr


def test_chat_shows_a_progress_line_per_stage(tmp_path: Path) -> None:
    done = _run(tmp_path, "chat", stdin="what are my tasks?\nwhat's in the fridge?\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("alfred: ") == 3 and "Your fridge is well stocked." in done.stdout
    for stage in ("understanding", "planning", "acting step 1/1", "replying"):
        assert f"· {stage}" in done.stderr
    assert find_uuid(done.stdout + done.stderr) is None


def test_chat_without_a_model_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The entry point in this process (tests/cli/test_bad_settings.py runs refusals like it in the command's own process)."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "HOME": str(tmp_path)}
    done = run_entry_point(["--db", str(tmp_path / "k.db"), "chat"], env, monkeypatch=monkeypatch, capsys=capsys)
    assert done.returncode == 2 and "need a model" in done.stderr and "scripted:demo" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


# -- against loopback model servers: live output, exit codes, signals, turns left behind ---------------------------


class Running:
    """A headless alfred-mcp process whose output lines are read as they come."""

    def __init__(self, tmp_path: Path, *args: str, model: str, env: dict[str, str] | None = None) -> None:
        environment = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "HOME": str(tmp_path), **(env or {})}
        command = [sys.executable, "-m", "alfred_mcp", "--db", str(tmp_path / "kitchen.db"), "--model", model, *args]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, env=environment)
        self.lines: dict[str, queue.SimpleQueue[str]] = {"stdout": queue.SimpleQueue(), "stderr": queue.SimpleQueue()}
        self.seen: dict[str, list[str]] = {"stdout": [], "stderr": []}
        for name in self.lines:
            threading.Thread(target=self._pump, args=(name,), daemon=True).start()

    def _pump(self, name: str) -> None:
        for line in getattr(self.process, name):
            self.lines[name].put(line.rstrip("\n"))

    def expect(self, text: str, *, stream: str = "stderr", timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines[stream].get(timeout=0.05)
            except queue.Empty:
                continue
            self.seen[stream].append(line)
            if text in line:
                return line
        raise AssertionError(f"no {text!r} on {stream} within {timeout} s; saw {self.seen[stream]}")

    def send(self, text: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(text)
        self.process.stdin.flush()

    def finish(self, timeout: float = 30.0) -> tuple[int, list[str], list[str]]:
        """Exit code, then every stdout and stderr line."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=timeout)
        time.sleep(0.05)
        for name in self.lines:
            while True:
                try:
                    self.seen[name].append(self.lines[name].get_nowait())
                except queue.Empty:
                    break
        return code, self.seen["stdout"], self.seen["stderr"]


def _wait_until(condition: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def _fake(server: FakeModelServer) -> str:
    return f"openai-compatible:fake@{server.base_url}"


def _messages(tmp_path: Path, *lines: str) -> str:
    path = tmp_path / "messages.txt"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


QUICK = {"quick_mode": True, "quick_mode_confidence": 0.9, "quick_read": {"table": "tasks", "limit": 3}}


def test_the_packaged_demo_model_runs_out_of_the_box(tmp_path: Path) -> None:
    """The README's demo: `--model scripted:demo run -` with two messages on stdin."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "alfred_mcp", "--model", "scripted:demo", "run", "-"], input="what are my tasks?\nwhat is in the fridge?\n",
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    turns = [json.loads(line) for line in done.stdout.splitlines()]
    assert [t["outcome"] for t in turns] == ["quick", "completed"] and turns[0]["reply"].startswith("You have ") and "task_" not in turns[0]["reply"]


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_stopped_run_keeps_its_finished_turns_and_the_next_run_works(tmp_path: Path, signum: int, code: int) -> None:
    """Turn 1 is written the moment it ends; a signal during turn 2 ends it as interrupted; nothing is wedged."""
    quick = by_role({"understand": [QUICK]})
    calls = [0]

    def behave(request: Request) -> Answer | Silent:
        calls[0] += 1
        return quick(request) if calls[0] == 1 else Silent()  # type: ignore[return-value]

    script = _messages(tmp_path, "what are my tasks?", "plan dinners", "plan lunches")
    with FakeModelServer(behave) as server:
        run = Running(tmp_path, "run", script, model=_fake(server), env={"ALFRED_MODEL_TIMEOUT": "60"})
        first = json.loads(run.expect('"turn": 1', stream="stdout"))
        run.expect("turn 2/3 · understanding")
        run.process.send_signal(signum)
        exit_code, out, err = run.finish(timeout=15)
    assert first["outcome"] == "quick" and exit_code == code
    interrupted = json.loads(out[-1])
    assert interrupted["turn"] == 2 and interrupted["outcome"] == "blocked" and interrupted["blocked_reason"].startswith("interrupted")
    assert len(out) == 2, "the third message was never started"
    if signum == signal.SIGTERM:
        return  # the next run is the same after either signal; SIGINT checks it
    with FakeModelServer(by_role({"understand": [QUICK]})) as server:
        code_after, out_after, _ = Running(tmp_path, "run", _messages(tmp_path, "what are my tasks?"), model=_fake(server)).finish()
    assert code_after == 0 and json.loads(out_after[0])["turn"] == 3


def test_a_turn_left_by_a_killed_run_is_ended_by_the_next_run(tmp_path: Path) -> None:
    """kill -9 after a tool call saved the turn mid-way: the next run ends it (said on stderr), then runs its own."""
    acts = [{"decision": {"action": "tool_call", "tool": "db_read", "arguments": {"table": "inventory"}}}]
    plan = {"goal": "Check the fridge", "decision": "plan_direct",
            "steps": [{"description": "Read the fridge", "step_type": "read", "subdomain": "inventory"}]}
    answers = by_role({"understand": [{}], "think": [plan], "act": acts})

    def behave(request: Request) -> Answer | Silent:
        hang = request.role == "act" and len([r for r in server.requests if r.role == "act"]) > 1
        return Silent() if hang else answers(request)  # type: ignore[return-value]

    with FakeModelServer(behave) as server:
        run = Running(tmp_path, "run", _messages(tmp_path, "what is in the fridge?"), model=_fake(server), env={"ALFRED_MODEL_TIMEOUT": "60"})
        run.expect("acting step 1/1")
        run.expect("acting step 1/1")
        run.process.kill()
        run.finish()
    with FakeModelServer(by_role({"understand": [QUICK]})) as server:
        code, out, err = Running(tmp_path, "run", _messages(tmp_path, "what are my tasks?"), model=_fake(server)).finish()
    assert code == 0 and json.loads(out[0])["turn"] == 2
    assert any(f"turn 1 was left in progress; ended it (interrupted: the alfred-mcp headless (pid {run.process.pid}) running it stopped)" in line
               for line in err), err


@pytest.mark.anyio
async def test_run_never_ends_a_turn_an_mcp_client_drives(tmp_path: Path) -> None:
    from mcp import Client

    from alfred_mcp.app import AlfredApp
    from alfred_mcp.config import Settings
    from alfred_mcp.server.mcp_server import build_server

    app = AlfredApp.from_settings(Settings(db=str(tmp_path / "kitchen.db")))
    await app.open()
    try:
        async with Client(build_server(app)) as client:
            await client.call_tool("turn_start", {"message": "a client drives this turn"})
    finally:
        await app.close()
    with FakeModelServer(by_role({"understand": [QUICK]})) as server:
        code, out, err = await anyio.to_thread.run_sync(
            lambda: Running(tmp_path, "run", _messages(tmp_path, "what are my tasks?"), model=_fake(server)).finish()
        )
    assert code == 1 and out == [] and server.requests == []
    assert err == ["alfred-mcp: Turn 1 was started stage by stage by an MCP client and waits for its understand output; "
                   "finish it there, or end it with the turn_abandon tool, before running turns here."]


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        pytest.param(("run", "/nonexistent/messages.txt"), {}, "alfred-mcp: Cannot read the messages file /nonexistent/messages.txt: "
                     "No such file or directory; give run a text file", id="missing-file"),
        pytest.param(("run", "-"), {"ALFRED_MODEL_TIMEOUT": "soon"}, "alfred-mcp: ALFRED_MODEL_TIMEOUT='soon' must be a positive number",
                     id="bad-timeout"),
        pytest.param(("chat", "--json-mode", "json_object", "--max-calls", "0"), {}, "alfred-mcp: --max-calls takes a positive whole number (got '0')",
                     id="bad-flag"),
    ],
)
def test_a_bad_messages_file_or_model_option_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], env: dict[str, str],
    expected: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    code = main(["--db", str(tmp_path / "kitchen.db"), "--model", "scripted:demo", *args])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and captured.err.count("\n") == 1 and captured.err.startswith(expected), captured.err


def test_ctrl_c_ends_chat_promptly_while_it_waits_for_input(tmp_path: Path) -> None:
    chat = Running(tmp_path, "chat", model="scripted:demo")
    chat.expect("what are we cooking?", stream="stdout")
    chat.process.send_signal(signal.SIGINT)
    started = time.monotonic()
    chat.process.wait(timeout=10)  # Ctrl-C alone ends it: input stays open (closing it first would race an end of input)
    code, _, err = chat.finish(timeout=10)
    assert code == 130 and time.monotonic() - started < 5 and "Traceback" not in "\n".join(err)


def test_ctrl_c_during_a_chat_turn_interrupts_it_and_exits_130(tmp_path: Path) -> None:
    with FakeModelServer(always(Silent())) as server:
        chat = Running(tmp_path, "chat", model=_fake(server), env={"ALFRED_MODEL_TIMEOUT": "60"})
        chat.expect("what are we cooking?", stream="stdout")
        chat.send("plan dinners\n")
        chat.expect("· understanding")
        _wait_until(lambda: bool(server.requests))
        chat.process.send_signal(signal.SIGINT)
        code, out, _ = chat.finish(timeout=10)
        assert server.requests and all(r.ended is not None for r in server.requests)
    assert code == 130 and out[-2:] == ["alfred: Nothing was changed.", "I couldn't finish this: interrupted (Ctrl-C)."]


SHOPPING_SCRIPT = {
    "understand": [{"referenced_refs": []}],
    "think": [{"goal": "Shop for a recipe", "decision": "plan_direct",
               "steps": [{"description": "Add a recipe's ingredients to the list", "step_type": "write", "subdomain": "shopping"}]}],
    "act": [
        {"decision": {"action": "tool_call", "tool": "db_read", "arguments": {"table": "recipes", "limit": 1}}},
        {"decision": {"action": "tool_call", "tool": "shopping_list_from", "arguments": {"recipes": ["recipe_1"]}}},
        {"decision": {"action": "step_complete", "result_summary": "done what the server allows"}},
    ],
    "reply": [{"response": "Here is what I could do."}],
}


@pytest.mark.parametrize(("flags", "runs"), [((), True), (("--read-only",), False), (("--tools", "core,drafts,agent"), False)],
                         ids=["every tool", "read-only", "tools core,drafts,agent"])
def test_run_gives_act_the_kitchen_tools_the_host_serves_and_no_other(
    tmp_path: Path, flags: tuple[str, ...], runs: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """The command's entry point in this process (the tests above run the command itself)."""
    script = tmp_path / "shopping.json"
    script.write_text(json.dumps(SHOPPING_SCRIPT))
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "HOME": str(tmp_path)}
    argv = ["--db", str(tmp_path / "kitchen.db"), "--model", f"scripted:{script}", *flags, "run", "-"]
    done = run_entry_point(argv, env, monkeypatch=monkeypatch, capsys=capsys, stdin="put the first recipe on my shopping list\n")
    # Without shopping_list_from the write step writes nothing, so the turn ends blocked (exit 1), never completed.
    assert done.returncode == (0 if runs else 1), done.stderr
    (step,) = json.loads(done.stdout)["steps"]
    assert [call["tool"] for call in step["tool_calls"]] == ["db_read", "shopping_list_from"][: 2 if runs else 1]
    assert all(call["ok"] for call in step["tool_calls"])
    if not runs:
        (refused,) = step["refused"]
        assert refused.startswith("shopping_list_from (not run): 'shopping_list_from' is not available on this server: the host hides it")
