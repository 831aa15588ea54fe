"""What every tool handler shares: its signature and the session fields of a result."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import AlfredError
from alfred_mcp.session import Session
from alfred_mcp.state.ledger import CallRecord

logger = logging.getLogger(__name__)

Handler = Callable[[AlfredApp, dict[str, Any]], Awaitable[dict[str, Any]]]


def session_context(session: Session) -> dict[str, Any]:
    """The `session` and `turn` fields every session-scoped result carries."""
    return {"session": session.name, "turn": session.turn}


@asynccontextmanager
async def acting(app: AlfredApp, tool: str, args: dict[str, Any]) -> AsyncIterator[Session]:
    """The session a call acts on, serialized; a refused call is still written to the turn's ledger."""
    try:
        async with app.sessions.acting_on(app.user_id, args.get("session")) as session:
            yield session
    except AlfredError as error:
        await _record_failure(app, tool, args, error)
        raise


async def _record_failure(app: AlfredApp, tool: str, args: dict[str, Any], error: AlfredError) -> None:
    try:
        async with app.sessions.acting_on(app.user_id, args.get("session")) as session:
            table = args.get("table") if isinstance(args.get("table"), str) else None
            record = CallRecord(turn=session.turn, tool=tool, table=table, outcome="error", error_code=error.code, note=error.message[:300])
            session.record_call(record)
            await session.save(app.store)
    except AlfredError:
        logger.debug("could not record the failed %s call in the ledger", tool)
