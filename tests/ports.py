"""Loopback ports for the servers the tests start, never the same one for two pytest-xdist workers.

Asking the kernel for port 0 and handing that number to a server started later races: another worker
(or an outgoing connection, which takes its port from the same ephemeral range) can take it in between.
Instead each worker walks its own slice of the ports below Linux's ephemeral range (32768-60999), from a
random point, skipping any port something already holds. Outside xdist the whole range is one slice.
"""

from __future__ import annotations

import itertools
import os
import random
import socket
import threading
from collections.abc import Iterator

FIRST, LAST = 20000, 32767
_lock = threading.Lock()
_cursor: Iterator[int] | None = None


def worker_slice() -> range:
    """This process's ports: slice k of n for xdist worker gw<k> of n (PYTEST_XDIST_WORKER[_COUNT]), else all of them."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    index = int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0
    size = (LAST - FIRST + 1) // max(count, 1)
    start = FIRST + (index % max(count, 1)) * size
    return range(start, start + size)


def free_port() -> int:
    """A loopback port nothing listens on, from this worker's slice; successive calls never repeat one until the
    slice wraps around."""
    global _cursor
    ports = worker_slice()
    with _lock:
        if _cursor is None:
            _cursor = itertools.count(random.randrange(len(ports)))
        for _ in range(len(ports)):
            port = ports[next(_cursor) % len(ports)]
            if _unused(port):
                return port
    raise RuntimeError(f"no free loopback port in {ports.start}-{ports.stop - 1}")


def _unused(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True
