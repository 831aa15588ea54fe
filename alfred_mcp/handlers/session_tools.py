"""Session tools: the working set, new sessions, new turns."""

from __future__ import annotations

from typing import Any

from alfred_mcp import turns
from alfred_mcp.app import AlfredApp
from alfred_mcp.handlers.common import acting
from alfred_mcp.handlers.common import session_context as _context
from alfred_mcp.kitchen.schema import TABLES


async def show_working_set(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    wanted = args.get("entity_type")
    include_deleted = args.get("include_deleted", True)
    async with acting(app, "show_working_set", args) as session:
        refs = [
            {
                "ref": e.ref, "entity_type": e.entity_type, "table": TABLES_BY_TYPE[e.entity_type],
                "label": e.label, "action": e.action, "turn_created": e.turn_created,
                "turn_last_ref": e.turn_last_ref, "deleted_turn": e.deleted_turn, "saved_as": e.saved_as,
            }
            for e in session.registry.entries()
            if (wanted is None or e.entity_type == wanted) and (include_deleted or e.deleted_turn is None)
        ]
        return {"refs": refs, "count": len(refs), **_context(session)}


TABLES_BY_TYPE = {table.entity_type: table.name for table in TABLES.values()}


async def session_start(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    session, previous = await app.sessions.start(app.user_id)
    return {"previous": previous, **_context(session)}


async def turn_begin(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    """Close the current turn (its narrative is stored), start the next, record the user's message."""
    async with acting(app, "turn_begin", args) as session:
        closed = turns.close_turn(session)
        session.turn += 1
        if args.get("message"):
            turns.record_message(session, args["message"])
        async with app.store.transaction():
            await session.save(app.store)
        return {**_context(session), "closed_turn": closed.turn if closed else None}


HANDLERS = {
    "show_working_set": show_working_set,
    "session_start": session_start,
    "turn_begin": turn_begin,
}
