"""CPU-heavy work of one request (reading a page, JSON-LD, an archive) off the event loop.

Two places, each with a limiter of its own (created per event loop) so parsing never takes the
worker threads the store's connections use (anyio's default limiter):

- `off_loop`: a worker thread, PARSE_THREADS at a time. The loop stays free, but a thread parsing
  in Python holds the GIL in turns with it; right for one user (stdio) and for small sources.
- with `isolate`: a worker process, PARSE_PROCESSES at a time, for large sources when the server
  serves many users: their parsing then shares no GIL with the loop that answers everyone else, and
  runs at a lower CPU priority (WORKER_NICENESS), so one user's 5 MB page costs another user's read
  next to nothing even when every core is busy.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_process
from anyio.lowlevel import RunVar

T = TypeVar("T")
PARSE_THREADS = 2
"""How many requests' parsing runs at once in threads; the others wait their turn holding nothing."""
PARSE_PROCESSES = 2
"""How many requests' parsing runs at once in worker processes (the machine's other cores serve the loop)."""
LARGE_SOURCE = 200_000
"""Characters from which a source is parsed in a worker process when the server serves many users."""

WORKER_NICENESS = 10
"""How much lower a parsing process's CPU priority is than the server's (Unix)."""

_THREADS: RunVar[anyio.CapacityLimiter] = RunVar("alfred_parse_threads")
_PROCESSES: RunVar[anyio.CapacityLimiter] = RunVar("alfred_parse_processes")


def _limiter(slot: RunVar[anyio.CapacityLimiter], size: int) -> anyio.CapacityLimiter:
    try:
        return slot.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(size)
        slot.set(limiter)
        return limiter


async def off_loop(work: Callable[..., T], *args: Any, isolate: bool = False) -> T:
    """`work(*args)` in a parsing thread, or with `isolate` in a parsing process (`work` and `args` must then
    pickle: a module-level function and plain data). Its exceptions are raised here."""
    if isolate:
        return await anyio.to_process.run_sync(_at_low_priority, work, *args, limiter=_limiter(_PROCESSES, PARSE_PROCESSES))
    return await anyio.to_thread.run_sync(work, *args, limiter=_limiter(_THREADS, PARSE_THREADS))


_niced = False


def _at_low_priority(work: Callable[..., T], *args: Any) -> T:
    """In a worker process: lower the process's priority once, then `work(*args)`."""
    global _niced
    if not _niced and hasattr(os, "nice"):
        os.nice(WORKER_NICENESS)
        _niced = True
    return work(*args)
