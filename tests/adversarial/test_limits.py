"""Limits agree end to end: whatever an input schema accepts is stored whole and renders back.

Derived from the schemas a caller is given: every tool's inputSchema, the row schema of the table
a write names, the draft model of a draft's kind, the role output schema a turn_submit is
checked against. In each tool's valid base call (`corpus.BASES`) every free-text string is set to
its maxLength and every list of free text to its maxItems (hypothesis draws the text). The call
must be accepted with no internal error; afterwards every session resource, every role prompt
and the turn's status still render, and each of those values comes back whole somewhere (the
call's result, a resource, a prompt, turn_status, draft_read or a read of the table).
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.contracts import load_contracts
from alfred_mcp.kitchen.jsonschema import row_schema
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.state.constraints import ConstraintSnapshot
from alfred_mcp.state.curation import EntityCuration
from alfred_mcp.state.drafts import DRAFT_KINDS
from alfred_mcp.state.role_outputs import ROLE_OUTPUTS
from tests.e2e.helpers import strings_in

from .conftest import Kitchen
from .corpus import BASES, ToolCall
from .harness import PROMPTS, SESSION_RESOURCES, call, prompt, reach_stage, read, scripted_model

pytestmark = [pytest.mark.anyio, pytest.mark.sqlite_only]

NOT_TEXT = {"ref", "refs", "referenced", "referenced_refs", "demote", "drop", "disambiguation_options", "tool", "table",
            "field", "entity_type", "session", "batch", "role", "columns", "parent_recipe", "recipe", "meal_plan", "type", "source"}
"""Strings that name something (a ref, a table, a column), or a document to parse (an import's source): not free text."""
QUERIES = {"filters", "or_filters", "order_by", "category", "ingredient", "equipment", "cuisine", "text"}
"""Arguments that ask, not tell: at their limit they must be accepted, but nothing of them is stored to show."""
ACT_DECISIONS = {"tool_call": "ToolCallDecision", "step_complete": "StepCompleteDecision"}
TEXT = st.text(alphabet=st.characters(exclude_categories=["Cc", "Cs", "Zl", "Zp"], exclude_characters="0123456789abcdefABCDEF\u00a0"),
               min_size=1)
"""Text a person types; hex digits left out (UUID-shaped text at its limits is test_uuid_text's and test_corpus's)."""


def _schema_for(base: ToolCall) -> dict[str, Any]:
    """The tool's inputSchema, with the model each free object is checked against put in place (the
    published contracts are compact: nested size limits are checked on submission, from these models)."""
    schema = json.loads(json.dumps(load_contracts()[base.tool].input_schema))
    props = schema["properties"]
    if base.tool == "turn_submit":
        props["output"] = ROLE_OUTPUTS[base.args["role"]].model_json_schema()
        action = base.args["output"].get("action")
        if action is not None:  # a bare Act decision: the schema of that decision
            props["output"] = {**props["output"], "$ref": f"#/$defs/{ACT_DECISIONS[action]}"}
    if base.tool == "draft_create":
        props["items"]["items"] = DRAFT_KINDS[base.args["entity_type"]].model_json_schema()
    if base.tool == "draft_revise":  # its ref is a recipe draft: the patch is checked as a recipe draft
        props["patch"] = DRAFT_KINDS["recipe"].model_json_schema()
    if base.tool == "understanding_submit":
        props["curation"] = EntityCuration.model_json_schema()
        props["constraint_snapshot"] = ConstraintSnapshot.model_json_schema()
    if base.tool in ("db_create", "db_update"):
        props["data"] = row_schema(TABLES[base.args["table"]], "create" if base.tool == "db_create" else "update")
    if base.tool == "recipes_search":
        props["category"].pop("maxLength")  # a name from the taxonomy (an unknown one is refused, naming the known ones)
    if base.tool == "db_read":  # a text filter value at its limit (the value's schema is a union of kinds)
        schema["$defs"]["Filter"]["properties"]["value"] = {"type": "string", "maxLength": 2000}
    return schema


class Filler:
    """Walks a base value beside its schema, putting every free-text string at maxLength and list at maxItems."""

    def __init__(self, root: dict[str, Any], draw: Any) -> None:
        self.root, self.draw = root, draw
        self.filled: list[str] = []

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        if "$defs" in schema:
            self.root = {**self.root, "$defs": {**self.root.get("$defs", {}), **schema["$defs"]}}
        while "$ref" in schema:
            node: Any = self.root if schema["$ref"].startswith("#/") else {}
            for part in schema["$ref"][2:].split("/"):
                node = node.get(part, {})
            if "$defs" in schema.get("$ref", "") and not node:
                node = self._defs(schema["$ref"])
            schema = node
        options = [s for s in schema.get("anyOf", []) if s.get("type") != "null"]
        return self.resolve(options[0]) if len(options) == 1 and "type" not in schema else schema

    def _defs(self, ref: str) -> dict[str, Any]:
        return self.root.get("$defs", {}).get(ref.rsplit("/", 1)[-1], {})

    def fill(self, value: Any, schema: dict[str, Any], key: str = "", *, stored: bool = True) -> Any:
        schema = self.resolve(schema)
        if isinstance(value, dict):
            props = schema.get("properties", {})
            if "$defs" in schema:
                self.root = {**self.root, "$defs": {**self.root.get("$defs", {}), **schema["$defs"]}}
            return {k: self.fill(v, props.get(k, {}), k, stored=stored and k not in QUERIES) for k, v in value.items()}
        if isinstance(value, list):
            return self._fill_list(value, schema, key, stored)
        if isinstance(value, str) and self._free_text(schema, key):
            text = self._text(schema["maxLength"])
            if stored:
                self.filled.append(text)
            return text
        return value

    def _fill_list(self, value: list[Any], schema: dict[str, Any], key: str, stored: bool) -> list[Any]:
        item_schema = self.resolve(schema.get("items", {}))
        most = schema.get("maxItems")
        if most is None or key in NOT_TEXT or not value:
            return [self.fill(item, item_schema, key, stored=stored) for item in value]
        if isinstance(value[0], str) and not self._free_text(item_schema, key):
            return value
        if isinstance(value[0], dict) and any(k in NOT_TEXT for k in value[0]):
            return [self.fill(item, item_schema, key, stored=stored) for item in value]
        filled = [self.fill(item, item_schema, key, stored=stored) for item in value]
        return (filled * most)[:most]  # the same values again: each is checked once, whatever the list's length

    def _free_text(self, schema: dict[str, Any], key: str) -> bool:
        """A string-only schema with a length limit (a filter's value, which may be a ref, a number or a list, is not)."""
        return (schema.get("type") == "string" and "maxLength" in schema and "pattern" not in schema and "enum" not in schema
                and key not in NOT_TEXT)

    def _text(self, length: int) -> str:
        core = self.draw(TEXT.filter(str.strip))
        tag = "".join("ghijklmnopqrstuvwxyz"[int(digit) + 5] for digit in f"{len(self.filled):03d}")
        return (tag + core * (length // len(core) + 1))[:length]


def limit_cases() -> list[ToolCall]:
    """Every base call (a new session has no arguments); db_read without its enum filter, which takes no free text."""
    cases = [base for tool in sorted(BASES) for base in BASES[tool] if tool not in ("session_start",)]
    return [ToolCall(b.tool, {k: v for k, v in b.args.items() if k != "or_filters"}, b.stage) if b.tool == "db_read" else b for b in cases]


async def _rendered(client: Client, base: ToolCall) -> list[str]:
    """Everything the session shows after the call: resources, prompts, the turn, drafts, the table."""
    parts = []
    for kind in SESSION_RESOURCES:
        parts.append(await read(client, f"alfred://session/current/{kind}"))
    parts += [await prompt(client, name, args) for name, args in PROMPTS.items()]
    parts.append(await call(client, "turn_status", {}))
    parts.append(await call(client, "draft_read", {"include_done": True}))
    parts.append(await read(client, "alfred://session/current/batches/latest"))
    if "table" in base.args:
        parts.append(await call(client, "db_read", {"table": base.args["table"], "limit": 50, "order_by": [{"field": "id"}]}))
    broken = [p.text[:200] for p in parts if not p.ok and "no agent turn" not in p.text and "batches" not in p.text]
    assert not broken, f"after {base.tool}: {broken}"
    return [text for part in parts for text in strings_in(part.structured if part.structured is not None else _decoded(part.text))]


def _decoded(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


async def _run(kitchen: Kitchen, base: ToolCall, arguments: dict[str, Any], filled: list[str]) -> None:
    app = AlfredApp.from_settings(Settings(db=kitchen.db, seed_demo=False, check_results=True))
    app.llm = scripted_model()
    await app.open()
    try:
        async with Client(build_server(app)) as client:
            if base.stage is not None:
                await reach_stage(client, base.stage)
            outcome = await call(client, base.tool, kitchen.state.resolve(ToolCall(base.tool, arguments)).args)
            assert outcome.ok, f"{base.tool} refused values its schema accepts: {outcome.text[:300]}"
            shown = strings_in(outcome.structured) + await _rendered(client, base)
            if base.tool.startswith("turn_") or base.tool == "chat":
                ended = await call(client, "turn_abandon", {"reason": "limits checked"})
                assert ended.ok or "No turn" in ended.text or "done" in ended.text, f"turn_abandon after {base.tool}: {ended.text[:300]}"
                shown += await _rendered(client, base)
            missing = [text[:40] for text in filled if not any(text in found for found in shown)]
            assert not missing, f"{base.tool}: {len(missing)} of {len(filled)} values at their limit are not shown whole: {missing}"
    finally:
        await app.close()


@pytest.mark.parametrize("base", limit_cases(), ids=lambda b: f"{b.tool}-{'-'.join(str(v) for k, v in b.args.items() if k in ('role', 'entity_type', 'table')) or 'base'}")
def test_every_value_at_its_limit_is_stored_whole_and_renders_back(kitchen: Kitchen, base: ToolCall) -> None:
    @settings(max_examples=1, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large, HealthCheck.large_base_example])
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        schema = _schema_for(base)
        filler = Filler(schema, data.draw)
        arguments = filler.fill(base.args, schema)
        anyio.run(_run, kitchen, base, arguments, filler.filled)

    check()
