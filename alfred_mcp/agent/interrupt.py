"""Stopping a turn from outside (a signal, a client's cancellation) without losing what it finished.

`Interrupt.request(reason)` cancels the model call in flight (and any wait registered with `scope()`); the
loop then ends the turn as blocked with that reason, inside its own unit of work, so the turn is saved.
`finish_despite_cancellation` lets a task that is itself cancelled (an MCP request the client cancelled)
turn that cancellation into an interrupt and wait for the turn to end cleanly before it gives way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import anyio

T = TypeVar("T")


class Interrupt:
    """A request to stop the current turn now; `reason` is None until one arrives."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.signal: int | None = None
        """The signal number when a signal asked (the CLI exits 128 + it)."""
        self._scopes: set[anyio.CancelScope] = set()

    def request(self, reason: str, *, signal: int | None = None) -> None:
        """Stop: the first reason is kept; every registered scope is cancelled."""
        if self.reason is None:
            self.reason, self.signal = reason, signal
        for scope in list(self._scopes):
            scope.cancel()

    @contextmanager
    def scope(self) -> Iterator[anyio.CancelScope]:
        """A cancel scope that an interrupt cancels (at once, if one already came)."""
        with anyio.CancelScope() as scope:
            self._scopes.add(scope)
            if self.reason is not None:
                scope.cancel()
            try:
                yield scope
            finally:
                self._scopes.discard(scope)


async def finish_despite_cancellation(body: Callable[[], Awaitable[T]], interrupt: Interrupt, reason: str) -> T:
    """Run `body` shielded; if the caller is cancelled meanwhile, interrupt it with `reason`, let it end, then give way."""
    outcome: list[T] = []
    failure: list[BaseException] = []
    done = anyio.Event()

    async def shielded() -> None:
        with anyio.CancelScope(shield=True):
            try:
                outcome.append(await body())
            except Exception as error:  # handed to the caller below
                failure.append(error)
            finally:
                done.set()

    async with anyio.create_task_group() as group:
        group.start_soon(shielded)
        try:
            await done.wait()
        except anyio.get_cancelled_exc_class():
            interrupt.request(reason)
            raise
    if failure:
        raise failure[0]
    return outcome[0]
