"""Every published schema (tools/*.json and the role output schemas) uses JSON Schema 2020-12 keywords only:
no pydantic `ge`/`le`, no OpenAPI `discriminator`, no `title` noise."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from alfred_mcp.contracts import load_contracts
from alfred_mcp.state.role_outputs import ROLE_OUTPUTS, output_schema

KEYWORDS = frozenset(Draft202012Validator.VALIDATORS) | {
    "$schema", "$id", "$defs", "$comment", "$anchor", "$dynamicAnchor", "title", "description", "default", "examples",
    "deprecated", "readOnly", "writeOnly", "format", "contentMediaType", "contentEncoding",
}
_SUBSCHEMA_MAPS = ("properties", "$defs", "patternProperties", "dependentSchemas")
_SUBSCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
_SUBSCHEMAS = ("items", "not", "if", "then", "else", "additionalProperties", "contains", "propertyNames")

SCHEMAS = [pytest.param(c.input_schema, id=f"{c.name}-input") for c in load_contracts().values()]
SCHEMAS += [pytest.param(c.output_schema, id=f"{c.name}-output") for c in load_contracts().values()]
SCHEMAS += [pytest.param(output_schema(role), id=f"{role}-output") for role in ROLE_OUTPUTS]


def keys(schema: Any, where: str = "") -> Iterator[tuple[str, str]]:
    """Every keyword of `schema` and of its subschemas, with where it sits."""
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        yield where, key
        if key in _SUBSCHEMA_MAPS:
            for name, body in value.items():
                yield from keys(body, f"{where}/{key}/{name}")
        elif key in _SUBSCHEMA_LISTS:
            for index, body in enumerate(value):
                yield from keys(body, f"{where}/{key}/{index}")
        elif key in _SUBSCHEMAS:
            yield from keys(value, f"{where}/{key}")


@pytest.mark.parametrize("schema", SCHEMAS)
def test_only_json_schema_keywords(schema: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)
    unknown = [(where, key) for where, key in keys(schema) if key not in KEYWORDS]
    assert unknown == []
    assert not [where for where, key in keys(schema) if key == "title" and where], "titles are noise in a model's context"
