"""The last check on every outgoing payload: a UUID anywhere is a bug, raised loudly."""

from __future__ import annotations

import json
from typing import Any

from alfred_mcp.kitchen.raw_ids import find_raw_id


class UuidLeakError(RuntimeError):
    """A raw database id was about to reach a client. Never shown to the client itself."""


def find_uuid(payload: Any) -> str | None:
    """The first UUID-shaped string inside `payload` (any JSON-able value), or None."""
    text = payload if isinstance(payload, str) else json.dumps(payload, default=str)
    return find_raw_id(text)


def assert_no_uuid(payload: Any, *, where: str) -> None:
    """Raise UuidLeakError when `payload` contains a UUID; the message names only `where`."""
    if find_uuid(payload) is not None:
        raise UuidLeakError(f"refused to send a raw id in {where}")
