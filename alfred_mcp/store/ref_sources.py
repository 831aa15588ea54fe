"""What every backend's RefSource shares: a client opened on first use, and lookups by ref or row id.

A lazily loaded registry (`state/registry.py`) asks its source synchronously from the event loop's
thread; each backend keeps one synchronous client for that beside its async one (`*/refs.py`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from alfred_mcp.state.registry import RefEntry

C = TypeVar("C")
T = TypeVar("T")


class OnDemand(Generic[C]):
    """A client opened on first use (under a lock: one caller at a time) and closed by close()."""

    def __init__(self, opener: Callable[[], C], closer: Callable[[C], None]) -> None:
        self._opener = opener
        self._closer = closer
        self._client: C | None = None
        self._lock = threading.Lock()

    def use(self, work: Callable[[C], T]) -> T:
        with self._lock:
            if self._client is None:
                self._client = self._opener()
            return work(self._client)

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            self._closer(client)


class ByColumn:
    """`by_refs` and `by_rows` as one lookup of entries whose `ref` or `row_id` is among some values."""

    def by_refs(self, refs: Sequence[str]) -> list[RefEntry]:
        return self._in("ref", refs)

    def by_rows(self, row_ids: Sequence[str]) -> list[RefEntry]:
        return self._in("row_id", row_ids)

    def _in(self, column: str, values: Sequence[str]) -> list[RefEntry]:
        raise NotImplementedError
