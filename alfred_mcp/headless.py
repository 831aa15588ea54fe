"""Headless turns: `alfred-mcp chat` in a terminal and `alfred-mcp run SCRIPT` for a transcript."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, TextIO

from alfred_mcp.agent.loop import run_turn
from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.errors import ConfigError
from alfred_mcp.server.tools.runner import tool_runner
from alfred_mcp.state.agent_turn import TurnState

_STAGE_WORDS = {"understand": "understanding", "think": "planning", "act": "acting", "reply": "replying", "done": "done"}


def _require_model(app: AlfredApp) -> None:
    if app.llm is None:
        raise ConfigError("chat and run need a model: pass --model or set ALFRED_MODEL (e.g. anthropic:claude-sonnet-4-5).")


async def chat_in_terminal(settings: Settings, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Read messages from the terminal; show a progress line per stage on stderr and the reply on stdout."""
    app = AlfredApp.from_settings(settings)
    _require_model(app)
    await app.open()
    try:
        stdout.write("alfred: what are we cooking? (Ctrl-D to leave)\n")
        for line in stdin:
            message = line.strip()
            if message:
                state = await _one_turn(app, message, progress=True)
                stdout.write(f"alfred: {state.reply}\n")
                stdout.flush()
    finally:
        await app.close()
    return 0


async def run_script(settings: Settings, script: str, stdout: TextIO = sys.stdout) -> int:
    """Run each line of `script` as a turn; print a JSON transcript with every stage's output."""
    messages = [line.strip() for line in Path(script).read_text(encoding="utf-8").splitlines() if line.strip()]
    app = AlfredApp.from_settings(settings)
    _require_model(app)
    await app.open()
    transcript: list[dict[str, Any]] = []
    try:
        for message in messages:
            state = await _one_turn(app, message, progress=False)
            transcript.append(state.model_dump(mode="json", exclude_none=True))
    finally:
        await app.close()
    json.dump({"turns": transcript}, stdout, indent=2, ensure_ascii=False)
    stdout.write("\n")
    return 0


async def _one_turn(app: AlfredApp, message: str, *, progress: bool) -> TurnState:
    assert app.llm is not None

    async def observe(role: str, state: TurnState) -> None:
        if progress:
            where = f" step {state.current_step + 1}/{len(state.steps)}" if role == "act" and state.steps else ""
            sys.stderr.write(f"  · {_STAGE_WORDS.get(role, role)}{where}\n")

    async with app.work("chat") as work:
        machine = TurnMachine(work, tool_runner(app, work.session.name))
        return await run_turn(machine, app.llm, message, observe=observe)
