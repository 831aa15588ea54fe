"""The tools Act may call, per step type, run through the same contracts and handlers as MCP calls."""

from __future__ import annotations

from typing import Any

from alfred_mcp.contracts import load_contracts
from alfred_mcp.errors import InputError
from alfred_mcp.state.cards import read_card

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


IN_TURN_OVERRIDE = (
    "allergy_override is not available inside a turn: the user's allergies are absolute for the assistant. Use other "
    "ingredients, or ask the user (ask_user); overriding an allergy is the user's own call, made outside the turn."
)


def check_arguments(tool: str, arguments: dict[str, Any]) -> None:
    """Raises InputError when the arguments break the tool's published inputSchema, or ask to override an
    allergy, which only the user may do, outside a turn (nothing is run)."""
    if "allergy_override" in arguments:
        raise InputError(IN_TURN_OVERRIDE, field="allergy_override")
    load_contracts()[tool].check_arguments(arguments)


WRITE_VERBS = {"db_create": "created", "db_update": "updated", "db_delete": "deleted", "draft_save": "saved"}
"""What a write tool does to the items of a batch it completes."""


def is_read_only(tool: str) -> bool:
    contract = load_contracts().get(tool)
    return contract is not None and contract.hint("readOnlyHint")


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
    single = [result["draft"]] if isinstance(result.get("draft"), dict) else []
    for entry in (*result.get("drafts", ()), *result.get("recipes", ()), *single):
        if isinstance(entry, dict) and isinstance(entry.get("ref"), str):
            touched[entry["ref"]] = entry["ref"]
    return touched


def summarize_result(tool: str, result: dict[str, Any]) -> str:
    """One line a model can act on: counts and refs, never the whole payload."""
    refs = list(touched_refs(result).values())
    shown = ", ".join(refs[:12]) + (f" and {len(refs) - 12} more" if len(refs) > 12 else "")
    if "batch" in result and isinstance(result["batch"], dict):
        return f"{tool}: {result['batch'].get('summary', '')}".strip()
    verb = {"db_read": "read", "db_create": "created", "db_update": "updated", "db_delete": "deleted",
            "draft_create": "drafted", "draft_revise": "revised", "draft_discard": "discarded"}.get(tool, "result(s)")
    count = result.get("count", len(refs))
    return f"{tool}: {count} {verb}" + (f": {shown}" if shown else "")


def result_card(tool: str, arguments: dict[str, Any], result: dict[str, Any]) -> str:
    """What the call returned, compactly: rows with refs and the useful columns, drafts with labels,
    a save's items with their saved refs. Every cut says so."""
    if isinstance(result.get("rows"), list) and isinstance(result.get("table"), str):
        columns = arguments.get("columns") if isinstance(arguments.get("columns"), list) else None
        card = read_card(result["table"], result["rows"], columns=columns, truncated=bool(result.get("truncated")))
        if tool in WRITE_VERBS:  # the head says what was done: '1 deleted', never 'saved' for a delete
            return "\n".join([f"{tool} {result['table']}: {len(result['rows'])} {WRITE_VERBS[tool]}", *card.splitlines()[1:]])
        return f"{tool} {card}"
    if isinstance(result.get("recipes"), list):
        rows = [{**r, "id": r.get("ref")} for r in result["recipes"] if isinstance(r, dict)]
        columns = ["cuisine", "total_minutes", "missing" if tool == "recipes_makeable" else "matched"]
        return f"{tool} " + read_card("recipes", rows, columns=columns, truncated=bool(result.get("truncated")))
    drafts = result.get("drafts") if isinstance(result.get("drafts"), list) else [result["draft"]] if isinstance(result.get("draft"), dict) else None
    if drafts is not None:
        lines = [f"- {d.get('ref')}: {d.get('label')} [{d.get('status')}]" for d in drafts[:10]]
        more = [f"+{len(drafts) - 10} more"] if len(drafts) > 10 else []
        return "\n".join([summarize_result(tool, result), *lines, *more])
    if isinstance(result.get("items"), list) and isinstance(result.get("batch"), dict):
        lines = [f"- {i.get('ref')} {i.get('label') or ''} -> {i.get('saved_as') or i.get('status')}"
                 + (f": {i['reason']}" if i.get("reason") else "") for i in result["items"][:10]]
        return "\n".join([summarize_result(tool, result), *lines])
    return summarize_result(tool, result)
