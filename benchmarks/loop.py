"""Issue 5 benchmark: model calls per turn for the seed scenarios, and the loop's own overhead.

The scripted provider answers instantly, so a turn's wall time is the loop's own cost: context
building, validation, tool execution, state saves. Measured at turn 20 of one session.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.agent.loop import run_turn
from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.operations.seeding import seed
from alfred_mcp.server.tools.runner import tool_runner

TARGET_TURN = 20


def _act(decision: dict[str, Any]) -> dict[str, Any]:
    return {"decision": decision}


def _read_turn() -> dict[str, list[Any]]:
    """A plan turn: Understand, Think (one read step), Act (read, complete), Reply."""
    plan = {"goal": "Check the pantry", "decision": "plan_direct",
            "steps": [{"description": "Read the fridge", "step_type": "read", "subdomain": "inventory"}]}
    read = {"action": "tool_call", "tool": "db_read", "arguments": {"table": "inventory", "filters": [{"field": "location", "op": "eq", "value": "fridge"}]}}
    return {"understand": [{}], "think": [plan], "act": [_act(read), _act({"action": "step_complete", "result_summary": "read"})],
            "reply": [{"response": "Here is your fridge."}]}


def _quick_turn() -> dict[str, list[Any]]:
    return {"understand": [{"quick_mode": True, "quick_mode_confidence": 0.9, "quick_read": {"table": "recipes", "limit": 10}}]}


def _save_turn() -> dict[str, list[Any]]:
    recipe = {"name": "Bench Cod", "ingredients": [{"name": "cod fillet", "quantity": 2}, {"name": "lemon"}], "instructions": ["Cook."]}
    plan = {"goal": "Make and save a cod recipe", "decision": "plan_direct", "steps": [
        {"description": "Generate", "step_type": "generate", "subdomain": "recipes", "expected_count": 1},
        {"description": "Save", "step_type": "write", "subdomain": "recipes"}]}
    acts = [_act({"action": "tool_call", "tool": "draft_create", "arguments": {"entity_type": "recipe", "items": [recipe]}}),
            _act({"action": "step_complete", "result_summary": "drafted"}),
            _act({"action": "tool_call", "tool": "draft_save", "arguments": {"refs": ["gen_recipe_1"]}}),
            _act({"action": "step_complete", "result_summary": "saved"})]
    return {"understand": [{}], "think": [plan], "act": acts, "reply": [{"response": "Saved."}]}


def _clarify_turn() -> dict[str, list[Any]]:
    return {"understand": [{"needs_clarification": True, "clarification_questions": ["Which days?"]}]}


async def _turn(app: AlfredApp, script: dict[str, list[Any]], message: str) -> tuple[float, int]:
    app.llm = ScriptedLLM(script)
    start = time.perf_counter()
    async with app.work("chat") as work:
        state = await run_turn(TurnMachine(work, tool_runner(app, work.session.name)), app.llm, message)
    elapsed = time.perf_counter() - start
    return elapsed, sum(state.model_calls.values())


async def loop_overhead() -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        app = AlfredApp.from_settings(Settings(db=str(Path(folder) / "loop.db"), seed_demo=False))
        await app.open()
        try:
            await seed(app.store, app.user_id, today=date(2026, 1, 12))
            calls = {
                "quick_read": (await _turn(app, _quick_turn(), "what recipes do I have?"))[1],
                "clarify": (await _turn(app, _clarify_turn(), "plan my meals"))[1],
                "plan_read": (await _turn(app, _read_turn(), "what's in the fridge?"))[1],
                "generate_and_save": (await _turn(app, _save_turn(), "make a cod recipe and save it"))[1],
            }
            timings = []
            turn = 4
            while turn < TARGET_TURN + 3:
                elapsed, _ = await _turn(app, _read_turn(), f"what's in the fridge? ({turn})")
                turn += 1
                if turn >= TARGET_TURN - 2:
                    timings.append(elapsed)
        finally:
            await app.close()
    ms = statistics.median(timings) * 1e3
    return {"ms": round(ms, 2), "target": 20, "ok": ms <= 20, "turn": TARGET_TURN, "model_calls": calls}
