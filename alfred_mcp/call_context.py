"""What the current MCP call offers deeper layers without threading it through every signature:
a progress reporter (batch saves report through it) and the MCP request context (the sampling
provider asks the client's model through it). The server sets both for the duration of a call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any

Reporter = Callable[[float, float | None, str | None], Awaitable[None]]


@dataclass(frozen=True)
class CallContext:
    reporter: Reporter | None = None
    mcp_context: Any = None
    """mcp's Context of the call, when there is one (in-process drivers have none)."""


_current: ContextVar[CallContext] = ContextVar("alfred_call_context", default=CallContext())  # noqa: B039 (frozen)


def enter_call(context: CallContext) -> Token[CallContext]:
    return _current.set(context)


def leave_call(token: Token[CallContext]) -> None:
    _current.reset(token)


def current_call() -> CallContext:
    return _current.get()


async def report_progress(done: float, total: float | None = None, message: str | None = None) -> None:
    """Send a progress notification if the current call asked for them; otherwise do nothing."""
    reporter = _current.get().reporter
    if reporter is not None:
        await reporter(done, total, message)
