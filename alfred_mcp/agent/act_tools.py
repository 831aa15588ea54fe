"""The tools Act may call, per step type, run through the same contracts and handlers as MCP calls."""

from __future__ import annotations

from typing import Any

from alfred_mcp.contracts import load_contracts
from alfred_mcp.errors import InputError

READ_TOOLS = ("db_read", "describe_table", "draft_read", "batch_status", "show_working_set")
GENERATE_TOOLS = ("draft_create", "draft_revise", "draft_discard")
WRITE_TOOLS = ("db_create", "db_update", "db_delete", "draft_save", "batch_skip")
OPTIONAL_READ_TOOLS = ("recipes_search", "recipes_makeable", "constraints_read")
"""Read-only tools that exist once the search and constraint tools are installed."""

_BY_STEP = {
    "read": READ_TOOLS,
    "analyze": READ_TOOLS,
    "generate": READ_TOOLS + GENERATE_TOOLS,
    "write": READ_TOOLS + GENERATE_TOOLS + WRITE_TOOLS,
}


def tools_for_step(step_type: str) -> tuple[str, ...]:
    """The tools a step of this type may call (only those the server actually has)."""
    available = load_contracts()
    names = _BY_STEP[step_type] + OPTIONAL_READ_TOOLS
    return tuple(name for name in names if name in available)


def check_tool_allowed(tool: str, step_type: str) -> None:
    """Raises InputError naming the tools the step may use."""
    allowed = tools_for_step(step_type)
    if tool not in allowed:
        raise InputError(
            f"A {step_type} step cannot call '{tool}'. Tools for this step: {', '.join(allowed)}.",
            field="tool", value=tool, valid=list(allowed),
        )


def is_read_only(tool: str) -> bool:
    contract = load_contracts().get(tool)
    return bool(contract and contract.annotations.get("readOnlyHint"))


def touched_refs(result: dict[str, Any]) -> dict[str, str]:
    """Refs a successful tool result touched, each with the ref it resulted in.

    A saved draft maps to its saved ref; any other row maps to itself.
    """
    touched: dict[str, str] = {}
    for row in result.get("rows", ()):
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            touched[row["id"]] = row["id"]
    for item in result.get("items", ()):
        if isinstance(item, dict) and item.get("status") == "completed" and item.get("saved_as"):
            touched[item["ref"]] = item["saved_as"]
    for entry in (*result.get("drafts", ()), *result.get("recipes", ())):
        if isinstance(entry, dict) and isinstance(entry.get("ref"), str):
            touched[entry["ref"]] = entry["ref"]
    return touched


def summarize_result(tool: str, result: dict[str, Any]) -> str:
    """One line a model can act on: counts and refs, never the whole payload."""
    refs = list(touched_refs(result).values())
    shown = ", ".join(refs[:12]) + (f" and {len(refs) - 12} more" if len(refs) > 12 else "")
    if "batch" in result and isinstance(result["batch"], dict):
        return f"{tool}: {result['batch'].get('summary', '')}".strip()
    count = result.get("count", len(refs))
    return f"{tool}: {count} result(s)" + (f": {shown}" if shown else "")
