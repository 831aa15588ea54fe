"""Resource-updated notifications: after a tool call succeeds, tell listeners what may have changed.

Notifications reach clients listening on the 2026-07-28 `subscriptions/listen` stream, and the
user's 2025-11-25 connections that subscribed to the URI (`server/subscriptions.py`). A session
resource is announced under the session's name and, when it is the user's current session, under
`current` too, since a client filter matches URIs exactly. A failure to notify never fails the call.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.resources import DASHBOARD_URI, SESSION_RESOURCES, session_uri
from alfred_mcp.server.session_args import CURRENT

logger = logging.getLogger(__name__)

DASHBOARD = "dashboard"
EVERYTHING = frozenset({*SESSION_RESOURCES, DASHBOARD})
_READS = frozenset({"working-set", "narratives"})
_WRITES = frozenset({"working-set", "narratives", DASHBOARD})
EFFECTS: dict[str, frozenset[str]] = {
    "turn_begin": frozenset({"working-set", "narratives", "conversation"}),
    "turn_reply": frozenset({"conversation", "narratives"}),
    "understanding_submit": frozenset({"working-set", "constraints", "decisions", "conversation", "narratives"}),
    "session_start": frozenset(SESSION_RESOURCES),
    "db_read": _READS,
    "recipes_search": _READS,
    "recipes_makeable": _READS,
    "db_create": _WRITES,
    "db_update": _WRITES,
    "db_delete": _WRITES,
}
"""What each known tool may change; other tools change nothing if read-only, else possibly everything."""


class Notifier(Protocol):
    async def notify_resource_updated(self, uri: str) -> None: ...


class Subscribers(Protocol):
    async def publish(self, user_id: str, uris: Iterable[str]) -> None: ...


def changed_resources(tool: str, arguments: Mapping[str, Any], *, read_only: bool) -> frozenset[str]:
    """The resource kinds a successful call of `tool` may have changed (a `preview` writes nothing: those of a read)."""
    effects = _READS if arguments.get("preview") is True else EFFECTS.get(tool)
    if effects is None:
        return frozenset() if read_only else EVERYTHING
    if arguments.get("table") == "preferences" and DASHBOARD in effects:
        effects = effects | {"constraints"}
    return effects


async def notify_changes(
    app: AlfredApp, notifier: Notifier | None, tool: str, arguments: Mapping[str, Any], result: Mapping[str, Any],
    *, read_only: bool, subscriptions: Subscribers | None = None,
) -> list[str]:
    """Announce the resources the call changed; returns the URIs sent."""
    kinds = changed_resources(tool, arguments, read_only=read_only)
    if notifier is None or not kinds:
        return []
    uris = await _uris(app, kinds, result.get("session"), arguments.get("session"))
    try:
        for uri in uris:
            await notifier.notify_resource_updated(uri)
        if subscriptions is not None:
            await subscriptions.publish(app.user_id, uris)
    except Exception:  # notification is best effort: the call already succeeded
        logger.exception("could not send resource-updated notifications after %s", tool)
        return []
    return uris


async def _uris(app: AlfredApp, kinds: frozenset[str], session: Any, named: Any) -> list[str]:
    uris = [DASHBOARD_URI] if DASHBOARD in kinds else []
    if not isinstance(session, str):
        return uris
    names = [session]
    if named is None or (await app.sessions.resolve(app.user_id)).name == session:
        names.append(CURRENT)
    uris += [session_uri(name, kind) for name in names for kind in SESSION_RESOURCES if kind in kinds]
    return uris
