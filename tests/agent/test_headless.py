"""`alfred-mcp run` and `alfred-mcp chat` as real subprocesses with a scripted model file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from alfred_mcp.server.leak_guard import find_uuid

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


def test_run_prints_a_json_transcript_with_every_stage(tmp_path: Path) -> None:
    messages = tmp_path / "messages.txt"
    messages.write_text("what are my tasks?\n\nwhat's in the fridge?\n")
    done = _run(tmp_path, "run", str(messages))
    assert done.returncode == 0, done.stderr
    turns = json.loads(done.stdout)["turns"]
    assert [t["message"] for t in turns] == ["what are my tasks?", "what's in the fridge?"]
    assert turns[0]["outcome"] == "quick" and "task_1" in turns[0]["reply"]
    second = turns[1]
    assert second["understanding"]["referenced_refs"] == ["task_1"] and second["plan"]["goal"] == "Check the fridge"
    assert second["steps"][0]["tool_calls"][0]["ok"] and second["reply"] == "Your fridge is well stocked."
    assert second["ledger"]["model_calls"] == {"understand": 1, "think": 1, "act": 2, "reply": 1}
    assert find_uuid(done.stdout) is None


def test_chat_shows_a_progress_line_per_stage(tmp_path: Path) -> None:
    done = _run(tmp_path, "chat", stdin="what are my tasks?\nwhat's in the fridge?\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("alfred: ") == 3 and "Your fridge is well stocked." in done.stdout
    for stage in ("understanding", "planning", "acting step 1/1", "replying"):
        assert f"· {stage}" in done.stderr
    assert find_uuid(done.stdout + done.stderr) is None


def test_chat_without_a_model_is_a_one_line_error(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "alfred_mcp", "--db", str(tmp_path / "k.db"), "chat"], input="", capture_output=True,
                          text=True, env=env, timeout=60, check=False)
    assert done.returncode == 2 and "need a model" in done.stderr and "Traceback" not in done.stderr
