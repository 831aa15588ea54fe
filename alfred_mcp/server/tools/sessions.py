"""Session tools: the working set, new sessions, new turns."""

from __future__ import annotations

from alfred_mcp.agent.machine import check_no_open_turn, close_answered
from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.schema import TABLE_BY_ENTITY_TYPE
from alfred_mcp.operations import history
from alfred_mcp.operations.windows import config_of
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult, work_on
from alfred_mcp.server.tools.common import session_context as _context


async def show_working_set(app: AlfredApp, args: ToolArgs) -> ToolResult:
    wanted = args.get("entity_type")
    include_deleted = args.get("include_deleted", True)
    async with work_on(app, "show_working_set", args) as work:
        refs = [
            {
                "ref": e.ref, "entity_type": e.entity_type, "table": TABLE_BY_ENTITY_TYPE[e.entity_type].name,
                "label": e.label, "action": e.action, "turn_created": e.turn_created,
                "turn_last_ref": e.turn_last_ref, "deleted_turn": e.deleted_turn, "saved_as": e.saved_as,
            }
            for e in work.session.registry.entries()
            if (wanted is None or e.entity_type == wanted) and (include_deleted or e.deleted_turn is None)
        ]
        return {"refs": refs, "count": len(refs), **_context(work.session)}


async def session_start(app: AlfredApp, args: ToolArgs) -> ToolResult:
    session, previous = await app.sessions.start(app.user_id)
    return {"previous": previous, **_context(session)}


async def turn_begin(app: AlfredApp, args: ToolArgs) -> ToolResult:
    """Close the current turn (its narrative is stored), start the next, record the user's message.

    Raises:
        OutOfOrderError: a turn driven stage by stage (turn_start) is still open: it owns the turn counter.
    """
    async with work_on(app, "turn_begin", args) as work:
        session = work.session
        close_answered(work)  # a lookup answered from its rows needs no reply
        check_no_open_turn(session)
        closed = history.begin_turn(session, args.get("message"), config_of(work))
        return {**_context(session), "closed_turn": closed.turn if closed else None}


HANDLERS: dict[str, Handler] = {
    "show_working_set": show_working_set,
    "session_start": session_start,
    "turn_begin": turn_begin,
}
