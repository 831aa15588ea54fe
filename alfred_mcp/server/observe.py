"""What the server tells its observers (metrics, structured logs) about each tool call.

`dispatch.py` times every call and derives its outcome from the result it sends: `ok`, `refused`
(an error the caller can fix: its code names it) or `internal_error`. A try refused by a session
conflict and run again, or given up after the last try, is told apart. Observers must be quick and
never raise: they run on the call's path.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from mcp.types import CallToolResult

Outcome = Literal["ok", "refused", "internal_error"]


@dataclass(frozen=True)
class ToolCall:
    """One finished tool call as observers see it (no argument values, no result)."""

    tool: str
    outcome: Outcome
    code: str | None
    """The error code of a refused or failed call (e.g. invalid_filter); None when it succeeded."""
    seconds: float
    user: str | None
    """The acting user's id, or None when the call had none."""
    request_id: str | None
    fetched: bool = False
    """The call fetched a page from the web (recipes_import of a URL)."""


class CallObserver(Protocol):
    def tool_call(self, call: ToolCall) -> None:
        """A tool call finished."""

    def session_conflict(self, tool: str, *, retried: bool) -> None:
        """A try of `tool` was refused by a session conflict: run again (`retried`) or the conflict is the answer."""


def outcome_of(result: CallToolResult, error_meta: str) -> tuple[Outcome, str | None]:
    """The outcome and error code of a result as `dispatch.py` builds it (errors carry their fields in `_meta`)."""
    if not result.is_error:
        return "ok", None
    fields: Any = (result.meta or {}).get(error_meta) or {}
    code = str(fields.get("code") or "internal_error")
    return ("internal_error" if code == "internal_error" else "refused"), code


def hashed_user(user: str | None) -> str | None:
    """A user id as logs show it: 12 hex digits of its SHA-256, the same for the same user, not reversible."""
    return None if user is None else hashlib.sha256(user.encode()).hexdigest()[:12]
