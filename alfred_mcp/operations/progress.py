"""Progress of a long operation (a batch save), reported to whoever drives the call.

The server installs a reporter for the duration of a call when the client asked for progress
notifications; operations call `report_progress` and need not know whether anyone listens.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Reporter = Callable[[float, float | None, str | None], Awaitable[None]]
"""(done, total, message): sends one progress notification."""

_reporter: ContextVar[Reporter | None] = ContextVar("alfred_progress_reporter", default=None)


@contextmanager
def reporting_to(reporter: Reporter | None) -> Iterator[None]:
    """Operations run inside the block report their progress to `reporter` (None: to nobody)."""
    token = _reporter.set(reporter)
    try:
        yield
    finally:
        _reporter.reset(token)


async def report_progress(done: float, total: float | None = None, message: str | None = None) -> None:
    """Send a progress notification if the current call asked for them; otherwise do nothing."""
    reporter = _reporter.get()
    if reporter is not None:
        await reporter(done, total, message)
