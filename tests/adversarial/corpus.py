"""The bad-input corpus, generated from the contracts: every tool, resource and prompt.

Each tool has one valid base call (`BASES`, completed by the harness's setup state). Cases are
mutations of it, one value at a time:

- at every string of the arguments: a control character (every Unicode Cc character in turn: C0,
  DEL and C1), a bare UUID (dashed or 32 hex) and a UUID inside text; at every number: Infinity,
  NaN or a number too large to store; at every enum, a value outside it; at every maxLength /
  maxItems of the inputSchema, one more; once per tool, a 1 MB string, arguments nested deeper
  than the door allows, and a key with a control character (in the arguments and in each object);
- domain cases: typed filters (impossible dates, wrong types, enums, refs unknown, deleted or of
  the wrong type) and typed writes for every column of every table, match-all writes, drafts
  naming unknown or deleted rows, curation of unknown refs, unknown drafts and batches;
- every resource template parameter and every prompt argument: raw ids, unknown names, control characters.

Expectations: `refused` (an error naming `field`: its path, or the column or argument it ends
in), `given` (UUID-shaped text: accepted and, when written, stored exactly as given; or refused
naming a field where a ref or a name is expected; never an internal error), `accepted` (a result).
Every case must leave the kitchen as it was, except an accepted write, which must store no
database id in text.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from alfred_mcp.contracts import load_contracts
from alfred_mcp.kitchen.schema import TABLES, Column, Table
from alfred_mcp.kitchen.text import MAX_DEPTH
from alfred_mcp.operations.entities import NAMED_TABLES

UUID = "123e4567-e89b-12d3-a456-426614174000"
HEX32 = "123e4567e89b12d3a456426614174000"
HUGE = "x" * 1_000_000

Expect = Literal["refused", "given", "accepted"]
Path = tuple[str | int, ...]


@dataclass(frozen=True)
class ToolCall:
    tool: str
    args: dict[str, Any]
    stage: str | None = None
    """The agent turn stage the call needs (the harness starts a turn and advances it first)."""


@dataclass(frozen=True)
class ResourceRead:
    uri: str


@dataclass(frozen=True)
class PromptGet:
    name: str
    args: dict[str, str]


Request = ToolCall | ResourceRead | PromptGet


@dataclass(frozen=True)
class Case:
    target: str
    label: str
    request: Request
    expect: Expect
    field: str | None = None
    code: str | None = None
    given: str | None = None
    """UUID-shaped text the case types: when a write is accepted, it is stored exactly so."""


# -- the valid base calls -------------------------------------------------------------------------

RECIPE = {
    "name": "Lemon Cod Traybake", "description": "Cod, lemon and potatoes on one tray.", "cuisine": "mediterranean",
    "difficulty": "easy", "prep_time_minutes": 15, "cook_time_minutes": 25, "servings": 2,
    "ingredients": [{"name": "cod fillet", "quantity": 2, "unit": "fillet", "notes": "skinless"},
                    {"name": "lemon", "quantity": 1, "unit": "piece"}],
    "instructions": ["Heat the oven to 200C.", "Roast everything for 25 minutes."],
    "tags": ["fish", "weeknight"], "notes": "Good with a green salad.", "parent_recipe": "recipe_1",
}
DRAFT_ITEMS: dict[str, dict[str, Any]] = {
    "recipe": RECIPE,
    "meal": {"date": "2026-02-01", "meal_type": "dinner", "recipe": "recipe_1", "notes": "guests", "servings": 4},
    "task": {"title": "Thaw the cod", "due_date": "2026-02-01", "category": "prep", "recipe": "recipe_1", "meal_plan": "meal_1"},
    "shop": {"name": "lemons", "quantity": 3, "unit": "piece", "category": "produce", "notes": "unwaxed", "source": "Traybake"},
    "inv": {"name": "rice", "quantity": 2, "unit": "kg", "location": "pantry", "category": "grains", "notes": "basmati"},
}
UNDERSTAND = {
    "referenced_refs": ["recipe_1"],
    "curation": {"retain_active": [{"ref": "recipe_1", "reason": "the dish the user is planning"}],
                 "curation_summary": "keep the curry in view"},
    "constraint_snapshot": {"new_constraints": [{"type": "ingredient_required", "field": "protein", "value": "cod"}],
                            "goal_update": "a cod dinner", "source_phrases": ["with cod"]},
    "processed_message": "plan a cod dinner",
}
THINK = {"goal": "find a cod dinner", "decision": "plan_direct",
         "steps": [{"description": "read the cod recipes", "step_type": "read", "subdomain": "recipes"}]}
ACT_TOOL = {"action": "tool_call", "tool": "db_read",
            "arguments": {"table": "recipes", "filters": [{"field": "name", "op": "ilike", "value": "%cod%"}], "limit": 3}}
ACT_DONE = {"action": "step_complete", "result_summary": "found the cod recipes", "note_for_next_step": "offer the first one"}
REPLY = {"response": "Here are the cod recipes I found."}
IMPORTED = json.dumps({"@type": "Recipe", "name": "Pasted Lentil Soup", "recipeIngredient": ["1 cup lentils", "2 cups water"],
                       "recipeInstructions": ["Simmer for 20 minutes."]})
"""A recipe as a client pastes it into recipes_import: JSON-LD text."""
ROLE_STAGES = {"understand": "understand", "think": "think", "act": "act", "reply": "reply"}

BASES: dict[str, list[ToolCall]] = {
    "batch_complete": [ToolCall("batch_complete", {"batch": "batch_2", "session": "session_1"})],
    "batch_open": [ToolCall("batch_open", {"refs": ["gen_recipe_1"], "policy": "partial", "session": "session_1"})],
    "batch_skip": [ToolCall("batch_skip", {"batch": "batch_1", "refs": ["gen_recipe_1"], "reason": "not wanted", "session": "session_1"})],
    "batch_status": [ToolCall("batch_status", {"batch": "batch_1", "session": "session_1"})],
    "chat": [ToolCall("chat", {"message": "what can I cook tonight?", "model": "configured", "session": "session_1"})],
    "constraints_read": [ToolCall("constraints_read", {"session": "session_1"})],
    "db_create": [ToolCall("db_create", {"table": "shopping_list", "data": {
        "name": "oat milk", "quantity": 2, "unit": "carton", "category": "dairy", "notes": "the barista one"}})],
    "db_delete": [ToolCall("db_delete", {"table": "tasks", "filters": [{"field": "title", "op": "eq", "value": "no such task"}]})],
    "db_read": [ToolCall("db_read", {
        "table": "recipes", "filters": [{"field": "name", "op": "ilike", "value": "%cod%"}],
        "or_filters": [{"field": "cuisine", "op": "eq", "value": "thai"}],
        "columns": ["name", "cuisine"], "order_by": [{"field": "name", "direction": "asc"}], "limit": 5})],
    "db_update": [ToolCall("db_update", {"table": "inventory", "filters": [{"field": "id", "op": "eq", "value": "inv_1"}],
                                         "data": {"notes": "checked", "quantity": 1.5}})],
    "describe_table": [ToolCall("describe_table", {"table": "recipes"})],
    "draft_create": [ToolCall("draft_create", {"entity_type": kind, "items": [item], "session": "session_1"})
                     for kind, item in DRAFT_ITEMS.items()],
    "draft_discard": [ToolCall("draft_discard", {"refs": ["gen_meal_1"], "session": "session_1"})],
    "draft_read": [ToolCall("draft_read", {"refs": ["gen_recipe_1"], "include_done": True, "session": "session_1"})],
    "draft_revise": [ToolCall("draft_revise", {"ref": "gen_recipe_1", "patch": {"description": "Quick and bright.", "notes": "zest"},
                                               "session": "session_1"})],
    "draft_save": [ToolCall("draft_save", {"refs": ["gen_recipe_1"], "batch": "batch_1", "policy": "partial", "session": "session_1"})],
    "recipes_makeable": [ToolCall("recipes_makeable", {"min_coverage": 0.5, "honor_constraints": True, "limit": 5, "session": "session_1"})],
    "recipes_search": [ToolCall("recipes_search", {"category": "fish", "ingredient": "cod", "cuisine": "thai", "max_minutes": 45,
                                                   "equipment": "oven", "honor_constraints": False, "limit": 5, "session": "session_1"})],
    "session_start": [ToolCall("session_start", {})],
    "show_working_set": [ToolCall("show_working_set", {"entity_type": "recipe", "include_deleted": True, "session": "session_1"})],
    "turn_abandon": [ToolCall("turn_abandon", {"reason": "the user left", "session": "session_1"}, stage="understand")],
    "turn_begin": [ToolCall("turn_begin", {"message": "next question", "session": "session_1"})],
    "turn_context": [ToolCall("turn_context", {"role": "understand", "session": "session_1"}, stage="understand")],
    "turn_reply": [ToolCall("turn_reply", {"response": "Here you go.", "tone": "warm", "user_expressed": "wants cod",
                                           "next_step": "pick one", "session": "session_1"})],
    "turn_start": [ToolCall("turn_start", {"message": "plan a cod dinner", "session": "session_1"}, stage="none")],
    "turn_status": [ToolCall("turn_status", {"turn": 1, "session": "session_1"})],
    "turn_submit": [ToolCall("turn_submit", {"role": role, "output": output, "session": "session_1"}, stage=ROLE_STAGES[role])
                    for role, output in (("understand", UNDERSTAND), ("think", THINK), ("act", ACT_TOOL), ("act", ACT_DONE),
                                         ("reply", REPLY))],
    "entity_resolve": [ToolCall("entity_resolve", {"text": "the lemon cod one", "entity_type": "recipe", "session": "session_1"})],
    "kitchen_undo": [ToolCall("kitchen_undo", {"session": "session_1"})],
    "meal_cooked": [ToolCall("meal_cooked", {"meal": "meal_1", "servings": 2, "session": "session_1"})],
    "meal_plan_show": [ToolCall("meal_plan_show", {"from": "2026-01-12", "to": "2026-01-18", "session": "session_1"})],
    "recipe_show": [ToolCall("recipe_show", {"recipe": "recipe_1", "session": "session_1"})],
    "recipes_export": [ToolCall("recipes_export", {"recipe": "recipe_1", "format": "markdown", "session": "session_1"})],
    "recipes_import": [ToolCall("recipes_import", {"source": IMPORTED, "session": "session_1"})],
    "recipes_scale": [ToolCall("recipes_scale", {"recipe": "recipe_1", "servings": 4, "session": "session_1"})],
    "shopping_list_check": [ToolCall("shopping_list_check", {"items": ["shop_1"], "bought": True, "session": "session_1"})],
    "shopping_list_from": [ToolCall("shopping_list_from", {"recipes": ["recipe_1"], "session": "session_1"}),
                           ToolCall("shopping_list_from", {"meal_plans": {"from": "2026-01-12", "to": "2026-01-14"}, "session": "session_1"})],
    "shopping_list_show": [ToolCall("shopping_list_show", {"session": "session_1"})],
    "understanding_submit": [ToolCall("understanding_submit", {
        "message": "something with the curry", "referenced_refs": ["recipe_1"],
        "curation": UNDERSTAND["curation"], "constraint_snapshot": UNDERSTAND["constraint_snapshot"], "session": "session_1"})],
}
WRITES = frozenset({"db_create", "db_update", "db_delete", "draft_save", "chat", "turn_submit", "kitchen_undo", "meal_cooked",
                    "shopping_list_check", "shopping_list_from"})
"""Tools whose accepted calls may change the kitchen (never with raw-id text)."""


def tool_cases(tool: str) -> list[Case]:
    """Every case of one tool: generic mutations of each base call, then the tool's domain cases."""
    contract = load_contracts()[tool]
    cases: list[Case] = []
    for base in BASES[tool]:
        cases += _generic(base, contract.input_schema)
    cases += _DOMAIN.get(tool, lambda: [])()
    return _unique(cases)


