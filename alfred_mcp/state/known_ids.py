"""The database ids one request has in hand, so the leak guard can tell them from text people gave.

A row id reaches the server's memory in two ways only: in rows the store returns (their `id`,
`user_id` and foreign key columns), and in the session's registry (ref <-> row id). A request opens
`knowing_ids()`; the store the units of work use notes the ids of every row it returns
(`session/id_noting.py`), and each unit of work adds its session's registry as a source. The leak
guard then refuses an outgoing payload only when UUID-shaped text in it is one of these ids. Text a
person gave (a URL, a note, a message) is data: it is stored and returned as given.

Ids are noted as the store gives them (lower-case, dashed) at the cost of a set insert; a UUID-shaped
text is compared in every form (dashed, compact, any case), so a compact or upper-case copy of an id is
the same id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_current: ContextVar[KnownIds | None] = ContextVar("alfred_known_ids", default=None)
_ID_HEX = 32
_SOURCE_WINDOWS = 97
"""A hex run of up to 128 digits (four ids side by side) is checked at every offset against the sources."""


class KnownIds:
    """The row ids of one request: noted ones, and sources (registries) asked only when text looks like an id."""

    def __init__(self) -> None:
        self._ids: set[str] = set()
        self._sources: list[Callable[[list[str]], bool]] = []

    def note(self, ids: Iterable[object]) -> None:
        """Remember these ids (None and other values that are no text are skipped)."""
        self._ids.update(value for value in ids if isinstance(value, str))

    def add_source(self, knows: Callable[[list[str]], bool]) -> None:
        """`knows(ids)` (canonical dashed ids) says whether a source (a session's registry) holds any of them."""
        self._sources.append(knows)

    def knows(self, text: str) -> bool:
        """True when `text` (one UUID-shaped run: dashed, or 32+ hex digits) is, or holds, an id of this request."""
        compact = text.replace("-", "").lower()
        windows = {compact[start:start + _ID_HEX] for start in range(len(compact) - _ID_HEX + 1)}
        dashed = {f"{w[:8]}-{w[8:12]}-{w[12:16]}-{w[16:20]}-{w[20:]}" for w in windows}
        if not self._ids.isdisjoint(dashed | windows | {text}):
            return True
        if len(windows) > _SOURCE_WINDOWS:  # a long run of hex someone typed: a source is asked about its ends only
            dashed = {f"{w[:8]}-{w[8:12]}-{w[12:16]}-{w[16:20]}-{w[20:]}" for w in (compact[:_ID_HEX], compact[-_ID_HEX:])}
        return any(knows(sorted(dashed)) for knows in self._sources)


@contextmanager
def knowing_ids() -> Iterator[KnownIds]:
    """The request's KnownIds: a new one, or the one a request already opened around this code."""
    found = _current.get()
    if found is not None:
        yield found
        return
    known = KnownIds()
    token = _current.set(known)
    try:
        yield known
    finally:
        _current.reset(token)


def current_ids() -> KnownIds | None:
    """The KnownIds of the request this code runs in, or None outside any request."""
    return _current.get()


def note_ids(ids: Iterable[object]) -> None:
    """Remember `ids` for the current request (nothing happens outside a request)."""
    known = _current.get()
    if known is not None:
        known.note(ids)
