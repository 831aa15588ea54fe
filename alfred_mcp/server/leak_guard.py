"""The last check on every outgoing payload: a database id anywhere in it is a bug, raised loudly.

What counts as a database id is what the request knows to be one (`state/known_ids.py`): the ids of
the rows the store returned to it and the row ids its sessions' registries hold. UUID-shaped text a
person gave (a URL, a note, a message) is none of those, so it goes out as given. Outside a request
nothing is known, and every UUID-shaped text counts.
"""

from __future__ import annotations

import json
from typing import Any

from alfred_mcp.kitchen.raw_ids import raw_ids_in
from alfred_mcp.state.known_ids import current_ids


class UuidLeakError(RuntimeError):
    """A raw database id was about to reach a client. Never shown to the client itself."""


def find_uuid(payload: Any) -> str | None:
    """The first database id inside `payload` (any JSON-able value), or None."""
    text = payload if isinstance(payload, str) else json.dumps(payload, default=str)
    known = current_ids()
    for found in raw_ids_in(text):
        if known is None or known.knows(found):
            return found
    return None


def assert_no_uuid(payload: Any, *, where: str) -> None:
    """Raise UuidLeakError when `payload` contains a database id; the message names only `where`."""
    if find_uuid(payload) is not None:
        raise UuidLeakError(f"refused to send a raw id in {where}")
