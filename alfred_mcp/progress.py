"""Progress reporting without threading a context through every call: the server sets a reporter
for the duration of a tool call; long operations (batch saves) report through it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextvars import ContextVar

Reporter = Callable[[float, float | None, str | None], Awaitable[None]]

_reporter: ContextVar[Reporter | None] = ContextVar("alfred_progress_reporter", default=None)


def set_reporter(reporter: Reporter | None) -> object:
    """Install `reporter` for this task; returns a token for `reset_reporter`."""
    return _reporter.set(reporter)


def reset_reporter(token: object) -> None:
    _reporter.reset(token)  # type: ignore[arg-type]


async def report_progress(done: float, total: float | None = None, message: str | None = None) -> None:
    """Send a progress notification if the current call asked for them; otherwise do nothing."""
    reporter = _reporter.get()
    if reporter is not None:
        await reporter(done, total, message)
