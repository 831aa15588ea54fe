"""What a caller sends, checked once at the door, the same for every tool, prompt and resource.

The policy, per kind of value (DESIGN.md §3: what people type is data, not a leak):

- text with a control character (Unicode category Cc: U+0000-U+001F but tab, newline and carriage
  return, DEL, and the C1 controls U+0080-U+009F) or an unpaired surrogate is refused, naming the
  field: SQLite would store a NUL, PostgreSQL refuses it, and the same call must behave the same on
  every backend;
- a number that is not finite (Infinity, -Infinity, NaN, or 1e400, which JSON parsers read as
  Infinity), or a whole number beyond 64 bits, is refused, naming the field;
- arrays and objects nested more than MAX_DEPTH deep are refused, naming where the nesting passes it;
- UUID-shaped text (a URL with an id in its path, an order number in a note) is kept as given: it is
  data. It is never taken for a ref (refs are `recipe_1`; where a ref is expected, a UUID is refused
  as not a ref by the registry), and the leak guard tells it from a database id because it checks
  outgoing text against the ids the server knows (`state/known_ids.py`), not against a shape.

Dict keys are checked like values, and a bad key is named itself (`data.milk\u0001`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from alfred_mcp.errors import InputError

_INT64 = 2**63 - 1
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
MAX_DEPTH = 32
"""How deeply a caller's arrays and objects may nest: a tool's arguments nest fewer than 10 levels."""
LARGE_VALUES = 500
LARGE_TEXT = 100_000
"""Arguments with more values, or a longer text, are checked off the event loop (`is_large`)."""


@dataclass
class Admitted:
    """A value as it may be used: the same shape and text, checked."""

    value: Any


def admit(value: Any, path: str = "") -> Admitted:
    """`value` checked (see the module docstring); `path` names it in errors.

    Raises:
        InputError: a control character in text or a key, a number that is not finite, nesting too deep.
    """
    return Admitted(_admit(value, path, 0))


def _admit(value: Any, path: str, depth: int) -> Any:
    if isinstance(value, str):
        check_controls(value, path)
        return value
    if isinstance(value, float):
        check_finite(value, path)
        return value
    if isinstance(value, int) and not -_INT64 <= value <= _INT64:
        where = path or "value"
        raise InputError(f"{where} is too large a number to store (at most {_INT64} either way).", field=where)
    if isinstance(value, (Mapping, list, tuple)) and depth >= MAX_DEPTH:
        where = path or "arguments"
        raise InputError(
            f"{where} nests arrays and objects more than {MAX_DEPTH} levels deep; no argument needs that many.",
            field=where, limit=MAX_DEPTH,
        )
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            name = _admit_key(key, path)
            out[name] = _admit(item, _join(path, name), depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_admit(item, f"{path}[{index}]", depth + 1) for index, item in enumerate(value)]
    return value


def _admit_key(key: Any, path: str) -> Any:
    if isinstance(key, str):
        check_controls(key, _join(path, key_name(key)), what="key")
    return key


def key_name(key: str) -> str:
    """A key as an error names it: each control character as its escape (`milk\\u0001`)."""
    return _CONTROL.sub(lambda found: f"\\u{ord(found.group()):04x}", key)


def sanitize(value: Any) -> Any:
    """`value` made safe to store without refusing anything: control characters and unpaired surrogates
    removed. For text that is not a caller's input (a model's output being parsed, a stored document
    being read back); the caller's own input goes through `admit`."""
    if isinstance(value, str):
        return _CONTROL.sub("", value)
    if isinstance(value, Mapping):
        return {sanitize(key): sanitize(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [sanitize(item) for item in value]
    return value


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def check_controls(text: str, path: str, *, what: str = "text") -> None:
    """Raises InputError when `text` holds a control character (category Cc) other than tab, newline or
    carriage return, or an unpaired surrogate; `what` is 'text' or 'key' (a key is named by `path` itself)."""
    found = _CONTROL.search(text)
    if found is not None:
        where = path or "value"
        kind = "an unpaired surrogate" if "\ud800" <= found.group() <= "\udfff" else "a control character"
        rule = ("text may hold tabs and line breaks but no other control characters" if what == "text"
                else "a key may hold no control characters")
        raise InputError(
            f"{'The key ' if what == 'key' else ''}{where} contains {kind} (U+{ord(found.group()):04X}) at position "
            f"{found.start()}; {rule}.",
            field=where, position=found.start(),
        )


def check_finite(number: float, path: str) -> None:
    """Raises InputError for Infinity, -Infinity and NaN (1e400 arrives as Infinity)."""
    if not math.isfinite(number):
        where = path or "value"
        raise InputError(
            f"{where} must be a finite number; Infinity, -Infinity, NaN and numbers too large to store "
            "(such as 1e400) are refused.",
            field=where,
        )


def is_large(value: Any, values: int = LARGE_VALUES) -> bool:
    """True when `value` holds more than `values` values (counted iteratively, stopping at the bound) or a text
    longer than LARGE_TEXT: checking it is worth taking off the event loop."""
    stack: list[Any] = [value]
    seen = 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > values or (isinstance(node, str) and len(node) > LARGE_TEXT):
            return True
        if isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return False
