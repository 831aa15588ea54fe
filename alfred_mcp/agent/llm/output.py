"""A model's text answer -> the JSON object a role asked for; and the words that ask for it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from alfred_mcp.errors import ModelOutputError
from alfred_mcp.state.schema_text import schema_text

FENCED = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)```", re.DOTALL)
EXCERPT_CHARS = 200


def schema_instructions(schema: Mapping[str, Any], name: str) -> str:
    """Instructions for models that get the schema only as text (json_object mode, prompt mode, sampling): its
    shape as a typed signature, a third of the JSON Schema's size (the answer is still checked against the schema)."""
    return (
        f"Answer with a single JSON object ({name}) of this shape (`?` marks an optional field). "
        "Output only the JSON object: no prose, no code fences.\n"
        f"{schema_text(schema)}"
    )


def parse_json_object(text: str, *, source: str) -> dict[str, Any]:
    """The JSON object in `text`: bare, inside ``` fences, or the outermost {...} amid prose.

    Raises:
        ModelOutputError: no candidate parses as a JSON object.
    """
    for candidate in _candidates(text):
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
        raise ModelOutputError(
            f"{source} answered with JSON that is a {type(value).__name__}, not an object", provider=source, excerpt=_excerpt(text)
        )
    raise ModelOutputError(f"{source} answered with text that is not a JSON object: {_excerpt(text)!r}", provider=source)


def _candidates(text: str) -> Iterator[str]:
    stripped = text.strip()
    yield stripped
    fenced = FENCED.search(stripped)
    if fenced:
        yield fenced.group(1).strip()
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        yield stripped[start : end + 1]


def _excerpt(text: str) -> str:
    text = text.strip()
    return text if len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + "..."
