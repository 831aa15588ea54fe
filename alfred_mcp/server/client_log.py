"""The `logging` capability: what the server logs while serving a request, sent to that client too.

A 2025-11-25 client picks a level with `logging/setLevel` (for its connection); a 2026-07-28 client
opts in per request through `_meta["io.modelcontextprotocol/logLevel"]`. What alfred-mcp logs
while serving that request (warnings and errors by default, more with -v), at that level or
above, is sent as `notifications/message` on the request's own stream: the message text only,
never a traceback, and never a line that holds a raw id. A client that sets no level gets nothing.
Records marked `operator_only` (the per-call log of `logs.py`) stay in the server's own log.
"""

from __future__ import annotations

import logging
import warnings
import weakref
from contextvars import ContextVar
from typing import Any, cast

from mcp import MCPDeprecationWarning
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.types import LOG_LEVEL_META_KEY, EmptyResult, LoggingLevel, SetLevelRequestParams

from alfred_mcp.server.call_context import connection_of
from alfred_mcp.server.leak_guard import find_uuid

LEVELS: dict[str, int] = {
    "debug": logging.DEBUG, "info": logging.INFO, "notice": logging.INFO + 5, "warning": logging.WARNING,
    "error": logging.ERROR, "critical": logging.CRITICAL, "alert": logging.CRITICAL + 5, "emergency": logging.CRITICAL + 10,
}
"""MCP (syslog) levels on Python's scale."""
MAX_TEXT = 2000

_collected: ContextVar[list[logging.LogRecord] | None] = ContextVar("alfred_client_log", default=None)


class _Collector(logging.Handler):
    """Keeps the records logged while a request that asked for them is being served."""

    def emit(self, record: logging.LogRecord) -> None:
        pending = _collected.get()
        if pending is not None and not getattr(record, "operator_only", False):
            pending.append(record)


_COLLECTOR = _Collector()


class ClientLog:
    """Each handshake-era connection's chosen level, and the middleware that forwards a request's log to it."""

    def __init__(self) -> None:
        self._levels: weakref.WeakKeyDictionary[Connection, LoggingLevel] = weakref.WeakKeyDictionary()
        package = logging.getLogger("alfred_mcp")
        if _COLLECTOR not in package.handlers:
            package.addHandler(_COLLECTOR)

    async def set_level(self, ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams) -> EmptyResult:
        self._levels[connection_of(ctx)] = params.level
        return EmptyResult()

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        level = self._level_for(ctx)
        if level is None:
            return await call_next(ctx)
        records: list[logging.LogRecord] = []
        token = _collected.set(records)
        try:
            return await call_next(ctx)
        finally:
            _collected.reset(token)
            await self._send(ctx, [r for r in records if r.levelno >= LEVELS[level]])

    def _level_for(self, ctx: ServerRequestContext[Any, Any]) -> LoggingLevel | None:
        requested = (ctx.meta or {}).get(LOG_LEVEL_META_KEY)
        if requested in LEVELS:
            return cast(LoggingLevel, requested)
        return self._levels.get(connection_of(ctx))

    async def _send(self, ctx: ServerRequestContext[Any, Any], records: list[logging.LogRecord]) -> None:
        for record in records:
            text = record.getMessage()[:MAX_TEXT]
            if find_uuid(text) is not None:
                continue
            with warnings.catch_warnings():  # deprecated from 2026-07-28 (SEP-2577); served on purpose to earlier clients
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                sending = ctx.session.send_log_message(_mcp_level(record.levelno), text, logger=record.name,
                                                       related_request_id=ctx.request_id)
            await sending


def _mcp_level(levelno: int) -> LoggingLevel:
    chosen: LoggingLevel = "debug"
    for name, number in LEVELS.items():
        if levelno >= number:
            chosen = cast(LoggingLevel, name)
    return chosen
