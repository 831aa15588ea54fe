"""What every tool handler shares: its signature and the session fields of a result."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from alfred_mcp.app import AlfredApp
from alfred_mcp.session import Session

Handler = Callable[[AlfredApp, dict[str, Any]], Awaitable[dict[str, Any]]]


def session_context(session: Session) -> dict[str, Any]:
    """The `session` and `turn` fields every session-scoped result carries."""
    return {"session": session.name, "turn": session.turn}
