"""Everything a role's context is built from, read from the session and the store as plain values.

The context builders (`state/context.py`) are pure; this gathers their `ContextInputs`.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from alfred_mcp.operations.dashboard import build_dashboard
from alfred_mcp.operations.drafting import pending_draft_views
from alfred_mcp.operations.entities import read_references
from alfred_mcp.operations.history import conversation_of, recent_narratives, summarize_current
from alfred_mcp.operations.understanding import curation_of, preferences_row, with_permanent
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.constraints import compile_constraints
from alfred_mcp.state.context import ContextInputs
from alfred_mcp.state.entity_resolver import Candidate, Mention
from alfred_mcp.store.base import Row

_PROFILE_HIDDEN = ("id", "user_id", "created_at", "updated_at")


def profile_of(row: Row | None) -> dict[str, Any] | None:
    """The preferences row as the roles see it: no ids, no timestamps."""
    return None if row is None else {key: value for key, value in row.items() if key not in _PROFILE_HIDDEN}


async def context_inputs(
    work: UnitOfWork, *, today: date, with_dashboard: bool = True, user_message: str | None = None,
    with_background: bool = False,
) -> ContextInputs:
    """Read the session and the store into the plain values the context builders take.

    `with_background` adds the kitchen's background entities and the resolver's reading of the message (Understand).
    """
    session = work.session
    row = await preferences_row(work.store, work.user_id)
    compiled = compile_constraints(with_permanent(session, row))
    dashboard = await build_dashboard(work, today=today) if with_dashboard else None
    narratives, digest = recent_narratives(session)
    current = summarize_current(session)
    message = user_message or current.user_message
    background: list[Candidate] = []
    mentions: list[Mention] = []
    if with_background:
        reading = await read_references(work, message, today=today)
        background, mentions = reading.background, reading.mentions
    return ContextInputs(
        background=background,
        mentions=[m for m in mentions if m.resolution != "unresolved"],
        turn=session.turn,
        user_message=message,
        entries=session.registry.entries(),
        curation=curation_of(session),
        constraints=compiled,
        drafts=pending_draft_views(session),
        narratives=narratives,
        narrative_digest=digest,
        current=current,
        conversation=conversation_of(session),
        profile=profile_of(row),
        dashboard=dashboard,
        today=today.isoformat(),
    )
