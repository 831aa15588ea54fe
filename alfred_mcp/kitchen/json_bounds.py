"""JSON from outside (a pasted or fetched JSON-LD document, a page's JSON-LD script, a Paprika entry)
parsed only within bounds: how many values it holds and how deeply they nest.

The text is measured before it is parsed, in passes that run at C speed: its strings are cut out
(so commas and brackets inside them do not count), then commas, `[` and `{` bound the number of
values, and one walk over the brackets finds the depth. A document over either bound is refused
without being built in memory, and what is parsed can be walked by code that recurses.
"""

from __future__ import annotations

import json
import re
from typing import Any

from alfred_mcp.errors import ImportSourceError

MAX_DEPTH = 32
"""How deeply arrays and objects may nest: real recipe documents nest fewer than 10 levels."""
MAX_VALUES = 100_000
"""How many values (array items and object members) one document may hold: a recipe site's graph holds hundreds."""

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def loads_bounded(text: str | bytes, *, what: str, max_values: int = MAX_VALUES, max_depth: int = MAX_DEPTH) -> Any:
    """`text` parsed as JSON, when it holds at most `max_values` values nested at most `max_depth` deep.

    Raises:
        ImportSourceError: naming `source` and `what` (such as 'the JSON-LD'): over a bound, or not JSON.
        ValueError, UnicodeDecodeError: from `json.loads`, for the caller to word (it knows the source).
    """
    check_shape(text, what=what, max_values=max_values, max_depth=max_depth)
    try:
        return json.loads(text)
    except RecursionError:  # cannot happen within the depth bound; kept so no parse ever ends as an internal error
        raise too_deep(what, max_depth) from None


def check_shape(text: str | bytes, *, what: str, max_values: int = MAX_VALUES, max_depth: int = MAX_DEPTH) -> None:
    """Raises ImportSourceError when `text`, read as JSON, holds more values or nests deeper than allowed."""
    bare = _STRING.sub("", text if isinstance(text, str) else text.decode("utf-8", "replace"))
    values = bare.count(",") + bare.count("[") + bare.count("{")
    if values > max_values:
        raise ImportSourceError(
            f"source: {what} holds more than {max_values:,} values; a recipe document holds far fewer.", field="source"
        )
    depth = deepest = 0
    for bracket in _BRACKET.finditer(bare):
        depth += 1 if bracket.group() in "[{" else -1
        if depth > deepest:
            deepest = depth
            if deepest > max_depth:
                raise too_deep(what, max_depth)


def too_deep(what: str, max_depth: int = MAX_DEPTH) -> ImportSourceError:
    """The refusal of a document nested deeper than `max_depth`, naming `source`."""
    return ImportSourceError(
        f"source: {what} nests arrays and objects more than {max_depth} levels deep; a recipe document nests far fewer.",
        field="source", limit=max_depth,
    )


def depth_within(value: Any, max_depth: int = MAX_DEPTH) -> bool:
    """True when `value` (parsed JSON, or what a page reader built) nests at most `max_depth` deep; iterative."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        if depth >= max_depth:
            return False
        stack.extend((child, depth + 1) for child in children)
    return True
