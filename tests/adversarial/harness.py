"""Driving one app through the real MCP client: calls, resource reads and prompts as outcomes,
a snapshot of every kitchen table, and the session state the bad-input cases refer to."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from mcp import Client, MCPError
from stored_ids import ids_shown

from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.server.dispatch import ERROR_META
from alfred_mcp.server.mcp_server import AlfredServer

from .corpus import DELETED, DRAFT_ITEMS, THINK, UNDERSTAND, PromptGet, ResourceRead, ToolCall

SESSION_RESOURCES = ("working-set", "constraints", "narratives", "conversation", "decisions")
PROMPTS = {"understand": {}, "think": {}, "act": {"step_type": "read"}, "reply": {}}
CLARIFY = {"needs_clarification": True, "clarification_questions": ["Which one do you mean?"]}
"""What the scripted model answers every Understand with: the chat turn ends asking a question."""


@dataclass
class Outcome:
    """What the client saw: a result, a tool error (its `_meta` fields) or a protocol error."""

    ok: bool
    text: str
    fields: dict[str, Any] = field(default_factory=dict)
    structured: Any = None

    @property
    def internal(self) -> bool:
        return self.fields.get("code") in ("internal_error", -32603) or "Internal" in self.text

    def leaked(self, ids: set[str]) -> list[str]:
        """The database ids of `ids` (read from the database: `db_ids`) that came back; text people typed is no leak."""
        return ids_shown([self.text, self.fields, self.structured], ids)


@dataclass
class SetupState:
    """What setup left behind for the cases to refer to."""

    deleted_recipe: str

    def resolve(self, request: Any) -> Any:
        """The request with the corpus's placeholders replaced by this session's refs."""
        return _substitute(request, {DELETED["recipe"]: self.deleted_recipe})


def _substitute(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        for placeholder, real in mapping.items():
            value = value.replace(placeholder, real)
        return value
    if isinstance(value, dict):
        return {key: _substitute(item, mapping) for key, item in value.items()}
    if isinstance(value, list):
        return [_substitute(item, mapping) for item in value]
    if isinstance(value, (ToolCall, ResourceRead, PromptGet)):
        fields = {name: _substitute(getattr(value, name), mapping) for name in ("args", "uri") if hasattr(value, name)}
        return replace(value, **fields)
    return value


async def ok(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    outcome = await call(client, tool, arguments)
    assert outcome.ok, f"setup {tool}: {outcome.text}"
    return outcome.structured


async def set_up(client: Client) -> SetupState:
    """Refs for every table, a deleted recipe, drafts (pending, discarded), an open batch, a completable one,
    a cooked meal and a finished agent turn."""
    for table in ("recipes", "recipe_ingredients", "inventory", "shopping_list", "meal_plans", "tasks", "preferences",
                  "cooking_log", "ingredients"):
        await ok(client, "db_read", {"table": table, "limit": 50})
    doomed = (await ok(client, "db_create", {"table": "recipes", "data": {"name": "Doomed Soup"}}))["rows"][0]["id"]
    await ok(client, "db_delete", {"table": "recipes", "filters": [{"field": "id", "op": "eq", "value": doomed}]})
    await ok(client, "draft_create", {"entity_type": "recipe", "items": [DRAFT_ITEMS["recipe"], DRAFT_ITEMS["recipe"]]})
    await ok(client, "draft_discard", {"refs": ["gen_recipe_2"]})
    await ok(client, "draft_create", {"entity_type": "meal", "items": [DRAFT_ITEMS["meal"]]})
    await ok(client, "batch_open", {"refs": ["gen_recipe_1"]})
    await ok(client, "batch_open", {"refs": ["gen_meal_1"]})
    await ok(client, "batch_skip", {"batch": "batch_2", "refs": ["gen_meal_1"], "reason": "not this week"})
    await ok(client, "db_create", {"table": "cooking_log", "data": {"recipe_id": "recipe_1", "rating": 4}})
    await ok(client, "turn_start", {"message": "hello"})
    await ok(client, "turn_abandon", {"reason": "setting up"})
    return SetupState(deleted_recipe=doomed)


STAGE_OUTPUTS = [("understand", UNDERSTAND), ("think", THINK)]


async def reach_stage(client: Client, stage: str) -> None:
    """Abandon any turn in progress; unless `stage` is 'none', start a turn and advance it to `stage`."""
    abandoned = await call(client, "turn_abandon", {})
    assert not abandoned.internal, f"turn_abandon failed: {abandoned.text}"
    if stage == "none":
        return
    await ok(client, "turn_start", {"message": "plan a cod dinner"})
    for role, output in STAGE_OUTPUTS + [("act", {"action": "step_complete", "result_summary": "done"})]:
        if role == stage:
            return
        await ok(client, "turn_submit", {"role": role, "output": output})


def scripted_model() -> ScriptedLLM:
    """A server-side model for `chat`: every turn ends at Understand with a clarifying question."""
    return ScriptedLLM({"understand": [CLARIFY] * 500})


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> Outcome:
    result = await client.call_tool(tool, arguments)
    text = "".join(block.text for block in result.content if block.type == "text")
    meta = result.meta or {}
    if result.is_error:
        return Outcome(False, text, dict(meta.get(ERROR_META) or {"code": "no_fields"}))
    return Outcome(True, text, structured=result.structured_content)


def has_non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(has_non_finite(item) for item in value.values())
    if isinstance(value, list):
        return any(has_non_finite(item) for item in value)
    return False


async def call_in_process(server: AlfredServer, tool: str, arguments: dict[str, Any]) -> Outcome:
    """The server's own call path with arguments as a JSON parser hands them over.

    The SDK client serializes Infinity and NaN as null, so a client that sends `Infinity`, `NaN`
    or `1e400` (which Python's parser reads as inf) is reproduced here, below the wire;
    tests/adversarial/test_wire.py shows that the real stdio transport delivers exactly these floats.
    """
    result = await server.call_tool(tool, arguments)
    text = "".join(block.text for block in result.content if block.type == "text")
    meta = result.meta or {}
    if result.is_error:
        return Outcome(False, text, dict(meta.get(ERROR_META) or {"code": "no_fields"}))
    return Outcome(True, text, structured=result.structured_content)


async def read(client: Client, uri: str) -> Outcome:
    try:
        result = await client.read_resource(uri)
    except MCPError as error:
        return Outcome(False, error.error.message, {"code": error.error.code, "data": error.error.data})
    return Outcome(True, "".join(getattr(item, "text", "") for item in result.contents))


async def prompt(client: Client, name: str, arguments: dict[str, str]) -> Outcome:
    try:
        result = await client.get_prompt(name, arguments)
    except MCPError as error:
        return Outcome(False, error.error.message, {"code": error.error.code, "data": error.error.data})
    return Outcome(True, "".join(getattr(m.content, "text", "") for m in result.messages))


class KitchenSnapshot:
    """Every row of every kitchen table (the shared catalog included), read straight from the database.

    Read through a connection of its own, so it sees what was committed, exactly as stored; rows
    as canonical JSON, sorted, so two snapshots are equal when no table changed. A SQLite row's JSON is
    kept by its values: most rows stand unchanged from one snapshot to the next.
    """

    def __init__(self, db: str) -> None:
        self._postgres = db.startswith("postgresql://")
        self._as_json: dict[tuple[str, Any], str] = {}
        if self._postgres:
            import psycopg

            self._pg = psycopg.connect(db, autocommit=True)
            parts = ", ".join(f"'{name}', (SELECT coalesce(json_agg(row_to_json(t)::text), '[]') FROM \"{name}\" t)" for name in TABLES)
            self._query = f"SELECT json_build_object({parts})"
            # each table's rows hashed where they are: the rows are read only when a hash moved
            hashes = ", ".join(f"(SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) FROM \"{name}\" t)" for name in TABLES)
            self._hash_query = f"SELECT ARRAY[{hashes}]"
            self._last: tuple[list[str], dict[str, list[str]]] | None = None
        else:
            self._lite = sqlite3.connect(f"file:{db}?mode=ro", uri=True)

    def take(self) -> dict[str, list[str]]:
        if self._postgres:
            hashed = self._pg.execute(self._hash_query).fetchone()
            assert hashed is not None
            if self._last is not None and self._last[0] == hashed[0]:
                return self._last[1]
            row = self._pg.execute(self._query).fetchone()
            assert row is not None
            tables = {name: self._canonical(name, texts, json.loads) for name, texts in row[0].items()}
            self._last = (hashed[0], tables)
            return tables
        tables = {}
        for name in TABLES:
            cursor = self._lite.execute(f'SELECT * FROM "{name}"')
            columns = [column[0] for column in cursor.description]
            tables[name] = self._canonical(name, cursor.fetchall(), lambda values, columns=columns: dict(zip(columns, values, strict=True)))
        return tables

    def _canonical(self, table: str, rows: list[Any], as_dict: Callable[[Any], dict[str, Any]]) -> list[str]:
        """The rows' canonical JSON, sorted; each distinct row (as read: its values, or its JSON text) turned once."""
        found = []
        for row in rows:
            text = self._as_json.get((table, row))
            if text is None:
                text = self._as_json[(table, row)] = json.dumps(as_dict(row), sort_keys=True, default=str)
            found.append(text)
        return sorted(found)

    def close(self) -> None:
        (self._pg if self._postgres else self._lite).close()


def _id_columns(name: str) -> set[str]:
    return {"id", "user_id", *(c.name for c in TABLES[name].fk_columns)}


def db_ids(snapshot: dict[str, list[str]]) -> set[str]:
    """Every id in the snapshot: ids, users and foreign keys of every row (lower case)."""
    found = set()
    for name, rows in snapshot.items():
        columns = _id_columns(name)
        for row in rows:
            found.update(str(value).lower() for key, value in json.loads(row).items() if key in columns and value)
    return found


def ids_in_text(snapshot: dict[str, list[str]], ids: set[str]) -> list[str]:
    """Kitchen values other than ids and foreign keys that hold a database id (none may; UUID-shaped text people
    typed is data and may be stored)."""
    found = []
    for name, rows in snapshot.items():
        columns = _id_columns(name)
        for row in rows:
            values = {key: value for key, value in json.loads(row).items() if key not in columns}
            if ids_shown(values, ids):
                found.append(f"{name}: {row[:120]}")
    return found


async def render_everything(client: Client, ids: set[str]) -> list[str]:
    """Every session resource, the dashboard and every role prompt of the current session: problems found."""
    problems = []
    outcomes = [(uri, await read(client, uri)) for uri in
                [f"alfred://session/current/{kind}" for kind in SESSION_RESOURCES] + ["alfred://kitchen/dashboard"]]
    outcomes += [(f"prompt {name}", await prompt(client, name, args)) for name, args in PROMPTS.items()]
    for where, outcome in outcomes:
        if not outcome.ok:
            problems.append(f"{where} failed: {outcome.text[:200]}")
        elif outcome.leaked(ids):
            problems.append(f"{where} shows a database id")
    return problems
