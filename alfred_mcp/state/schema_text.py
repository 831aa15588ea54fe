"""A JSON Schema as the few lines a model reads: a typed signature, not the schema's JSON.

`{name, items?: Item[], kind?: "a"|"b"}` reads as well as the JSON Schema it comes from and takes a
third of its characters. Every property is there with its type, whether it is required (`?` marks an
optional one, which may also be null), its allowed values, and its description after `//`; a `$ref` is written by name and
its shape defined once below (`Name = {...}`). Limits (lengths, ranges) are left out: the server
checks them and names the field that breaks one. Pure; the schema is only read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

_INDENT = " "


def schema_text(schema: Mapping[str, Any]) -> str:
    """`schema` as a signature: the top-level object's properties one per line, then each `$defs` shape once."""
    lines = [_object(schema, depth=0)]  # the schema's own description: the role's instructions say it already
    defs = schema.get("$defs") or {}
    for name in _used_defs(schema, defs):
        lines.append(f"{name} = {_object(defs[name], depth=0)}")
    return named_enums("\n".join(lines))


def signature(name: str, schema: Mapping[str, Any]) -> str:
    """'db_read(table: "recipes"|..., filters?: Filter[], ...)' and each shape of its `$defs`, one line each
    (a shape its description names is shown too, not only one a `$ref` reaches)."""
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    arguments = ", ".join(_field(key, body, required) for key, body in properties.items())
    defs = schema.get("$defs") or {}
    order = [*_used_defs(schema, defs), *(ref for ref in defs if ref not in _used_defs(schema, defs))]
    shapes = [f"  {ref} = {_inline(defs[ref])}" for ref in order]
    return "\n".join([f"{name}({arguments})", *shapes])


def _object(schema: Mapping[str, Any], *, depth: int) -> str:
    """An object's properties, one per line with its description as a comment."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        return _type(schema)
    required = set(schema.get("required") or ())
    pad = _INDENT * (depth + 1)
    lines = ["{"]
    for key, body in properties.items():
        comment = f" // {body['description']}" if isinstance(body, Mapping) and body.get("description") else ""
        lines.append(f"{pad}{_field(key, body, required)}{comment}")
    lines.append(_INDENT * depth + "}")
    return "\n".join(lines)


def _inline(schema: Mapping[str, Any]) -> str:
    """An object on one line, without descriptions."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        return _type(schema)
    required = set(schema.get("required") or ())
    return "{" + ", ".join(_field(key, body, required) for key, body in properties.items()) + "}"


def _field(key: str, body: Any, required: set[str]) -> str:
    """'name: string', or 'note?: string' for an optional one: left out is as good as null, so null goes unsaid."""
    if key in required:
        return f"{key}: {_type(body)}"
    text = _type(body)
    for null in (" | null", "|null"):
        text = text.removesuffix(null)
    return f"{key}?: {text}"


def _type(schema: Any) -> str:
    """A type expression: string, int, "a"|"b", Item[], {a, b?: int}, A | B."""
    if not isinstance(schema, Mapping):
        return "any"
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return "|".join(json.dumps(value) for value in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list):
            return " | ".join(dict.fromkeys(_type(option) for option in schema[key]))
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(_type({**schema, "type": one}) for one in kind)
    if kind == "array":
        item = _type(schema.get("items"))
        return f"({item})[]" if " " in item or "|" in item else f"{item}[]"
    if kind == "object" or "properties" in schema:
        return _inline(schema) if schema.get("properties") else "object"
    return {"integer": "int", None: "any"}.get(kind, str(kind))


def _used_defs(schema: Mapping[str, Any], defs: Mapping[str, Any]) -> list[str]:
    """The `$defs` names `schema` reaches, in the order first met (each once)."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            if isinstance(ref, str):
                name = ref.rsplit("/", 1)[-1]
                if name in defs and name not in found:
                    found.append(name)
                    walk(defs[name])
            for key, value in node.items():
                if key != "$defs":
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(schema)
    return found


_ENUM = re.compile(r'(\w+)\??: ((?:"[\w-]+"\|){3,}"[\w-]+"(?:\|null)?)')


def named_enums(text: str) -> str:
    """Each list of allowed values written more than once, named once after the first field that takes it:
    `table: Table` ... and a last line `Table = "recipes"|...`."""
    found = _ENUM.findall(text)
    counts: dict[str, int] = {}
    for _, values in found:
        counts[values] = counts.get(values, 0) + 1
    names: dict[str, str] = {}
    for field, values in found:
        if counts[values] > 1 and values not in names:
            alias = field.title().replace("_", "")
            names[values] = alias if alias not in names.values() else f"{alias}{len(names) + 1}"
    for values, alias in sorted(names.items(), key=lambda item: -len(item[0])):
        text = text.replace(values, alias) + f"\n{alias} = {values}"
    return text
