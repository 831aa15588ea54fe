"""Error results keep every tool's contract: generated bad calls for EVERY tool (2026-07-28; test_era_parity.py proves the 2025-11-25 era answers the same).

Clients that validate structuredContent against a tool's outputSchema (the Inspector, the
TypeScript SDK 1.x) throw away an error result whose structured content breaks that schema, and
the user never sees the error. So: an `isError` result carries no structuredContent (or, should one
ever, it validates against the outputSchema); its text is `Error: <message>` and its fields are in
`_meta["alfred/error"]`. A call that succeeds instead must match the outputSchema.
"""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp import Client

from alfred_mcp.contracts import ToolContract, load_contracts
from alfred_mcp.server.dispatch import ERROR_META
from alfred_mcp.server.leak_guard import find_uuid

pytestmark = pytest.mark.anyio
CONTRACTS = load_contracts()
CANDIDATES: list[Any] = [1.5, "text", [], {}, True, None]
"""Values of every JSON type; a wrong-typed argument is the first one its schema refuses."""


def sample(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A small value shaped like `schema` (required members only): valid in form, rarely meaningful."""
    if "$ref" in schema:
        return sample(defs[schema["$ref"].rsplit("/", 1)[1]], defs)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return sample(schema[key][0], defs)
    kind = schema.get("type", "string")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: sample(properties.get(name, {}), defs) for name in schema.get("required", [])}
    if kind == "array":
        return [sample(schema.get("items", {}), defs) for _ in range(max(1, schema.get("minItems", 1)))]
    if kind in ("integer", "number"):
        return max(1, schema.get("minimum", 1))
    if kind == "boolean":
        return False
    return "no_such_thing_1"


def wrong_type(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    validator = Draft202012Validator({**schema, "$defs": defs})
    return next(value for value in CANDIDATES if not validator.is_valid(value))


def error_cases(contract: ToolContract) -> list[tuple[str, dict[str, Any], bool]]:
    """(case, arguments, must fail) for one tool, generated from its inputSchema."""
    schema = contract.input_schema
    defs = schema.get("$defs", {})
    properties: dict[str, Any] = schema.get("properties", {})
    required: list[str] = schema.get("required", [])
    base = {name: sample(properties[name], defs) for name in required}
    cases = [("an unknown argument", {**base, "no_such_argument": 1}, True)]
    cases += [(f"{name} missing", {k: v for k, v in base.items() if k != name}, True) for name in required]
    cases += [(f"{name} of a wrong type", {**base, name: wrong_type(spec, defs)}, True) for name, spec in properties.items()]
    if "session" in properties:
        cases.append(("an unknown session", {**base, "session": "session_999"}, True))
    cases.append(("placeholder values", base, False))
    return cases


def test_every_tool_gets_generated_error_cases() -> None:
    """Each tool has at least an unknown-argument case and a wrong type per argument; all but two reach their handler."""
    counts = {name: len(error_cases(contract)) for name, contract in CONTRACTS.items()}
    assert all(count >= 2 for count in counts.values())
    reaching_handlers = [name for name, c in CONTRACTS.items() if "session" in c.input_schema.get("properties", {})]
    assert set(CONTRACTS) - set(reaching_handlers) == {"describe_table", "session_start"}


@pytest.mark.parametrize("tool", list(CONTRACTS))
async def test_error_results_of_every_tool_carry_no_structured_content(client: Client, tool: str) -> None:
    """Every generated bad call is an isError result without structuredContent, its fields in _meta."""
    contract = CONTRACTS[tool]
    for case, arguments, must_fail in error_cases(contract):
        result = await client.call_tool(tool, arguments)
        text = "".join(block.text for block in result.content if block.type == "text")
        assert find_uuid(text) is None, (case, text)
        if not result.is_error:
            assert not must_fail, f"{tool} with {case} succeeded: {text}"
            contract.check_result(result.structured_content)
            continue
        if result.structured_content is not None:  # never expected; if it ever appears it must still fit the contract
            contract.check_result(result.structured_content)
        fields = (result.meta or {})[ERROR_META]
        assert text == f"Error: {fields['message']}", case
        assert fields["code"] != "internal_error", f"{tool} with {case}: {text}"
