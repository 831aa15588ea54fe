"""Compact JSON Schemas: the same rules in fewer bytes, for what a model reads.

Pydantic's schemas carry a `title` on every field, spell an optional value as
`anyOf: [X, {type: null}]` with `default: null`, and add OpenAPI's `discriminator`. `compact_schema`
drops the titles, the empty defaults (`null`, `false`, `[]`, `{}`: a field that is not required is
already optional), `additionalProperties: true` (the default) and `discriminator` (not a JSON
Schema keyword), and writes `anyOf: [{type: t, ...}, {type: null}]` as `{type: [t, "null"], ...}`.
Nothing it removes changes what validates.
"""

from __future__ import annotations

from typing import Any

_EMPTY_DEFAULTS: tuple[Any, ...] = (None, False, [], {})


def compact_schema(schema: Any) -> Any:
    """`schema` with titles, empty defaults and nullable anyOfs folded away (a new value; the input is untouched)."""
    if isinstance(schema, list):
        return [compact_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "default" and any(value == empty and type(value) is type(empty) for empty in _EMPTY_DEFAULTS):
            continue
        if key == "additionalProperties" and value is True:
            continue  # the default
        if key == "discriminator":
            continue  # OpenAPI, not JSON Schema: the oneOf's consts already tell the variants apart
        if key in ("properties", "$defs"):
            out[key] = {name: compact_schema(body) for name, body in value.items()}
        else:
            out[key] = compact_schema(value)
    return _fold_nullable(out)


def _fold_nullable(schema: dict[str, Any]) -> dict[str, Any]:
    options = schema.get("anyOf")
    if not isinstance(options, list) or len(options) != 2 or {"type": "null"} not in options:
        return schema
    other = next(option for option in options if option != {"type": "null"})
    kind = other.get("type")
    kinds = [kind] if isinstance(kind, str) else kind
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds) or "$ref" in other:
        return schema
    merged = {key: value for key, value in schema.items() if key != "anyOf"}
    merged.update(other)
    merged["type"] = [*kinds, "null"]
    if "enum" in merged:
        merged["enum"] = [*merged["enum"], None]
    return merged


_LENGTHS = frozenset({"maxLength", "minLength", "maxItems", "maxProperties"})


def without_limits(schema: Any) -> Any:
    """`schema` without size limits (maxLength, minLength, maxItems, maxProperties): for shapes a model
    writes, where the server enforces the limits itself and names the field that breaks one."""
    if isinstance(schema, list):
        return [without_limits(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _LENGTHS and isinstance(value, int):
            continue
        if key in ("properties", "$defs"):
            out[key] = {name: without_limits(body) for name, body in value.items()}
        else:
            out[key] = without_limits(value)
    return out


def writable_shape(schema: dict[str, Any]) -> dict[str, Any]:
    """A shape a model writes, as a tool publishes it for reading (not for validation): compact, without
    size limits, open (the server also takes field aliases), and an optional field is left out, not null."""
    shape: dict[str, Any] = without_limits(compact_schema(schema))
    shape.pop("additionalProperties", None)
    for prop in shape.get("properties", {}).values():
        kind = prop.get("type")
        if isinstance(kind, list) and "null" in kind:
            kept = [k for k in kind if k != "null"]
            prop["type"] = kept[0] if len(kept) == 1 else kept
        if isinstance(prop.get("anyOf"), list):
            prop["anyOf"] = [option for option in prop["anyOf"] if option != {"type": "null"}]
    return shape
