"""`resources/subscribe` and `resources/unsubscribe` for handshake-era (2025-11-25) clients.

The 2026-07-28 revision replaced them with `subscriptions/listen` (served by the SDK); clients of
the earlier revision subscribe to one URI at a time and get `notifications/resources/updated` on
their connection. A subscription belongs to a connection and to the user it acts for: a change
is announced to that user's connections only, and a closed connection's subscriptions go with it.
"""

from __future__ import annotations

import logging
import re
import weakref
from collections.abc import Iterable
from typing import Any

from mcp import MCPError
from mcp.server import MCPServer
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.types import INVALID_PARAMS, EmptyResult, SubscribeRequestParams, UnsubscribeRequestParams

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.call_context import connection_of

logger = logging.getLogger(__name__)


class Watcher:
    """One connection's subscriptions: whose kitchen it watches, and which URIs."""

    def __init__(self, user_id: str) -> None:
        self.user_id = user_id
        self.uris: set[str] = set()


class Subscriptions:
    """Every handshake-era connection's subscriptions, forgotten with the connection; `on_*` are the request handlers."""

    def __init__(self, server: MCPServer[AlfredApp], app: AlfredApp) -> None:
        self.server, self.app = server, app
        self._watchers: weakref.WeakKeyDictionary[Connection, Watcher] = weakref.WeakKeyDictionary()

    async def on_subscribe(self, ctx: ServerRequestContext[Any, Any], params: SubscribeRequestParams) -> EmptyResult:
        await _check_known(self.server, params.uri)
        self.subscribe(connection_of(ctx), self.app.user_id, params.uri)
        return EmptyResult()

    async def on_unsubscribe(self, ctx: ServerRequestContext[Any, Any], params: UnsubscribeRequestParams) -> EmptyResult:
        self.unsubscribe(connection_of(ctx), params.uri)
        return EmptyResult()

    def subscribe(self, connection: Connection, user_id: str, uri: str) -> None:
        watcher = self._watchers.get(connection)
        if watcher is None or watcher.user_id != user_id:
            watcher = self._watchers[connection] = Watcher(user_id)
        watcher.uris.add(uri)

    def unsubscribe(self, connection: Connection, uri: str) -> None:
        watcher = self._watchers.get(connection)
        if watcher is not None:
            watcher.uris.discard(uri)

    def watching(self, user_id: str) -> int:
        """How many URIs the user's live connections watch (for tests and logs)."""
        return sum(len(w.uris) for w in list(self._watchers.values()) if w.user_id == user_id)

    async def publish(self, user_id: str, uris: Iterable[str]) -> None:
        """Announce `uris` to the user's connections that subscribed to them (best effort, like every notification)."""
        changed = set(uris)
        for connection, watcher in list(self._watchers.items()):
            if watcher.user_id == user_id:
                for uri in sorted(watcher.uris & changed):
                    await connection.send_resource_updated(uri)


async def _check_known(server: MCPServer[AlfredApp], uri: str) -> None:
    """Raises MCPError -32602 unless `uri` is one of the server's resources or matches one of its templates."""
    resources = [str(r.uri) for r in await server.list_resources()]
    templates = [t.uri_template for t in await server.list_resource_templates()]
    if uri in resources or any(_matches(template, uri) for template in templates):
        return
    raise MCPError(code=INVALID_PARAMS, message=f"Unknown resource: {uri}. Resources: {', '.join(resources + templates)}.",
                   data={"uri": uri})


def _matches(template: str, uri: str) -> bool:
    pattern = "".join("[^/]+" if part.startswith("{") else re.escape(part) for part in re.split(r"(\{\w+\})", template))
    return re.fullmatch(pattern, uri) is not None
