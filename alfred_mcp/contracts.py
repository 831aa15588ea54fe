"""The published tool contracts: `tools/*.json`, loaded once and enforced with jsonschema."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.jsonschema import describe_value
from alfred_mcp.kitchen.text import Admitted, admit
from alfred_mcp.paths import contract_dir

ANNOTATION_KEYS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
"""The MCP spec's value of a hint a tool leaves out; contracts state only the hints that differ."""
EXTRA_TOOLS = frozenset({"batch_open", "batch_status", "batch_skip", "batch_complete", "turn_status", "show_working_set"})
"""Served to any client that calls them, but listed only with ALFRED_TOOLS=all: batches are opened and tracked by
draft_save and the turn machine, and the working set and turns have resources (alfred://session/...)."""
MODEL_TOOLS = frozenset({"chat"})
"""Listed when the server has a model (ALFRED_MODEL), or with ALFRED_TOOLS=all (model='client' uses sampling)."""


@dataclass(frozen=True)
class ToolContract:
    """One tool as published: exactly what `tools/list` advertises."""

    name: str
    title: str
    description: str
    annotations: dict[str, Any]
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    input_validator: Draft202012Validator
    output_validator: Draft202012Validator
    meta: dict[str, Any] | None = None
    """The contract's `_meta` (e.g. `ui`: the MCP Apps view it renders in); `server/apps.py` decides who sees it."""

    @property
    def app_only(self) -> bool:
        """Meant for MCP Apps views only (`_meta.ui.visibility` without "model"): never offered to a model."""
        ui = (self.meta or {}).get("ui") or {}
        return "model" not in ui.get("visibility", ("model", "app"))

    def hint(self, name: str) -> bool:
        """An annotation hint, with the spec's default when the contract leaves it out (destructiveHint means
        nothing for a read-only tool, so it is False there)."""
        if name == "destructiveHint" and self.hint("readOnlyHint"):
            return False
        return bool(self.annotations.get(name, HINT_DEFAULTS[name]))

    def admit_arguments(self, arguments: dict[str, Any]) -> Admitted:
        """The arguments as the handler may use them: checked at the door (`kitchen/text.py`: control
        characters, non-finite numbers and nesting too deep refused; UUID-shaped text kept as given),
        then against the inputSchema.

        Raises:
            InputError: naming the offending argument and what would be valid.
        """
        admitted = admit(arguments)
        self.check_arguments(admitted.value)
        return admitted

    def check_arguments(self, arguments: dict[str, Any]) -> None:
        """Raises InputError naming the offending argument and what would be valid."""
        error = best_match(self.input_validator.iter_errors(arguments))
        if error is not None:
            raise InputError(describe_validation_error(self.name, error), field=_field(error))

    def check_result(self, result: dict[str, Any]) -> None:
        """Raises ValidationError when the server's own result breaks its published contract."""
        self.output_validator.validate(result)


def _path(error: ValidationError) -> str:
    """('items', 0, 'name') -> 'items[0].name', the form every error's `field` uses."""
    text = ""
    for part in error.absolute_path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


def _field(error: ValidationError) -> str:
    """The argument to name: the path of the bad value, or the unexpected or missing key itself."""
    path = _path(error)
    keys: list[str] = []
    schema: Any = error.schema
    wanted: Any = error.validator_value
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        keys = [str(key) for key in error.instance if key not in schema.get("properties", {})]
    elif error.validator == "required" and isinstance(error.instance, dict):
        keys = [str(name) for name in wanted if name not in error.instance]
    if keys:
        return f"{path}.{keys[0]}" if path else keys[0]
    return path or "arguments"


_TYPE_WORDS = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
               "array": "a list", "object": "an object", "null": "null"}


def describe_validation_error(tool: str, error: ValidationError) -> str:
    """A one-line message naming the argument and the rule it broke; the value is shown shortened, never a raw id."""
    where = _path(error) or "arguments"
    rule: Any = error.validator  # jsonschema types these loosely
    limit: Any = error.validator_value
    value: Any = error.instance
    schema: Any = error.schema
    shown = describe_value(value)
    if rule == "enum":
        return f"{tool}: {where} must be one of: {', '.join(str(choice) for choice in limit)}; got {shown}."
    if rule == "additionalProperties":
        extra = sorted(str(key) for key in value if key not in schema.get("properties", {}))
        names = ", ".join(describe_value(key) for key in extra)
        valid = ", ".join(schema.get("properties", {}))
        return f"{tool}: {where} has no argument {names}; " + (f"valid: {valid}." if valid else "it takes none.")
    if rule == "required":
        missing = [name for name in limit if name not in value]
        return f"{tool}: {', '.join(missing)} is required (in {where})."
    if rule == "type":
        expected = limit if isinstance(limit, list) else [limit]
        return f"{tool}: {where} must be {' or '.join(_TYPE_WORDS.get(str(t), str(t)) for t in expected)}, got {shown}."
    if rule == "pattern":
        return f"{tool}: {where} must look like {_example(limit)}, got {shown}."
    if rule in ("maxLength", "minLength"):
        bound = "at most" if rule == "maxLength" else "at least"
        return f"{tool}: {where} must be {bound} {limit} characters long; it has {len(value)}."
    if rule in ("maxItems", "minItems", "maxProperties", "minProperties"):
        bound = "at most" if rule.startswith("max") else "at least"
        noun = ("item" if rule.endswith("Items") else "field") + ("" if limit == 1 else "s")
        return f"{tool}: {where} must have {bound} {limit} {noun}; it has {len(value)}."
    if rule in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        bound = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "more than", "exclusiveMaximum": "less than"}[rule]
        return f"{tool}: {where} must be {bound} {limit}, got {shown}."
    return f"{tool}: {where} breaks the rule {rule} ({describe_value(limit)}), got {shown}."


def _example(pattern: str) -> str:
    """A readable example of what a ref pattern such as '^gen_(recipe|meal)_[1-9][0-9]{0,8}$' accepts."""
    head = re.sub(r"\(([^|)]*)[^)]*\)", r"\1", pattern.strip("^$").split("[1-9]", 1)[0])
    return f"'{head}1'" if head.endswith("_") and "[" not in head else f"the pattern {pattern}"


def _load(path: Any) -> ToolContract:
    raw = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(raw["inputSchema"])
    Draft202012Validator.check_schema(raw["outputSchema"])
    return ToolContract(
        name=raw["name"],
        title=raw["title"],
        description=raw["description"],
        annotations=raw["annotations"],
        input_schema=raw["inputSchema"],
        output_schema=raw["outputSchema"],
        input_validator=Draft202012Validator(raw["inputSchema"]),
        output_validator=Draft202012Validator(raw["outputSchema"]),
        meta=raw.get("_meta"),
    )


def listed(name: str, *, everything: bool, has_model: bool) -> bool:
    """Whether tools/list advertises `name`: the default list leaves out EXTRA_TOOLS, and `chat` without a model."""
    if everything:
        return True
    return name not in EXTRA_TOOLS and (has_model or name not in MODEL_TOOLS)


@cache
def load_contracts() -> dict[str, ToolContract]:
    """Every tool contract, by name, in file-name order."""
    return {c.name: c for c in (_load(p) for p in sorted(contract_dir("tools").glob("*.json")))}
