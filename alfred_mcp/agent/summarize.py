"""Summarize: the turn's audit ledger, built from recorded state only (no model call)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from alfred_mcp.kitchen.plurals import counted
from alfred_mcp.session import Session
from alfred_mcp.state.agent_turn import TurnState

_DELTAS = {"created": "entities_created", "updated": "entities_updated", "deleted": "entities_deleted"}


def summarize_turn(session: Session, state: TurnState) -> dict[str, Any]:
    """What the turn did, as facts: steps, tools, state deltas, artifacts, errors."""
    calls = session.calls(state.turn)
    ledger: dict[str, Any] = {
        "turn": state.turn,
        "outcome": state.outcome,
        # the steps of a plan given up for a re-plan ran too: what they completed counts
        "steps_completed": sum(step.status == "completed" for step in [*state.superseded_steps, *state.steps]),
        "steps_total": len(state.superseded_steps) + len(state.steps),
        "tools_called": _tool_counts(calls),
        "entities_created": [], "entities_updated": [], "entities_deleted": [], "entities_unlinked": [], "entities_relinked": [],
        "artifacts_generated": [], "artifacts_saved": [],
        "errors": [{"code": c.error_code, "message": c.note, "tool": c.tool, **({"fixed": True} if _redone(calls, i) else {})}
                   for i, c in enumerate(calls) if c.outcome == "error"]
        + [{**error, **({"fixed": True} if _accepted_since(state, str(error["role"])) else {})} for error in state.errors if "role" in error],
        "model_calls": dict(state.model_calls),
        "model_requests": state.model_requests,
    }
    for call in calls:
        if call.outcome != "ok":
            continue
        ledger["entities_unlinked"].extend(_entities(session, call.unlinked or []))
        ledger["entities_relinked"].extend(_entities(session, call.relinked or []))
        if call.action in _DELTAS:  # db_*, and the kitchen tools' rows: shopping lines added, pantry items used up
            ledger[_DELTAS[call.action]].extend(_entities(session, call.refs))
        elif call.tool == "draft_create":
            ledger["artifacts_generated"].extend(_entities(session, call.refs))
        elif call.tool == "draft_save":
            ledger["artifacts_saved"].extend(_entities(session, call.refs))
    ledger["summary"] = _one_line(ledger, state)
    return ledger


def _redone(calls: list[Any], index: int) -> bool:
    """A refused call was fixed: a later call of the same tool (on the same table, when both name one) succeeded."""
    failed = calls[index]
    return any(c.outcome == "ok" and c.tool == failed.tool and (c.table is None or failed.table is None or c.table == failed.table)
               for c in calls[index + 1:])


def _accepted_since(state: TurnState, role: str) -> bool:
    """A refused role output was fixed: the role's output was accepted after it (a reply: the model's own was used)."""
    accepted = state.model_calls.get(role, 0) - state.invalid_outputs.get(role, 0)
    return accepted > 0 and (role != "reply" or state.reply_source in ("model", "model+state"))


def _tool_counts(calls: list[Any]) -> list[dict[str, Any]]:
    counts = Counter((c.tool, c.table) for c in calls)
    return [{"tool": tool, "table": table, "count": n} for (tool, table), n in sorted(counts.items(), key=lambda kv: (kv[0][0], kv[0][1] or ""))]


def _entities(session: Session, refs: list[str]) -> list[dict[str, Any]]:
    out = []
    for ref in refs:
        entry = session.registry.get(ref)
        out.append({"ref": ref, "type": entry.entity_type if entry else None, "label": entry.label if entry else None})
    return out


def _one_line(ledger: dict[str, Any], state: TurnState) -> str:
    parts = [f"turn {state.turn}: {state.outcome}"]
    for key, word in (("entities_created", "created"), ("entities_updated", "updated"), ("entities_deleted", "deleted"), ("entities_unlinked", "unlinked"), ("entities_relinked", "relinked"),
                      ("artifacts_generated", "drafted"), ("artifacts_saved", "saved")):
        if ledger[key]:
            parts.append(f"{len(ledger[key])} {word}")
    standing = sum(not error.get("fixed") for error in ledger["errors"])
    if standing:
        parts.append(counted(standing, "error"))
    if len(ledger["errors"]) > standing:
        parts.append(f"{counted(len(ledger['errors']) - standing, 'refused call')} fixed")
    if state.blocked_reason:
        parts.append(f"blocked: {state.blocked_reason}")
    return "; ".join(parts)
