"""What the user reads when a turn asks (Understand's or Think's clarification, Think's proposal, Act's question) names
things, never refs: every ref of every kind the model wrote is written as its label. A turn re-planned counts the
steps its first plan completed. (Scripted model, real store, the real MCP client.)
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.schema import ENTITY_TYPES, TABLES
from alfred_mcp.state.refs import name_refs

pytestmark = pytest.mark.anyio
NAMED = [table for table in TABLES.values() if table.name in ("recipes", "meal_plans", "inventory", "shopping_list", "tasks")]
READ = {"description": "Read recipes", "step_type": "read", "subdomain": "recipes"}


def asking(where: str, text: str) -> dict[str, list[dict[str, Any]]]:
    """A script whose `where` role asks `text`."""
    plan = {"goal": "Plan", "decision": "plan_direct", "steps": [READ]}
    return {
        "understand": {"understand": [{"needs_clarification": True, "clarification_questions": [text]}]},
        "think_clarify": {"understand": [{}], "think": [{"goal": "Ask", "decision": "clarify", "clarification_questions": [text]}]},
        "think_propose": {"understand": [{}], "think": [{"goal": "Propose", "decision": "propose", "proposal_message": text}]},
        "act": {"understand": [{}], "think": [plan], "act": [{"decision": {"action": "ask_user", "question": text}}]},
    }[where]


async def some_refs(client: Client) -> dict[str, str]:
    """One ref of each kind people name, with its label as a person reads it."""
    found = {}
    for table in NAMED:
        rows = (await call(client, "db_read", table=table.name, limit=1))["rows"]
        if rows:
            status = (await call(client, "show_working_set"))
            found[rows[0]["id"]] = next(e["label"] for e in _entries(status) if e["ref"] == rows[0]["id"])
    return found


def _entries(status: dict[str, Any]) -> list[dict[str, Any]]:
    return [entry for entry in status["refs"] if isinstance(entry, dict)]


@pytest.mark.parametrize("where", ["understand", "think_clarify", "think_propose", "act"])
async def test_what_the_user_is_asked_names_things_never_refs(app: AlfredApp, client: Client, where: str) -> None:
    refs = await some_refs(client)
    assert len(refs) >= 4
    text = "Shall I use " + ", ".join(f"{ref}" for ref in refs) + "? Or keep recipe_1 (as it is)?"
    app.llm = ScriptedLLM(asking(where, text))
    result = await call(client, "chat", message="sort it out")
    reply = result["reply"]
    assert not any(ref in reply for ref in [*refs, "recipe_1"]), reply
    for label in refs.values():
        assert label.replace(" [", " ").replace("]", "") in reply


async def test_a_replanned_turn_counts_the_steps_its_first_plan_completed(app: AlfredApp, client: Client) -> None:
    first = {"goal": "Read", "decision": "plan_direct", "steps": [READ, READ, READ]}
    second = {"goal": "Read again", "decision": "plan_direct", "steps": [READ]}
    read = {"decision": {"action": "tool_call", "tool": "db_read", "arguments": {"table": "recipes", "limit": 2}}}
    done = {"decision": {"action": "step_complete", "result_summary": "read"}}
    app.llm = ScriptedLLM({
        "understand": [{}], "think": [first, second],
        "act": [read, done, read, done, {"decision": {"action": "blocked", "reason_code": "plan_invalid", "reason": "wrong table"}},
                read, done],
        "reply": [{"response": "Here are your recipes."}]})
    result = await call(client, "chat", message="show me recipes")
    assert result["outcome"] == "completed", result["reply"]
    assert (result["summary"]["steps_completed"], result["summary"]["steps_total"]) == (3, 4)


@pytest.mark.parametrize("generated", [False, True])
@pytest.mark.parametrize("entity_type", ENTITY_TYPES)
def test_each_ref_of_every_kind_is_written_as_its_label_once(entity_type: str, generated: bool) -> None:
    ref = f"{'gen_' if generated else ''}{entity_type}_12"
    labels = {ref: "Pea Soup"}
    assert name_refs(f"Plan {ref}, {ref} (Pea Soup) or {ref} (for 4)? Not {entity_type}_120.", labels.get) == \
        f"Plan Pea Soup, Pea Soup or Pea Soup (for 4)? Not {entity_type}_120."
    assert name_refs(f"x{ref} and {ref}_2 stay", labels.get) == f"x{ref} and {ref}_2 stay"  # only whole refs
