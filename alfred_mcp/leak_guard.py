"""The last check on every outgoing payload: a UUID anywhere is a bug, raised loudly."""

from __future__ import annotations

import json
import re
from typing import Any

UUID_PATTERN = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# Anchored on a literal '-', which the regex engine finds with a fast scan; the 8 hex digits
# before it are checked only at the rare places the rest of a UUID follows.
_UUID_TAIL = re.compile(r"-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = frozenset("0123456789abcdefABCDEF")


class UuidLeakError(RuntimeError):
    """A raw database id was about to reach a client. Never shown to the client itself."""


def find_uuid(payload: Any) -> str | None:
    """The first UUID-shaped string inside `payload` (any JSON-able value), or None."""
    text = payload if isinstance(payload, str) else json.dumps(payload, default=str)
    for match in _UUID_TAIL.finditer(text):
        start = match.start() - 8
        if start >= 0 and _HEX.issuperset(text[start:match.start()]):
            return text[start:match.end()]
    return None


def assert_no_uuid(payload: Any, *, where: str) -> None:
    """Raise UuidLeakError when `payload` contains a UUID; the message names only `where`."""
    if find_uuid(payload) is not None:
        raise UuidLeakError(f"refused to send a raw id in {where}")
