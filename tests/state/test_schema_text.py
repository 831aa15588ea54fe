"""A JSON Schema as a typed signature: every field, whether it is required, its allowed values, in fewer characters."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from alfred_mcp.contracts import load_contracts
from alfred_mcp.state.role_outputs import output_schema
from alfred_mcp.state.schema_text import named_enums, schema_text, signature

ROLES = ("understand", "think", "act", "reply")


def objects(schema: Any) -> Iterator[Mapping[str, Any]]:
    """Every object shape with properties inside `schema`."""
    if isinstance(schema, Mapping):
        if isinstance(schema.get("properties"), Mapping):
            yield schema
        for value in schema.values():
            yield from objects(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from objects(item)


def enum_values(schema: Any) -> Iterator[Any]:
    if isinstance(schema, Mapping):
        yield from schema.get("enum", ())
        for value in schema.values():
            yield from enum_values(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from enum_values(item)


@pytest.mark.parametrize("role", ROLES)
def test_a_role_output_schema_as_text_names_every_field_and_value_and_is_smaller(role: str) -> None:
    schema = output_schema(role)
    text = schema_text(schema)
    for shape in objects(schema):
        required = set(shape.get("required", ()))
        for name in shape["properties"]:
            assert f"{name}{'' if name in required else '?'}: " in text, f"{role}: {name}"
    assert all(json.dumps(value) in text for value in enum_values(schema) if value is not None)
    assert len(text) < len(json.dumps(schema))


def test_an_optional_field_leaves_null_unsaid_and_a_required_one_says_it() -> None:
    schema = {"type": "object", "required": ["kept"], "properties": {
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "kind": {"enum": ["a", "b", None]},
        "kept": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}
    text = schema_text(schema)
    assert "note?: string\n" in text and 'kind?: "a"|"b"\n' in text and "kept: string | null" in text


@pytest.mark.parametrize("tool", sorted(load_contracts()))
def test_a_tool_signature_names_every_argument_and_each_shape_of_its_defs(tool: str) -> None:
    schema = load_contracts()[tool].input_schema
    text = signature(tool, schema)
    head = text.splitlines()[0]
    required = set(schema.get("required", ()))
    assert head.startswith(f"{tool}(") and all(
        f"{name}{'' if name in required else '?'}: " in head for name in schema.get("properties", {}))
    assert all(f"  {name} = " in text for name in schema.get("$defs", {}))


def test_values_listed_twice_are_named_once() -> None:
    text = named_enums('a(table: "x"|"y"|"z"|"w")\nb(table?: "x"|"y"|"z"|"w", kind: "p"|"q"|"r"|"s")')
    assert text == 'a(table: Table)\nb(table?: Table, kind: "p"|"q"|"r"|"s")\nTable = "x"|"y"|"z"|"w"'
