"""The tools Act may call, per step type, run through the same contracts and handlers as MCP calls."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any, get_args

from alfred_mcp.agent.table_arguments import check_table_arguments
from alfred_mcp.contracts import ToolContract, load_contracts
from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.kitchen.view_texts import TEXTS
from alfred_mcp.state.cards import CARD_BUDGET, card_columns, draft_lines, draft_size, read_card
from alfred_mcp.state.compact_result import compact_lines
from alfred_mcp.state.folding import clip
from alfred_mcp.state.refs import is_ref
from alfred_mcp.state.role_outputs import Subdomain

STEP_KEY = "alfred/step"
"""A contract's `_meta` key for what annotations cannot say: "generate" marks a tool that writes only pending
drafts (never kitchen rows), so a generate step may call it."""
_STEP_CLASSES: dict[str, tuple[str, ...]] = {
    "read": ("read",),
    "analyze": ("read",),
    "generate": ("read", "generate"),
    "write": ("read", "generate", "write"),
}
"""Which classes of tools each step type may call: a read never writes, a generate step writes only drafts."""
STEP_TYPES = tuple(_STEP_CLASSES)

NOT_FOR_ACT: dict[str, str] = {
    "chat": "it runs a whole turn of its own, and Act is a step inside a turn",
    **dict.fromkeys(
        ("turn_start", "turn_context", "turn_submit", "turn_status", "turn_abandon"),
        "a client drives a turn's stages with it, and Act works inside the turn it would drive",
    ),
    **dict.fromkeys(
        ("turn_begin", "understanding_submit", "turn_reply"),
        "a client's own model records its turn with it; inside a bundled turn the machine records the turn itself",
    ),
    "session_start": "it switches to another session, and a turn works in the session it began in",
    **dict.fromkeys(
        ("batch_open", "batch_complete"),
        "the turn's machine opens a step's batch and completes its items from what the step's calls did",
    ),
}
"""Tools Act never calls, each with why. Every other tool is reachable from some step type (`tool_class`)."""
APP_ONLY_REASON = "only an MCP Apps view calls it (`_meta.ui.visibility` leaves out the model)"
APP_TOOLS_FOR_ACT = frozenset({"shopping_list_check"})
"""View-only tools Act calls all the same: a line the user says they bought is ticked the way the view ticks it
(the pantry stocked with what the line says to buy), not ticked by db_update and stocked by hand in a second call."""


def why_not_for_act(contract: ToolContract) -> str | None:
    """Why Act may not call this tool (None: some step type may)."""
    if contract.app_only and contract.name not in APP_TOOLS_FOR_ACT:
        return APP_ONLY_REASON
    return NOT_FOR_ACT.get(contract.name)


def tool_class(contract: ToolContract) -> str | None:
    """'read' (readOnlyHint), 'generate' (`_meta` "alfred/step": drafts only) or 'write' (any other tool that
    changes something); None for a tool Act never calls."""
    if why_not_for_act(contract) is not None:
        return None
    if contract.hint("readOnlyHint"):
        return "read"
    declared = (contract.meta or {}).get(STEP_KEY)
    return "generate" if declared == "generate" else "write"


def only_reads(tools: Sequence[str]) -> bool:
    """Whether `tools` (a turn's calls, by tool) are a lookup: at least one, and every one a read tool."""
    contracts = load_contracts()
    return bool(tools) and all(tool in contracts and tool_class(contracts[tool]) == "read" for tool in tools)


def tools_for_step(step_type: str, served: Collection[str] | None = None) -> tuple[str, ...]:
    """The tools a step of this type may call: read tools first, then drafting tools, then writes, each
    within the tools the host serves (`served`; None: every tool)."""
    contracts = load_contracts()
    classes = _STEP_CLASSES[step_type]
    by_class = {name: tool_class(contract) for name, contract in contracts.items()}
    return tuple(
        name for wanted in classes for name, found in by_class.items()
        if found == wanted and (served is None or name in served)
    )


def act_callable(served: Collection[str] | None = None) -> tuple[str, ...]:
    """Every tool some step type may call (within `served`), in the order a write step lists them."""
    return tools_for_step("write", served)


def check_tool_allowed(tool: str, step_type: str, served: Collection[str] | None = None) -> None:
    """Raises InputError naming the tools the step may use (and why a tool is never Act's)."""
    allowed = tools_for_step(step_type, served)
    if tool in allowed:
        return
    contract = load_contracts().get(tool)
    reason = why_not_for_act(contract) if contract is not None else None
    if reason:
        why = f"Act never calls '{tool}': {reason}."
    elif tool in tools_for_step(step_type):
        why = f"'{tool}' is not available on this server: the host hides it (--read-only or --tools)."
    else:
        why = f"A {step_type} step cannot call '{tool}'."
    raise InputError(f"{why} Tools for this step: {', '.join(allowed)}.", field="tool", value=tool, valid=list(allowed))


IN_TURN_OVERRIDE = (
    "allergy_override is not available inside a turn: the user's allergies are absolute for the assistant. Use other "
    "ingredients, or ask the user (ask_user); overriding an allergy is the user's own call, made outside the turn."
)


def check_arguments(tool: str, arguments: dict[str, Any]) -> None:
    """Raises InputError when the arguments break the tool's published inputSchema or what a table tool checks before
    it runs (table, columns, filter ops), or ask to override an allergy, which only the user may do, outside a turn
    (nothing is run)."""
    if "allergy_override" in arguments:
        raise InputError(IN_TURN_OVERRIDE, field="allergy_override")
    load_contracts()[tool].check_arguments(arguments)
    check_table_arguments(tool, arguments)


VERBS = {
    "db_read": "read", "db_create": "created", "db_update": "updated", "db_delete": "deleted", "draft_save": "saved",
    "draft_create": "drafted", "draft_revise": "revised", "draft_discard": "discarded", "recipes_import": "drafted",
    "meal_cooked": "cooked", "shopping_list_from": "added to the shopping list", "kitchen_undo": "undone",
}
"""What a tool did, in a word: a result's summary line, and the action of the batch items a write completes."""


def is_write(tool: str, arguments: Mapping[str, Any] | None = None) -> bool:
    """Whether the call writes kitchen rows (the tool's class is 'write' and it is no `preview`): only such a call
    completes a write step's items."""
    contract = load_contracts().get(tool)
    return contract is not None and tool_class(contract) == "write" and not (arguments or {}).get("preview")


_USED_IN = {"meal": "planned", "task": "given a task", "shop": "added to the shopping list", "log": "cooked",
            "ri": "used in a recipe", "inv": "stocked", "recipe": "varied"}
"""What an existing item became when a row written refers to it (a meal planned with the recipe: 'planned')."""


def batch_action(tool: str, item: str | None = None, result_ref: str | None = None) -> str:
    """What a write tool does to the items of a batch it completes: 'saved', 'deleted', 'cooked', ...; an existing
    `item` handled by another row (`result_ref`, a meal naming the recipe) by what that row is: 'planned'."""
    if item is not None and result_ref is not None and result_ref != item and not item.startswith("gen_"):
        return _USED_IN.get(result_ref.rsplit("_", 1)[0], VERBS.get(tool, "done"))
    return VERBS.get(tool, "done")


def new_drafts(tool: str, result: dict[str, Any]) -> list[str]:
    """Drafts a drafting tool produced for its step: the pending drafts of a `drafts` list (draft_create,
    recipes_import), or the one draft a revision changed (draft_revise: 'make it dairy-free' generates it anew)."""
    contract = load_contracts().get(tool)
    if contract is None or tool_class(contract) != "generate":
        return []
    revised, created = result.get("draft"), result.get("drafts")
    listed: list[Any] = created if isinstance(created, list) else [revised] if isinstance(revised, dict) else []
    drafts = [d for d in listed if isinstance(d, dict) and isinstance(d.get("ref"), str)]
    return [d["ref"] for d in drafts if d.get("status", "pending") == "pending"]


_ROW_LISTS = ("lines", "removed", "restored", "reverted")
"""Result keys listing rows a call wrote, each with its ref (shopping_list_from's lines, kitchen_undo's rows)."""
_REF_FIELDS = ("recipe", "meal", "log")
"""Result keys naming one row the call worked on by ref (meal_cooked: the recipe, the meal, the log entry)."""


def touched_refs(result: dict[str, Any]) -> dict[str, str]:
    """Refs a successful tool result touched, each with the ref it resulted in.

    A saved draft maps to its saved ref; any other row maps to itself. Rows a removal only unlinked
    (`unlinked`) are not touched: the call did not do to them what it did to its items.
    """
    touched: dict[str, str] = {}
    for row in result.get("rows", ()):
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            touched[row["id"]] = row["id"]
    for item in result.get("items", ()):
        if isinstance(item, dict) and item.get("status") == "completed" and item.get("saved_as"):
            touched[item["ref"]] = item["saved_as"]
    single = [result["draft"]] if isinstance(result.get("draft"), dict) else []
    listed = [entry for key in _ROW_LISTS if isinstance(result.get(key), list) for entry in result[key]]
    for entry in (*result.get("drafts", ()), *result.get("recipes", ()), *single, *listed):
        if isinstance(entry, dict) and isinstance(entry.get("ref"), str):
            touched[entry["ref"]] = entry["ref"]
        elif isinstance(entry, str):
            touched[entry] = entry
    for key in _REF_FIELDS:
        if isinstance(result.get(key), str):
            touched[result[key]] = result[key]
    return touched


def handled_refs(result: dict[str, Any], drafts_saved: Mapping[str, Collection[str]] | None = None) -> dict[str, str]:
    """What a write's result did to the items of a batch: the rows it touched (`touched_refs`), and each existing
    row that a row it wrote refers to, mapped to that row (a meal planned with recipe_1, a task for it, a shopping
    line from it: recipe_1 is handled as meal_3). `drafts_saved` gives, per saved draft, the refs its content names.
    """
    handled: dict[str, str] = {}
    written = [row for key in ("rows", *_ROW_LISTS) if isinstance(result.get(key), list) for row in result[key]]
    for row in written:
        own = (row.get("id") or row.get("ref")) if isinstance(row, dict) else None
        if isinstance(own, str):
            for key, value in row.items():
                if key not in ("id", "ref") and is_ref(value):
                    handled.setdefault(value, own)
    touched = touched_refs(result)
    for draft, named in (drafts_saved or {}).items():
        for ref in named:
            handled.setdefault(ref, touched.get(draft, draft))
    return {**handled, **touched}


def summarize_result(tool: str, result: dict[str, Any]) -> str:
    """One line a model can act on: counts and refs, never the whole payload."""
    if isinstance(result.get("markdown"), str):  # 'constraints_read: Constraints': what its Markdown is about
        return f"{tool}: {result['markdown'].partition(chr(10))[0].lstrip('# ')}"
    refs = list(touched_refs(result).values())
    shown = _few(refs)
    if "batch" in result and isinstance(result["batch"], dict):
        return f"{tool}: {result['batch'].get('summary', '')}".strip()
    listed = [key for key in _ROW_LISTS if isinstance(result.get(key), list)]
    if "count" in result or listed:  # rows by count: shopping lines, said apart from the recipes they came from
        count = result.get("count", sum(len(result[key]) for key in listed))
        done = "to add (a preview: nothing written)" if result.get("preview") else VERBS.get(tool, _results(count))
        verb = f"{count} {done}"
        if isinstance(topped := result.get("topped_up"), int) and topped:  # '17 added ..., 1 topped up': never all 'added'
            verb = (f"{result.get('added', 0)} to add, {topped} to top up (a preview: nothing written)" if result.get("preview")
                    else f"{result.get('added', 0)} {done}, {topped} topped up")
        sources = [ref for ref in result.get("recipes", ()) if isinstance(ref, str) and ref in refs]
        rows = [ref for ref in refs if ref not in sources]
        return f"{tool}: {verb}" + (f" from {_few(sources)}" if sources else "") + (f": {_few(rows)}" if rows else "")
    elif any(isinstance(result.get(key), str) for key in _REF_FIELDS):  # one recipe cooked, whatever refs it names
        verb = VERBS.get(tool, "done")
    elif not refs and (counted := _counted_list(result)) is not None:  # a view's result: '2 meals', never '0 results'
        verb = f"{len(result[counted])} {counted.replace('_', ' ')}"
    else:
        verb = f"{len(refs)} {VERBS.get(tool, _results(len(refs)))}"
    return f"{tool}: {verb}" + (f": {shown}" if shown else "")


def _results(count: object) -> str:
    return "result" if count == 1 else "results"


def _few(refs: list[str]) -> str:
    return ", ".join(refs[:12]) + (f" and {len(refs) - 12} more" if len(refs) > 12 else "")


def _counted_list(result: dict[str, Any]) -> str | None:
    """The result's list worth counting when it names no refs: meals, lines, rows or items first, else the first list."""
    lists = [key for key, value in result.items() if isinstance(value, list) and key != "warnings"]
    return next((key for key in ("meals", "lines", "rows", "items", *lists) if key in lists), None)


RESULT_CARD_BUDGET = 4_000
"""Characters of a result a card shows as compact lines when no card is shaped for it (the cut says how to get
the rest); a view tool's card is its own text, whole."""
_CONTEXT_KEYS = frozenset({"session", "turn"})
_SHOWN_APART = frozenset({"cascaded", "unlinked", "relinked", "warnings"})
"""Result keys `removal_lines` and `warning_lines` show: never twice."""
REST_HINTS: dict[str, str] = {
    "show_working_set": "show_working_set with entity_type shows one kind of ref; db_read a row by its ref",
    "describe_table": "describe_table with table describes one table whole",
}
"""How to get what a card left out, for tools whose rows are not read back by ref (the default: db_read by ref)."""


def _cleared(arguments: dict[str, Any]) -> str:
    """'; notes cleared': the columns an update set to nothing, which its rows no longer show."""
    data = arguments.get("data")
    cleared = [name for name, value in data.items() if value in (None, "", [])] if isinstance(data, dict) else []
    return f"; {', '.join(cleared)} cleared" if cleared else ""


def result_card(tool: str, arguments: dict[str, Any], result: dict[str, Any]) -> str:
    """What the call returned, compactly and whole: a view tool's own text under its name; rows with refs and the useful
    columns; drafts with labels; a save's items with their saved refs; any other result as compact lines (one line
    per row, its columns named once), never longer than its JSON. Every cut says how to get the rest."""
    if tool in TEXTS:  # the plain call's own text, under the tool's name (a card's head line names its call)
        return f"{tool}\n{TEXTS[tool](result)}"
    if isinstance(result.get("markdown"), str):  # the state's own rendering of the result: its other keys say it again
        return "\n".join([summarize_result(tool, result), *result["markdown"].splitlines()[1:]])
    if isinstance(result.get("rows"), list) and isinstance(result.get("table"), str):
        columns = arguments.get("columns") if isinstance(arguments.get("columns"), list) else _with_set_columns(result["table"], arguments)
        card = read_card(result["table"], result["rows"], columns=columns, truncated=bool(result.get("truncated")))
        if tool != "db_read" and tool in VERBS:  # the head says what was done: '1 deleted', never 'saved' for a delete
            card = "\n".join([f"{tool} {result['table']}: {len(result['rows'])} {VERBS[tool]}{_cleared(arguments)}",
                              *card.splitlines()[1:]])
        else:
            card = f"{tool} {card}"
        return "\n".join([card, *removal_lines(result), *warning_lines(result)])
    if isinstance(result.get("recipes"), list) and all(isinstance(r, dict) for r in result["recipes"]):
        rows = [{**r, "id": r.get("ref")} for r in result["recipes"]]
        columns = ["cuisine", "total_minutes", "missing" if tool == "recipes_makeable" else "matched", "notes"]
        card = f"{tool} " + read_card("recipes", rows, columns=columns, truncated=bool(result.get("truncated")))
        planned = [str(line) for line in result.get("planned_today", ())]
        return "\n".join([card, *([f"Planned today already: {'; '.join(planned)}"] if planned else []), *excluded_lines(result)])
    drafts = result.get("drafts") if isinstance(result.get("drafts"), list) else [result["draft"]] if isinstance(result.get("draft"), dict) else None
    if drafts is not None:
        listed = [d for d in drafts if isinstance(d, dict)]
        if tool == "draft_create":  # the model wrote their content: labels are enough
            listed = [{k: v for k, v in d.items() if k != "content"} for d in listed]
        if tool == "draft_revise":  # the model wrote the change: what it revised and the draft's size, not its content
            return "\n".join([summarize_result(tool, result), *_revised_lines(listed, arguments), *warning_lines(result)])
        budget = DRAFT_READ_BUDGET if tool == "draft_read" else CARD_BUDGET
        return "\n".join([summarize_result(tool, result), *draft_lines(listed, budget=budget), *warning_lines(result)])
    if isinstance(result.get("items"), list) and isinstance(result.get("batch"), dict):
        lines = [f"- {i.get('ref')} {i.get('label') or ''} -> {i.get('saved_as') or i.get('status')}"
                 + (f": {i['reason']}" if i.get("reason") else "") for i in result["items"]]
        return "\n".join([summarize_result(tool, result), *lines, *warning_lines(result)])
    shown = {k: v for k, v in result.items() if k not in _CONTEXT_KEYS and k not in _SHOWN_APART}
    if tool == "shopping_list_from":
        shown = _shopping_lines_as_written(_unchanged_as_counts(shown))
    hint = REST_HINTS.get(tool, f"db_read a row by its ref; {tool} itself, called outside the turn, returns it whole")
    head, tail = summarize_result(tool, result), [*removal_lines(result), *warning_lines(result)]
    room = RESULT_CARD_BUDGET - sum(len(line) + 1 for line in [head, *tail])
    body = "\n".join(compact_lines(shown, budget=room, rest_hint=hint))
    as_json = json.dumps(shown, ensure_ascii=False, separators=(",", ":"))
    card = "\n".join([head, as_json if len(as_json) < len(body) else body, *tail])
    whole = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
    return card if len(card) <= len(tool) + 1 + len(whole) else f"{tool}\n{whole}"  # never longer than the plain text


UNCHANGED_ROWS = {"covered": "covered by the pantry (db_read inventory shows it)",
                  "already_listed": "already on the list (shopping_list_show lists them)"}
"""shopping_list_from's rows it did not change, and how to list them: a card shows the ones that need the user's
attention (a shortfall, an amount to check) and counts and names the rest."""
_ATTENTION = re.compile(r"\b(short|check|not enough|missing)\b", re.IGNORECASE)


_BOUGHT = re.compile(r"\bbought\b")
"""A note of shopping_list_from's on a line already bought ('bought already', 'need 8, bought 1 bag: check it')."""


def _bought_line(row: dict[str, Any]) -> str:
    note = str(row.get("note") or "")
    return f"{row.get('name')}" + (f" ({note})" if note and note != "bought already" else "")


def _unchanged_as_counts(shown: dict[str, Any]) -> dict[str, Any]:
    """`shown` with each list of rows the call did not change cut to those whose note needs the user's attention,
    the rest as one line: how many, the first names (`NAMES_SHOWN`), and how to list them."""
    out = dict(shown)
    listed = shown.get("already_listed")
    if isinstance(listed, list):  # a bought line is not one still to buy: said apart
        bought = [row for row in listed if isinstance(row, dict) and _BOUGHT.search(str(row.get("note") or ""))]
        out["already_listed"] = [row for row in listed if row not in bought]
        if bought:
            checks = [_bought_line(row) for row in bought if str(row.get("note")) != "bought already"]  # each named: a check
            plain = [_bought_line(row) for row in bought if str(row.get("note")) == "bought already"]
            out["bought_already"] = clip(f"{len(bought)} bought already, not on the list to buy (not added again): "
                                         f"{', '.join(filter(None, [*checks, _first_names(plain)]))}", 600)
    for key, how in UNCHANGED_ROWS.items():
        rows = out.get(key)
        if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
            continue
        attention = [row for row in rows if _ATTENTION.search(str(row.get("note") or ""))]
        rest = [str(row.get("name")) for row in rows if row not in attention]
        out[key] = attention
        if rest:
            out[f"{key}_more"] = clip(f"{len(rest)} more {how}: {_first_names(rest)}", 400)
        if not attention:
            del out[key]
    return out


NAMES_SHOWN = 5
"""Names a card gives of one list of rows a call did not change; past it, how many more (the tool that lists them is
named beside it)."""


def _first_names(names: Sequence[str]) -> str:
    """'a, b, c, d, e and 22 more' (all of them up to NAMES_SHOWN)."""
    more = len(names) - NAMES_SHOWN
    return ", ".join(names[:NAMES_SHOWN]) + (f" and {more} more" if more > 0 else "")


_SAID_IN_HEAD = ("added", "topped_up", "recipes")
"""shopping_list_from's keys its card's head line already says ('18 added ..., 1 topped up from recipe_5, ...')."""


def _shopping_lines_as_written(shown: dict[str, Any]) -> dict[str, Any]:
    """shopping_list_from's lines each as its ref (a preview's, which has none, by name), its text as written (a topped-up
    line with what it was) and what it is for: the amount and unit are in the text; the counts and recipes the head line
    gives are left out."""
    out = {key: value for key, value in shown.items() if key not in _SAID_IN_HEAD}
    lines = shown.get("lines")
    if isinstance(lines, list) and all(isinstance(line, dict) and line.get("text") for line in lines):
        out["lines"] = [{**({"ref": line["ref"]} if line.get("ref") else {"name": line.get("name")}), "text": str(line["text"]) + (f" (was {line['was']})" if line.get("was") else ""),
                         "for": line.get("recipes")} for line in lines]
    return out


def _revised_lines(drafts: list[dict[str, Any]], arguments: dict[str, Any]) -> list[str]:
    """Each revised draft by its label, the fields the call changed (`patch`'s, or all when `content` replaced it) and
    its size now; draft_read shows it whole."""
    patch = arguments.get("patch")
    changed = f"revised {', '.join(patch)}" if isinstance(patch, dict) and patch else "replaced whole"
    lines = []
    for draft in drafts:
        content = draft.get("content") if isinstance(draft.get("content"), dict) else {}
        size = draft_size(content) if content else ""
        lines += [f"- {draft.get('ref')}: {draft.get('label')} [{draft.get('status')}]",
                  f"  ({changed}{f'; now {size}' if size else ''}; draft_read refs=[\"{draft.get('ref')}\"] shows it whole)"]
    return lines


def _with_set_columns(table: str, arguments: dict[str, Any]) -> list[str] | None:
    """A write's card shows every column it set (a rating and its notes), after the table's usual ones."""
    data = arguments.get("data")
    rows = [data] if isinstance(data, dict) else [row for row in data if isinstance(row, dict)] if isinstance(data, list) else []
    set_columns = [column for row in rows for column in row]
    return list(dict.fromkeys([*card_columns(table), *set_columns])) if set_columns else None


def result_warnings(result: Mapping[str, Any]) -> list[str]:
    """A result's `warnings` (a draft's allergen, dislike or exclusion, a write's dislike or exclusion, a meal planned
    where that day has one: each names the line and the rule). A chain of planned calls stops at a call that has them
    (the user may want to choose): the machine reads this list, never the card's wording."""
    warnings = result.get("warnings")
    return [w for w in warnings if isinstance(w, str)] if isinstance(warnings, list) else []


def result_notes(result: Mapping[str, Any]) -> list[str]:
    """A result's `notes`: what the call did not do that the model may offer the user (a line listed for a meal no
    longer planned)."""
    notes = result.get("notes")
    return [note for note in notes if isinstance(note, str)] if isinstance(notes, list) else []


def warning_lines(result: dict[str, Any]) -> list[str]:
    """A result's warnings, whole, for its card, then its `notes` (what the call did not do that the model may: they
    stop no planned call)."""
    warnings = result_warnings(result)
    notes = result_notes(result)
    return ([f"Warnings ({len(warnings)}; tell the user):", *(f"- {w}" for w in warnings)] if warnings else []) \
        + [f"Note: {note}" for note in notes]


DRAFT_READ_BUDGET = 4_000
"""Characters of drafts draft_read's card shows whole (the model asked to read them); past it, each by its size."""


def excluded_lines(result: dict[str, Any]) -> list[str]:
    """The recipes a search's constraints left out, each with why: 'Left out by the constraints (2):' and a line each."""
    excluded = [e for e in result.get("excluded", ()) if isinstance(e, dict)]
    if not excluded:
        return []
    lines = [f"Left out by the constraints ({len(excluded)}):"]
    lines += [f"- {e.get('ref')} {e.get('name')}: {'; '.join(str(r) for r in e.get('reasons', ()))}" for e in excluded[:10]]
    return lines + ([f"+{len(excluded) - 10} more"] if len(excluded) > 10 else [])


def removal_lines(result: dict[str, Any]) -> list[str]:
    """What a removal touched beyond its own rows: the rows deleted with them and the rows left pointing at nothing;
    what an undone removal linked again."""
    lines = []
    cascaded = [c for c in result.get("cascaded", ()) if isinstance(c, dict)]
    if cascaded:
        lines.append("Deleted with them: " + ", ".join(f"{c.get('count')} {c.get('table')}" for c in cascaded) + ".")
    unlinked = [u for u in result.get("unlinked", ()) if isinstance(u, dict)]
    if unlinked:
        lines.append(f"Left without what they pointed at ({len(unlinked)}; tell the user):")
        lines += [f"- {u.get('ref')} {u.get('label')}: {unlinked_words(u)}" for u in unlinked[:10]]
        lines += [f"+{len(unlinked) - 10} more"] if len(unlinked) > 10 else []
    relinked = [r for r in result.get("relinked", ()) if isinstance(r, dict)]
    if relinked:
        lines.append(f"Pointing at what was restored again ({len(relinked)}; tell the user):")
        lines += [f"- {r.get('ref')} {r.get('label')}: {r.get('column')} is {r.get('now') or 'set'} again" for r in relinked[:10]]
        lines += [f"+{len(relinked) - 10} more"] if len(relinked) > 10 else []
    return lines


def unlinked_words(entry: dict[str, Any]) -> str:
    """'recipe_id is now empty (was recipe_3)': what happened to one unlinked row."""
    column = str(entry.get("column"))
    was = str(entry.get("was") or "")
    if column == "source":
        return f"its source still names {was or 'the removed row'}"
    if column == "notes":
        return f"its notes name {was or 'the removed recipe'}: they may be stale"
    return f"{column} is now empty" + (f" (was {was})" if was else "")


_SUBDOMAIN_BY_PREFIX: tuple[tuple[str, Subdomain], ...] = (("meal_", "meal_plans"), ("shopping_", "shopping"), ("constraints_", "preferences"))
_STEP_SUBDOMAINS: dict[str, Subdomain] = {area: area for area in get_args(Subdomain)}


def subdomain_of(tool: str, arguments: Mapping[str, Any]) -> Subdomain:
    """The area a call reads or writes, for a step made of it (quick mode's): a db_* call's table's, else the
    tool's by its name (recipes when no other area fits)."""
    table = TABLES.get(str(arguments.get("table", "")))
    if table is not None and table.subdomain in _STEP_SUBDOMAINS:
        return _STEP_SUBDOMAINS[table.subdomain]
    return next((area for prefix, area in _SUBDOMAIN_BY_PREFIX if tool.startswith(prefix)), "recipes")