def _unique(cases: list[Case]) -> list[Case]:
    seen: dict[str, Case] = {}
    for case in cases:
        seen.setdefault(case.label, case)
    return list(seen.values())


# -- generic mutations ---------------------------------------------------------------------------


def _generic(base: ToolCall, schema: dict[str, Any]) -> list[Case]:
    cases = [Case(base.tool, f"{_tag(base)} base", base, "accepted")]
    huge_done = False
    for index, (path, value) in enumerate(_leaves(base.args)):
        where = format_path(path)
        if isinstance(value, str):
            cases += _string_cases(base, path, where, value, index)
            if not huge_done and _schema_at(schema, path) is not None:
                cases.append(_case(base, path, "huge", HUGE, "refused"))
                huge_done = True
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            bad = [math.inf, -math.inf, math.nan][index % 3]
            cases.append(_case(base, path, "non-finite", bad, "refused"))
            if isinstance(value, int):
                cases.append(_case(base, path, "too-big", 2**70, "refused"))
    for path, rule in _schema_rules(base.args, schema):
        cases.append(_rule_case(base, path, rule))
    cases.append(Case(base.tool, f"{_tag(base)} unknown argument", ToolCall(base.tool, {**base.args, "colour": "red"}),
                      "refused", "colour"))
    return cases + _door_cases(base)


