"""Deterministic wording: quick-lookup answers, and the facts a reply may not leave out."""

from __future__ import annotations

from typing import Any

from alfred_mcp.kitchen.schema import TABLES, row_label
from alfred_mcp.operations import drafting
from alfred_mcp.session import Session
from alfred_mcp.session.documents import BATCHES
from alfred_mcp.state.agent_turn import TurnState
from alfred_mcp.state.batch import BatchItem

MAX_QUICK_ROWS = 20


def format_quick_result(result: dict[str, Any]) -> str:
    """A quick lookup's rows as a short list: ref, label and the useful columns."""
    table = TABLES[result["table"]]
    rows = result["rows"]
    if not rows:
        return f"No {table.noun} rows matched."
    lines = [f"{len(rows)} {table.noun}{'' if len(rows) == 1 else 's'}{' (more exist)' if result.get('truncated') else ''}:"]
    for row in rows[:MAX_QUICK_ROWS]:
        details = _details(table.name, row)
        lines.append(f"- {row['id']}: {row_label(table, row)}" + (f" ({details})" if details else ""))
    return "\n".join(lines)


def _details(table: str, row: dict[str, Any]) -> str:
    if table == "inventory":
        parts = [f"{row.get('quantity', '')} {row.get('unit') or ''}".strip(), row.get("location"), _expiry(row)]
    elif table == "recipes":
        minutes = (row.get("prep_time_minutes") or 0) + (row.get("cook_time_minutes") or 0)
        parts = [row.get("cuisine"), f"{minutes} min" if minutes else None]
    elif table == "meal_plans":
        parts = [row.get("recipe_id_label"), row.get("notes")]
    elif table == "shopping_list":
        parts = [f"{row.get('quantity') or ''} {row.get('unit') or ''}".strip(), "bought" if row.get("is_purchased") else None]
    elif table == "tasks":
        parts = [f"due {row['due_date']}" if row.get("due_date") else None, "done" if row.get("completed") else None]
    else:
        parts = []
    return ", ".join(str(p) for p in parts if p)


def _expiry(row: dict[str, Any]) -> str | None:
    return f"use by {row['expiry_date']}" if row.get("expiry_date") else None


def witness_additions(session: Session, state: TurnState, reply: str) -> list[str]:
    """Facts of the turn the reply did not mention: failures, a block, drafts left unsaved.

    Reply is a witness, not an authority: whatever it says, these lines make the state's
    account part of what the user reads.
    """
    additions = []
    for item in _failed_items(session, state):
        if item.ref not in reply and (item.label or "\0") not in reply:
            additions.append(f"Not saved: {item.ref} ({item.label or 'draft'}): {item.reason or 'failed'}.")
    if state.blocked_reason and state.blocked_reason not in reply:
        additions.append(f"Stopped: {state.blocked_reason}")
    unsaved = [d for d in drafting.list_drafts(session) if d.turn_created == state.turn]
    missing = [d for d in unsaved if d.ref not in reply]
    if missing:
        listed = ", ".join(f"{d.ref} ({d.label})" for d in missing)
        additions.append(f"Generated but not saved yet: {listed}.")
    return additions


def _failed_items(session: Session, state: TurnState) -> list[BatchItem]:
    failed: dict[str, BatchItem] = {}
    for batch in _turn_batches(state):
        manifest = session.read(BATCHES.at(batch))
        for item in manifest.items if manifest is not None else ():
            if item.status == "failed":
                failed[item.ref] = item
    return list(failed.values())


def _turn_batches(state: TurnState) -> list[str]:
    """The manifests this turn worked on: its steps' batches and those its draft_save calls made."""
    batches = {step.batch for step in state.steps if step.batch}
    batches.update(call.batch for step in state.steps for call in step.tool_calls if call.batch)
    return sorted(batches)
