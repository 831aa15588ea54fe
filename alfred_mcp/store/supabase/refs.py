"""A lazily loaded registry's RefSource on Supabase: synchronous PostgREST reads with the user's JWT.

The registry asks from the event loop's thread, synchronously, so this source keeps a plain
`httpx.Client` apart from the async client. Row-level security applies: the token is the
session owner's. `everything` pages by `seq` so a project's `max_rows` cannot cut it short.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from alfred_mcp.errors import StoreError
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.ddl import ENTRY_COLUMNS
from alfred_mcp.store.supabase.query import quote

_PAGE = 1000
_CHUNK = 200


class RefReader:
    """The synchronous HTTP client every session of one store shares, made on first use."""

    def __init__(self, url: str, key: str, timeout: float) -> None:
        self._url = f"{url.rstrip('/')}/rest/v1/alfred_session_refs"
        self._key = key
        self._timeout = timeout
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def rows(self, params: dict[str, str], token: str) -> list[dict[str, Any]]:
        headers = {"apikey": self._key, "Authorization": f"Bearer {token}"}
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(timeout=self._timeout)
            try:
                response = self._client.get(self._url, params=params, headers=headers)
            except httpx.HTTPError as error:
                raise StoreError(f"Could not read the session's refs: {error}") from error
        if response.status_code != 200:
            raise StoreError(f"Could not read the session's refs (HTTP {response.status_code}).")
        found: list[dict[str, Any]] = response.json()
        return found

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()


class SupabaseRefSource:
    """One session's stored refs, read as its user."""

    def __init__(self, reader: RefReader, session_id: str, token: Callable[[], str]) -> None:
        self._reader = reader
        self._session_id = session_id
        self._token = token

    def by_refs(self, refs: Sequence[str]) -> list[RefEntry]:
        return self._in("ref", refs)

    def by_rows(self, row_ids: Sequence[str]) -> list[RefEntry]:
        return self._in("row_id", row_ids)

    def everything(self) -> list[RefEntry]:
        found: list[RefEntry] = []
        last = 0
        while True:
            page = self._reader.rows(
                {**self._base(), "seq": f"gt.{last}", "order": "seq", "limit": str(_PAGE)}, self._token()
            )
            found += [_entry(row) for row in page]
            if len(page) < _PAGE:
                return found
            last = int(page[-1]["seq"])

    def _in(self, column: str, values: Sequence[str]) -> list[RefEntry]:
        found: list[RefEntry] = []
        for start in range(0, len(values), _CHUNK):
            chunk = ",".join(quote(value) for value in values[start:start + _CHUNK])
            found += [_entry(row) for row in self._reader.rows({**self._base(), column: f"in.({chunk})"}, self._token())]
        return found

    def _base(self) -> dict[str, str]:
        return {"select": ",".join([*ENTRY_COLUMNS, "seq"]), "session_id": f"eq.{self._session_id}"}


def _entry(row: dict[str, Any]) -> RefEntry:
    return RefEntry.from_dict({name: row[name] for name in ENTRY_COLUMNS})