CONTROLS = [chr(code) for code in (*range(0x20), 0x7F, *range(0x80, 0xA0)) if chr(code) not in "\t\n\r"]
"""Every Unicode control character (category Cc) a text may not hold: C0 but tab and line breaks, DEL, C1."""


def _string_cases(base: ToolCall, path: Path, where: str, value: str, index: int) -> list[Case]:
    raw = UUID if index % 2 == 0 else HEX32
    control = CONTROLS[(len(base.tool) * 7 + index) % len(CONTROLS)]
    return [
        _case(base, path, f"control-character U+{ord(control):04X}", value[:1] + control + value[1:], "refused"),
        _case(base, path, "raw-id", raw, "given", given=raw),
        _case(base, path, "raw-id-in-text", f"{value} {raw}", "given", given=raw),
    ]


def _case(base: ToolCall, path: Path, kind: str, value: Any, expect: Expect, *, code: str | None = None,
          given: str | None = None) -> Case:
    where = format_path(path)
    label = f"{_tag(base)} {where} {kind}"
    stage = None if expect == "refused" else base.stage  # refused at the door, whatever the turn's stage
    return Case(base.tool, label, ToolCall(base.tool, replace_at(base.args, path, value), stage), expect, where, code, given)


def _nesting(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


def _door_cases(base: ToolCall) -> list[Case]:
    """Once per base call: arguments nested past the door's depth (in the first argument, and in an object the
    call holds), and a key with a control character at the top and in the first object argument."""
    tag = _tag(base)
    first = next(iter(base.args), "session")
    cases = [Case(base.tool, f"{tag} {first} nested too deep", ToolCall(base.tool, {**base.args, first: _nesting(MAX_DEPTH + 8)}),
                  "refused", first, "invalid_input"),
             Case(base.tool, f"{tag} key with a control character", ToolCall(base.tool, {**base.args, "col\x85our": "red"}),
                  "refused", "col\\u0085our", "invalid_input")]
    for name, value in base.args.items():
        if isinstance(value, dict):
            control = CONTROLS[len(name) % len(CONTROLS)]
            key = f"ke{control}y"
            cases.append(Case(base.tool, f"{tag} {name} key with U+{ord(control):04X}",
                              ToolCall(base.tool, {**base.args, name: {**value, key: "x"}}), "refused",
                              f"{name}.ke\\u{ord(control):04x}y", "invalid_input"))
            break
    return cases


def _tag(base: ToolCall) -> str:
    for key in ("table", "entity_type", "role"):
        if key in base.args:
            output = base.args.get("output", {}) if key == "role" else {}
            extra = f"/{output['action']}" if "action" in output else ""
            return f"{base.tool}[{base.args[key]}{extra}]"
    return base.tool


def _leaves(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    else:
        yield path, value


def replace_at(value: Any, path: Path, new: Any) -> Any:
    out = copy.deepcopy(value)
    target = out
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = new
    return out


def format_path(path: Path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


def _schema_at(schema: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """The inputSchema of the value at `path`, when the contract describes it (not inside free objects)."""
    node: dict[str, Any] | None = schema
    for part in path:
        if node is None:
            return None
        if isinstance(part, int):
            node = node.get("items") if isinstance(node.get("items"), dict) else None
        else:
            node = node.get("properties", {}).get(part)
        if node is not None and "$ref" in node:
            node = _local_def(schema, node["$ref"])
    return node


def _local_def(schema: dict[str, Any], ref: str) -> dict[str, Any] | None:
    """A '#/$defs/Name' reference resolved in the contract's own $defs (None for anything else)."""
    prefix = "#/$defs/"
    return schema.get("$defs", {}).get(ref[len(prefix):]) if ref.startswith(prefix) else None


def _schema_rules(args: dict[str, Any], schema: dict[str, Any]) -> Iterator[tuple[Path, tuple[str, Any]]]:
    """(path, (rule, limit)) of every maxLength, maxItems and enum the contract puts on a value the base sets."""
    for path, _ in _leaves(args):
        for depth in range(1, len(path) + 1):
            sub = _schema_at(schema, path[:depth])
            if sub is None:
                break
            for rule in ("maxLength", "maxItems", "enum"):
                if rule in sub:
                    yield path[:depth], (rule, sub[rule])


def _rule_case(base: ToolCall, path: Path, rule: tuple[str, Any]) -> Case:
    name, limit = rule
    current = _at(base.args, path)
    if name == "maxLength":
        return _case(base, path, "too-long", "y" * (limit + 1), "refused")
    if name == "maxItems":
        items = current if isinstance(current, list) and current else ["x"]
        return _case(base, path, "too-many", (items * (limit + 1))[: limit + 1], "refused")
    return _case(base, path, "not-in-enum", "nope", "refused")


def _at(value: Any, path: Path) -> Any:
    for part in path:
        value = value[part]
    return value


# -- domain cases ------------------------------------------------------------------------------

DELETED = {"recipe": "recipe_deleted"}
"""Placeholders the harness replaces with the refs it deleted during setup."""
USER_TABLES = [table for table in TABLES.values() if table.user_owned]


def _bad_filter_values(table: Table, column: Column) -> list[tuple[str, str, Any, str, str | None]]:
    """(kind, op, value, expected field, expected code) of values a filter on `column` must refuse."""
    name = column.name
    bad: list[tuple[str, str, Any, str, str | None]] = []
    if column.type == "date":
        bad += [("impossible-month", "lt", "2026-13-45", name, "invalid_filter"), ("impossible-day", "eq", "2026-02-30", name, "invalid_filter"),
                ("not-a-date", "lt", "not-a-date", name, "invalid_filter"), ("number", "eq", 20260101, name, "invalid_filter")]
    elif column.type == "timestamp":
        bad += [("not-a-timestamp", "gt", "yesterday", name, "invalid_filter")]
    elif column.type in ("int", "numeric"):
        bad += [("text", "gt", "four", name, "invalid_filter"), ("boolean", "eq", True, name, "invalid_filter")]
        if column.type == "int":
            bad += [("fraction", "eq", 2.5, name, "invalid_filter")]
    elif column.type == "bool":
        bad += [("text", "eq", "yes", name, "invalid_filter"), ("number", "eq", 1, name, "invalid_filter")]
    elif column.type == "text":
        bad += [("number", "eq", 7, name, "invalid_filter"), ("too-long", "eq", "z" * 5000, "filters[0].value", None)]
    elif column.type == "text[]":
        bad += [("numbers", "contains", [1], name, "invalid_filter")]
    if column.enum is not None:
        bad += [("not-in-enum", "in" if column.type != "text[]" else "contains", ["nope"], name, "invalid_filter")]
    if column.type == "uuid" and (column.fk is not None or name == "id"):
        target = TABLES[column.fk.table] if column.fk else table
        prefix = target.entity_type
        other = "recipe" if prefix != "recipe" else "inv"
        bad += [("raw-id", "eq", UUID, name, "invalid_ref"), ("raw-id-hex", "in", [HEX32], name, "invalid_ref"),
                ("unknown-ref", "eq", f"{prefix}_999", name, "unknown_ref"), ("wrong-type-ref", "eq", f"{other}_1", name, "invalid_ref"),
                ("name-not-ref", "in", ["thai curry"], name, "invalid_ref")]
        if name == "id" and table in NAMED_TABLES:  # a name where one ref is asked: no row has it (operations/ref_names.py)
            bad += [("name-of-no-row", "eq", "quince souffle nobody made", "filters[0].value", "unmatched_name")]
        else:
            bad += [("name-not-ref", "eq", "thai curry", name, "invalid_ref")]
        if prefix == "recipe":
            bad += [("deleted-ref", "eq", DELETED["recipe"], name, "deleted_ref")]
    return bad


def column_classes(table: Table, columns: tuple[Column, ...]) -> list[Column]:
    """One column of each kind a table has (type, enum or not, foreign key target): the same check serves the rest."""
    chosen: dict[tuple[Any, ...], Column] = {}
    for column in columns:
        if column.name == "user_id":
            continue
        kind = (column.type, column.enum is not None, column.fk.table if column.fk else column.name == "id")
        chosen.setdefault(kind, column)
    return list(chosen.values())


def _filter_cases(tool: str, tables: list[Table], extra: dict[str, Any]) -> list[Case]:
    cases = []
    for table in tables:
        for column in column_classes(table, table.columns):
            for kind, op, value, field, code in _bad_filter_values(table, column):
                args = {"table": table.name, "filters": [{"field": column.name, "op": op, "value": value}], **extra}
                cases.append(Case(tool, f"{tool}[{table.name}] filter {column.name} {kind}", ToolCall(tool, args), "refused", field, code))
    return cases


def _match_all_cases(tool: str) -> list[Case]:
    cases = []
    for table in USER_TABLES:
        extra = {"data": _VALID_ROWS[table.name]} if tool == "db_update" else {}
        text = next((c.name for c in table.columns if c.type == "text" and c.enum is None and not c.nullable), None)
        shapes = [("id-not-null", {"field": "id", "op": "is_null", "value": False})]
        if table.has_column("created_at"):
            shapes.append(("created-before-2100", {"field": "created_at", "op": "lt", "value": "2100-01-01T00:00:00Z"}))
        if text is not None:
            shapes.append(("ilike-percent", {"field": text, "op": "ilike", "value": "%"}))
        for kind, clause in shapes:
            args = {"table": table.name, "filters": [clause], **extra}
            cases.append(Case(tool, f"{tool}[{table.name}] match-all {kind}", ToolCall(tool, args), "refused", "filters", "unscoped_write"))
    return cases


def _bad_write_values(column: Column) -> list[tuple[str, Any, str, str | None]]:
    """(kind, value, expected field, expected code) a write of `column` must refuse."""
    name = column.name
    bad: list[tuple[str, Any, str, str | None]] = []
    if column.type == "date":
        bad += [("impossible-day", "2026-02-30", name, "invalid_payload"), ("not-a-date", "soon", name, "invalid_payload")]
    elif column.type == "timestamp":
        bad += [("not-a-timestamp", "yesterday", name, "invalid_payload")]
    elif column.type in ("int", "numeric"):
        bad += [("text", "four", name, "invalid_payload"), ("infinity", math.inf, f"data.{name}", None),
                ("nan", math.nan, f"data.{name}", None)]
        if column.minimum is not None:
            bad += [("below-minimum", column.minimum - 1, name, "invalid_payload")]
    elif column.type == "bool":
        bad += [("text", "yes", name, "invalid_payload")]
    elif column.type == "text":
        bad += [("number", 7, name, "invalid_payload"), ("control-character", "a\x00b", f"data.{name}", None)]
    elif column.type == "text[]":
        bad += [("not-a-list", "fish", name, "invalid_payload")]
    if column.enum is not None:
        bad += [("not-in-enum", ["nope"] if column.type == "text[]" else "nope", name, "invalid_payload")]
    if column.fk is not None:
        prefix = TABLES[column.fk.table].entity_type
        bad += [("raw-id", UUID, f"data.{name}", "invalid_ref"), ("unknown-ref", f"{prefix}_999", name, "unknown_ref"),
                ("wrong-type-ref", "recipe_1" if prefix != "recipe" else "inv_1", name, None)]
        if prefix == "recipe":
            bad += [("deleted-ref", DELETED["recipe"], name, "deleted_ref")]
    return bad


_VALID_ROWS: dict[str, dict[str, Any]] = {
    "recipes": {"name": "Plain Rice"}, "recipe_ingredients": {"recipe_id": "recipe_1", "name": "salt", "position": 1},
    "inventory": {"name": "rice", "quantity": 1, "unit": "kg"}, "shopping_list": {"name": "rice"},
    "meal_plans": {"date": "2026-02-01", "meal_type": "dinner"}, "tasks": {"title": "wash up"},
    "preferences": {"cooking_skill_level": "beginner"}, "cooking_log": {"recipe_id": "recipe_1"},
}


def _write_cases(tool: str) -> list[Case]:
    cases = []
    for table in USER_TABLES:
        for column in column_classes(table, table.writable_columns):
            for kind, value, field, code in _bad_write_values(column):
                data = {**_VALID_ROWS[table.name], column.name: value}
                args: dict[str, Any] = {"table": table.name, "data": data}
                if tool == "db_update":
                    args = {"table": table.name, "filters": [{"field": "id", "op": "eq", "value": f"{table.entity_type}_1"}],
                            "data": {column.name: value}}
                cases.append(Case(tool, f"{tool}[{table.name}] data {column.name} {kind}", ToolCall(tool, args), "refused", field, code))
    return cases


def _draft_ref_cases() -> list[Case]:
    cases = []
    for kind, field, prefix in (("recipe", "parent_recipe", "recipe"), ("meal", "recipe", "recipe"), ("task", "recipe", "recipe"),
                                ("task", "meal_plan", "meal")):
        for label, ref, code in (("unknown-ref", f"{prefix}_999", "unknown_ref"), ("unknown-draft", f"gen_{prefix}_99", "unknown_ref"),
                                 ("wrong-type-ref", "inv_1", "invalid_payload")):
            items = [{**DRAFT_ITEMS[kind], field: ref}]
            cases.append(Case("draft_create", f"draft_create[{kind}] {field} {label}",
                              ToolCall("draft_create", {"entity_type": kind, "items": items}), "refused", field, code))
        if prefix == "recipe":
            items = [DRAFT_ITEMS[kind], {**DRAFT_ITEMS[kind], field: DELETED["recipe"]}]
            cases.append(Case("draft_create", f"draft_create[{kind}] {field} deleted-ref in item 2",
                              ToolCall("draft_create", {"entity_type": kind, "items": items}), "refused", f"items[1].{field}", "deleted_ref"))
            items = [{**DRAFT_ITEMS[kind], field: "gen_recipe_2"}]
            cases.append(Case("draft_create", f"draft_create[{kind}] {field} discarded-draft",
                              ToolCall("draft_create", {"entity_type": kind, "items": items}), "refused", field, "deleted_ref"))
    for kind in ("meal", "task"):
        date_field = "date" if kind == "meal" else "due_date"
        items = [{**DRAFT_ITEMS[kind], date_field: "2026-02-30"}]
        cases.append(Case("draft_create", f"draft_create[{kind}] {date_field} impossible-day",
                          ToolCall("draft_create", {"entity_type": kind, "items": items}), "refused", date_field, "invalid_payload"))
    return cases


def _unknown_draft_cases(tool: str, key: str, many: bool, extra: dict[str, Any]) -> list[Case]:
    cases = []
    for label, ref, code in (("unknown-draft", "gen_recipe_99", "unknown_ref"), ("discarded-draft", "gen_recipe_2", None),
                             ("saved-ref-not-draft", "recipe_1", None)):
        value = [ref] if many else ref
        field = f"{key}[0]" if many else key
        cases.append(Case(tool, f"{tool} {key} {label}", ToolCall(tool, {key: value, **extra}), "refused", field, code))
    return cases


def _batch_cases(tool: str, extra: dict[str, Any]) -> list[Case]:
    return [Case(tool, f"{tool} batch unknown", ToolCall(tool, {"batch": "batch_99", **extra}), "refused", "batch"),
            Case(tool, f"{tool} session unknown", ToolCall(tool, {"batch": "batch_1", "session": "session_99", **extra}), "refused",
                 "session", "unknown_session")]


def _understanding_cases() -> list[Case]:
    base = BASES["understanding_submit"][0].args
    cases = [Case("understanding_submit", "understanding_submit referenced_refs unknown-ref",
                  ToolCall("understanding_submit", {**base, "referenced_refs": ["recipe_1", "recipe_999"]}), "refused", "referenced_refs[1]",
                  "unknown_ref")]
    for key in ("demote", "drop"):
        curation = {**base["curation"], key: ["recipe_1", "recipe_999"]}
        cases.append(Case("understanding_submit", f"understanding_submit curation.{key} unknown-ref",
                          ToolCall("understanding_submit", {**base, "curation": curation}), "refused", f"curation.{key}[1]", "unknown_ref"))
    curation = {**base["curation"], "retain_active": [{"ref": "inv_999", "reason": "x"}]}
    cases.append(Case("understanding_submit", "understanding_submit curation.retain_active unknown-ref",
                      ToolCall("understanding_submit", {**base, "curation": curation}), "refused", "curation.retain_active[0].ref",
                      "unknown_ref"))
    return cases


def _turn_submit_cases() -> list[Case]:
    curation = {**UNDERSTAND["curation"], "drop": ["recipe_999"]}
    outputs = [("referenced-unknown", {**UNDERSTAND, "referenced_refs": ["recipe_999"]}, "output.referenced_refs"),
               ("curation-unknown", {**UNDERSTAND, "curation": curation}, "output.curation.drop[0]")]
    cases = [Case("turn_submit", f"turn_submit[understand] {label}",
                  ToolCall("turn_submit", {"role": "understand", "output": output}, stage="understand"), "refused", field,
                  "role_output_invalid") for label, output, field in outputs]
    long_summary = {**ACT_DONE, "result_summary": "s" * 1000}
    cases.append(Case("turn_submit", "turn_submit[act] result_summary at its limit",
                      ToolCall("turn_submit", {"role": "act", "output": long_summary}, stage="act"), "accepted"))
    return cases


def _date_range_cases(tool: str, base: dict[str, Any], where: tuple[str, ...]) -> list[Case]:
    """Impossible and malformed dates in a date argument (a 'format: date' the schema alone does not check)."""
    cases = []
    for kind, value in (("impossible-day", "2026-02-30"), ("impossible-month", "2026-13-45"), ("not-a-date", "soon")):
        args = replace_at(base, where, value)
        cases.append(Case(tool, f"{tool} {format_path(where)} {kind}", ToolCall(tool, args), "refused", format_path(where)))
    return cases


def _import_cases() -> list[Case]:
    """Sources that used to stall or crash an import: each refused naming `source` (or `offset`), none an internal error."""
    recipe = json.loads(IMPORTED)
    sources = {
        "JSON-LD nested 10,000 deep": ("[" * 10_000 + "]" * 10_000, "source"),
        "objects nested 10,000 deep": ('{"a":' * 10_000 + "1" + "}" * 10_000, "source"),
        "a flat graph of 200,000 entries": ('{"@graph": [' + ",".join(["{}"] * 200_000) + "]}", "source"),
        "a recipe nested in 5,000 sections": (json.dumps({**recipe, "recipeInstructions": "x"})[:-1] + ', "x": '
                                              + '{"itemListElement": [' * 5_000 + "]}" * 5_000 + "}", "source"),
        "not JSON": ('{"@type": "Recipe", "name": ', "source"),
        "a page without a recipe": ("<html><body><div>" * 300 + "</div>" * 300 + "</body></html>", "source"),
        "a missing archive": ("/no/such/folder/recipes.paprikarecipes", "source"),
    }
    cases = [Case("recipes_import", f"recipes_import source {label}", ToolCall("recipes_import", {"source": source}), "refused", field)
             for label, (source, field) in sources.items()]
    escaped = json.dumps({**recipe, "name": "Soup\u0000\u0085", "weird\u0001key": "x"})
    cases += [Case("recipes_import", "recipes_import source escaped control characters", ToolCall("recipes_import", {"source": escaped}),
                   "accepted"),
              Case("recipes_import", "recipes_import offset past the end", ToolCall("recipes_import", {"source": IMPORTED, "offset": 5}),
                   "refused", "offset")]
    return cases


def _recipe_ref_cases(tool: str, extra: dict[str, Any]) -> list[Case]:
    return [Case(tool, f"{tool} recipe {label}", ToolCall(tool, {"recipe": ref, **extra}), "refused", "recipe", code)
            for label, ref, code in (("unknown-ref", "recipe_999", "unknown_ref"), ("deleted-ref", DELETED["recipe"], "deleted_ref"),
                                     ("discarded-draft", "gen_recipe_2", "deleted_ref"))]


_DOMAIN = {
    "db_read": lambda: _filter_cases("db_read", list(TABLES.values()), {}),
    "db_update": lambda: _filter_cases("db_update", USER_TABLES, {"data": {"name": "x"}})[::4] + _match_all_cases("db_update")
    + _write_cases("db_update")[::2],
    "db_delete": lambda: _filter_cases("db_delete", USER_TABLES, {})[::4] + _match_all_cases("db_delete"),
    "db_create": lambda: _write_cases("db_create"),
    "draft_create": _draft_ref_cases,
    "draft_save": lambda: _unknown_draft_cases("draft_save", "refs", True, {}),
    "draft_discard": lambda: _unknown_draft_cases("draft_discard", "refs", True, {}),
    "draft_read": lambda: _unknown_draft_cases("draft_read", "refs", True, {})[:1],
    "draft_revise": lambda: _unknown_draft_cases("draft_revise", "ref", False, {"patch": {"notes": "x"}}),
    "batch_open": lambda: _unknown_draft_cases("batch_open", "refs", True, {}),
    "batch_status": lambda: _batch_cases("batch_status", {}),
    "batch_complete": lambda: _batch_cases("batch_complete", {}),
    "batch_skip": lambda: _batch_cases("batch_skip", {"refs": ["gen_recipe_1"], "reason": "x"}),
    "understanding_submit": _understanding_cases,
    "turn_submit": _turn_submit_cases,
    "meal_plan_show": lambda: _date_range_cases("meal_plan_show", BASES["meal_plan_show"][0].args, ("from",))
    + _date_range_cases("meal_plan_show", BASES["meal_plan_show"][0].args, ("to",)),
    "shopping_list_from": lambda: _date_range_cases("shopping_list_from", BASES["shopping_list_from"][1].args, ("meal_plans", "from"))
    + [Case("shopping_list_from", "shopping_list_from recipes unknown-ref",
            ToolCall("shopping_list_from", {"recipes": ["recipe_1", "recipe_999"]}), "refused", "recipes[1]", "unknown_ref")],
    "recipes_import": _import_cases,
    "recipe_show": lambda: _recipe_ref_cases("recipe_show", {}),
    "recipes_export": lambda: _recipe_ref_cases("recipes_export", {}),
    "recipes_scale": lambda: _recipe_ref_cases("recipes_scale", {"servings": 2}),
    "meal_cooked": lambda: [Case("meal_cooked", "meal_cooked meal unknown-ref", ToolCall("meal_cooked", {"meal": "meal_999"}), "refused",
                                 "meal", "unknown_ref")] + _recipe_ref_cases("meal_cooked", {}),
    "shopping_list_check": lambda: [Case("shopping_list_check", "shopping_list_check items unknown-ref",
                                         ToolCall("shopping_list_check", {"items": ["shop_1", "shop_999"], "bought": True}), "refused",
                                         "items[1]", "unknown_ref")],
}


# -- resources and prompts --------------------------------------------------------------------

RESOURCE_TEMPLATES = {
    "working-set": "alfred://session/{session}/working-set", "constraints": "alfred://session/{session}/constraints",
    "narratives": "alfred://session/{session}/narratives", "conversation": "alfred://session/{session}/conversation",
    "decisions": "alfred://session/{session}/decisions", "ref": "alfred://session/{session}/ref/{ref}",
    "turn": "alfred://session/{session}/turns/{turn}", "batch": "alfred://session/{session}/batches/{batch}",
    "schema": "alfred://kitchen/schema/{table}",
}
STATIC_RESOURCES = {"dashboard": "alfred://kitchen/dashboard", "taxonomy": "alfred://taxonomy"}
_GOOD = {"session": "current", "ref": "recipe_1", "turn": "current", "batch": "batch_1", "table": "recipes"}
_UNKNOWN = {"session": "session_99", "ref": "recipe_999", "turn": "999", "batch": "batch_99", "table": "dishes"}


def resource_cases(name: str) -> list[Case]:
    target = f"resource:{name}"
    if name in STATIC_RESOURCES:
        return [Case(target, f"{name} read", ResourceRead(STATIC_RESOURCES[name]), "accepted")]
    template = RESOURCE_TEMPLATES[name]
    params = [part.split("}")[0] for part in template.split("{")[1:]]
    cases = [Case(target, f"{name} read", ResourceRead(template.format(**_GOOD)), "accepted")]
    for param in params:
        for kind, value in (("raw-id", UUID), ("raw-id-hex", HEX32), ("raw-id-in-name", f"{_GOOD[param]}{UUID}"),
                            ("unknown", _UNKNOWN[param])):
            uri = template.format(**{**_GOOD, param: value})
            cases.append(Case(target, f"{name} {param} {kind}", ResourceRead(uri), "refused", param))
    if name == "ref":
        cases.append(Case(target, "ref deleted-ref", ResourceRead(template.format(**{**_GOOD, "ref": DELETED["recipe"]})), "accepted"))
    return cases


PROMPT_ARGS = {
    "understand": {"message": "something with cod", "session": "current"},
    "think": {"message": "something with cod", "session": "current"},
    "act": {"step_type": "read", "description": "read the cod recipes", "subdomain": "recipes", "step_number": "1",
            "total_steps": "2", "session": "current"},
    "reply": {"session": "current"},
}
_PROMPT_FREE_TEXT = {"message", "description", "subdomain"}


def prompt_cases(name: str) -> list[Case]:
    target = f"prompt:{name}"
    base = PROMPT_ARGS[name]
    cases = [Case(target, f"{name} base", PromptGet(name, base), "accepted"),
             Case(target, f"{name} unknown argument", PromptGet(name, {**base, "colour": "red"}), "refused", "colour")]
    for index, arg in enumerate(base):
        raw = UUID if index % 2 == 0 else HEX32
        control = CONTROLS[(len(name) + index * 5) % len(CONTROLS)]
        expect: Expect = "given" if arg in _PROMPT_FREE_TEXT else "refused"  # free text is data; a name is not an id
        cases += [
            Case(target, f"{name} {arg} raw-id", PromptGet(name, {**base, arg: raw}), expect, arg),
            Case(target, f"{name} {arg} control-character", PromptGet(name, {**base, arg: f"a{control}{base[arg]}"}), "refused", arg),
            Case(target, f"{name} {arg} raw-id-in-text", PromptGet(name, {**base, arg: f"{base[arg]} {raw}"}), expect, arg),
        ]
    if name == "act":
        cases += [Case(target, "act step_type unknown", PromptGet(name, {**base, "step_type": "dance"}), "refused", "step_type"),
                  Case(target, "act step_number not a number", PromptGet(name, {**base, "step_number": "two"}), "refused", "step_number")]
    if "session" in base:
        cases.append(Case(target, f"{name} session unknown", PromptGet(name, {**base, "session": "session_99"}), "refused", "session"))
    return cases


def all_targets() -> list[str]:
    """Every tool, resource and prompt the server offers (a test holds this list to the server's)."""
    return ([*load_contracts()] + [f"resource:{name}" for name in [*RESOURCE_TEMPLATES, *STATIC_RESOURCES]]
            + [f"prompt:{name}" for name in PROMPT_ARGS])


def cases_for(target: str) -> list[Case]:
    if target.startswith("resource:"):
        return resource_cases(target.split(":", 1)[1])
    if target.startswith("prompt:"):
        return prompt_cases(target.split(":", 1)[1])
    return tool_cases(target)
