"""The MCP request context of the tool call being served, and the connection a request came on.

Only the `chat` tool's `model: "client"` option uses the context (sampling through the client's
model); everything else a call needs travels in its arguments and its unit of work. The
connection keys what a handshake-era client set for itself: its log level, its subscriptions.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext

_context: ContextVar[Any] = ContextVar("alfred_mcp_request_context", default=None)


@contextmanager
def serving(context: Any) -> Iterator[None]:
    """Calls inside the block see `context` (mcp's Context of the request; None in-process)."""
    token = _context.set(context)
    try:
        yield
    finally:
        _context.reset(token)


def current_request_context() -> Any:
    """mcp's Context of the tool call being served, or None (a call made in-process)."""
    return _context.get()


def connection_of(ctx: ServerRequestContext[Any, Any]) -> Connection:
    """The connection a request came on: the SDK hands handlers a per-request session that holds it privately."""
    connection: Connection = ctx.session._connection
    return connection
