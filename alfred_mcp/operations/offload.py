"""CPU-heavy work of one request (reading a page, JSON-LD, an archive) off the event loop.

It runs in worker threads of its own limiter (PARSE_THREADS at a time, one per event loop), so a
user importing large pages neither holds the loop that answers everyone else nor takes the worker
threads the store's connections use (anyio's default limiter).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio
from anyio.lowlevel import RunVar

T = TypeVar("T")
PARSE_THREADS = 2
"""How many requests' parsing runs at once; the others wait their turn without holding anything."""

_LIMITER: RunVar[anyio.CapacityLimiter] = RunVar("alfred_parse_limiter")


def _limiter() -> anyio.CapacityLimiter:
    try:
        return _LIMITER.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(PARSE_THREADS)
        _LIMITER.set(limiter)
        return limiter


async def off_loop(work: Callable[[], T]) -> T:
    """`work()` run in a parsing thread; its exceptions are raised here. Cancelling waits for it to end."""
    return await anyio.to_thread.run_sync(work, limiter=_limiter())
