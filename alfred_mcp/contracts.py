"""The published tool contracts: `tools/*.json`, loaded once and enforced with jsonschema."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from alfred_mcp.errors import InputError
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

    def check_arguments(self, arguments: dict[str, Any]) -> None:
        """Raises InputError naming the offending argument and what would be valid."""
        error = best_match(self.input_validator.iter_errors(arguments))
        if error is not None:
            raise InputError(describe_validation_error(self.name, error), field=_path(error) or None)

    def check_result(self, result: dict[str, Any]) -> None:
        """Raises ValidationError when the server's own result breaks its published contract."""
        self.output_validator.validate(result)


def _path(error: ValidationError) -> str:
    return ".".join(str(part) for part in error.absolute_path)


def describe_validation_error(tool: str, error: ValidationError) -> str:
    """A one-line message naming the argument and the rule it broke."""
    where = _path(error) or "arguments"
    if error.validator == "enum":
        allowed: Any = error.validator_value
        choices = ", ".join(str(choice) for choice in allowed)
        return f"{tool}: {where} must be one of: {choices}; got {error.instance!r}."
    if error.validator == "additionalProperties":
        return f"{tool}: {error.message}."
    if error.validator == "required":
        return f"{tool}: {error.message} (in {where})."
    return f"{tool}: {where}: {error.message}"


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
