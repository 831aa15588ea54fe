"""What a caller sends, checked once at the door, the same for every tool, prompt and resource.

The policy, per kind of value (DESIGN.md §3: what people type is data, not a leak):

- text with a control character (anything below U+0020 but tab, newline and carriage return,
  and DEL) or an unpaired surrogate is refused, naming the field: SQLite would store a NUL,
  PostgreSQL refuses it, and the same call must behave the same on every backend;
- a number that is not finite (Infinity, -Infinity, NaN, or 1e400, which JSON parsers read as
  Infinity), or a whole number beyond 64 bits, is refused, naming the field;
- a value that is nothing but a raw id (a UUID, dashed or as 32 hex characters mixing digits and
  letters: `raw_ids.py`) is refused as "not a ref", naming the field and never echoing the value:
  rows are named by refs; a long number or word someone typed is no id and is kept as typed;
- free text with a raw id inside it ("my order id is 123e4567-...") is accepted, the id replaced
  by REDACTED: stored state then never holds an id-shaped string, so it always renders, and the
  leak guard on outgoing payloads stays loud for real leaks. The caller is told which fields
  were redacted (`Admitted.redacted`).

Dict keys are checked like values (a key is never free text, so a raw id in one is refused).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from alfred_mcp.errors import InputError, InvalidRefError
from alfred_mcp.kitchen.raw_ids import REDACTED, find_raw_id, is_raw_id, redact_raw_ids

_INT64 = 2**63 - 1
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


@dataclass
class Admitted:
    """A value as it may be used: the same shape, with raw ids in free text redacted."""

    value: Any
    redacted: list[str] = field(default_factory=list)
    """The fields (paths such as 'items[0].name') whose text had a raw id replaced by REDACTED."""


def admit(value: Any, path: str = "") -> Admitted:
    """`value` checked and cleaned (see the module docstring); `path` names it in errors.

    Raises:
        InputError: a control character in text, or a number that is not finite.
        InvalidRefError: a value that is nothing but a raw id.
    """
    redacted: list[str] = []
    return Admitted(_admit(value, path, redacted), redacted)


def _admit(value: Any, path: str, redacted: list[str]) -> Any:
    if isinstance(value, str):
        return _admit_text(value, path, redacted)
    if isinstance(value, float):
        check_finite(value, path)
        return value
    if isinstance(value, int) and not -_INT64 <= value <= _INT64:
        where = path or "value"
        raise InputError(f"{where} is too large a number to store (at most {_INT64} either way).", field=where)
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            name = _admit_key(key, path)
            out[name] = _admit(item, _join(path, name), redacted)
        return out
    if isinstance(value, (list, tuple)):
        return [_admit(item, f"{path}[{index}]", redacted) for index, item in enumerate(value)]
    return value


def _admit_text(text: str, path: str, redacted: list[str]) -> str:
    check_controls(text, path)
    if find_raw_id(text) is None:
        return text
    if is_raw_id(text):
        raise raw_id_error(path)
    cleaned = redact_raw_ids(text)
    redacted.append(path or "value")
    return cleaned


def _admit_key(key: Any, path: str) -> Any:
    if not isinstance(key, str):
        return key
    where = _join(path, "<key>") if path else "<key>"
    check_controls(key, where)
    if find_raw_id(key) is not None:
        raise InputError(
            f"{path or 'arguments'} has a key that contains a raw id (UUID); keys are field names, and rows are named by refs.",
            field=path or "arguments",
        )
    return key


def sanitize(value: Any) -> Any:
    """`value` made safe to store without refusing anything: raw ids (whole values too) redacted,
    control characters removed. For text that is not a caller's input (a model's output being
    parsed, a stored document being read back); the caller's own input goes through `admit`."""
    if isinstance(value, str):
        cleaned = _CONTROL.sub("", value)
        return redact_raw_ids(cleaned) if find_raw_id(cleaned) is not None else cleaned
    if isinstance(value, Mapping):
        return {sanitize(key): sanitize(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [sanitize(item) for item in value]
    return value


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def check_controls(text: str, path: str) -> None:
    """Raises InputError when `text` holds a control character other than tab, newline or carriage return."""
    found = _CONTROL.search(text)
    if found is not None:
        where = path or "value"
        kind = "an unpaired surrogate" if "\ud800" <= found.group() <= "\udfff" else "a control character"
        raise InputError(
            f"{where} contains {kind} (U+{ord(found.group()):04X}) at position {found.start()}; "
            "text may hold tabs and line breaks but no other control characters.",
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


def raw_id_error(path: str) -> InvalidRefError:
    """The refusal of a value that is nothing but a raw id: names the field, never repeats the value."""
    where = path or "value"
    return InvalidRefError(
        f"{where} is a raw id (UUID), not a ref: rows are named by refs such as recipe_1, which reads return. "
        "In text, describe it in words instead.",
        field=where, expected="a ref such as recipe_1",
    )


def redaction_note(fields: list[str]) -> str:
    """One line telling the caller which fields had raw ids replaced."""
    shown = ", ".join(dict.fromkeys(fields))
    return f"Note: UUID-shaped text in {shown} was stored as {REDACTED} (rows are named by refs, never raw ids)."
