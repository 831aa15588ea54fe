"""A lazily loaded registry's RefSource on Supabase: synchronous PostgREST reads with the user's JWT.

The registry asks from the event loop's thread, synchronously, so this source keeps a plain
`httpx.Client` apart from the async client. Row-level security applies: the token is the
session owner's. `everything` pages by `seq` so a project's `max_rows` cannot cut it short.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import httpx

from alfred_mcp.errors import StoreError
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.ddl import ENTRY_COLUMNS
from alfred_mcp.store.ref_sources import ByColumn, OnDemand
from alfred_mcp.store.supabase.connection import MAX_ROWS, tls_context
from alfred_mcp.store.supabase.query import quote

_CHUNK = 200


def ref_reader(timeout: float) -> OnDemand[httpx.Client]:
    """The synchronous HTTP client every session of one store shares."""
    return OnDemand(lambda: httpx.Client(timeout=timeout, verify=tls_context()), httpx.Client.close)


class SupabaseRefSource(ByColumn):
    """One session's stored refs, read as its user through /rest/v1/alfred_session_refs."""

    def __init__(self, reader: OnDemand[httpx.Client], url: str, key: str, session_id: str, token: Callable[[], str]) -> None:
        self._reader = reader
        self._url = f"{url.rstrip('/')}/rest/v1/alfred_session_refs"
        self._key = key
        self._session_id = session_id
        self._token = token

    def everything(self) -> list[RefEntry]:
        found: list[RefEntry] = []
        last = 0
        while True:
            page = self._get({"seq": f"gt.{last}", "order": "seq", "limit": str(MAX_ROWS)})
            found += [_entry(row) for row in page]
            if len(page) < MAX_ROWS:
                return found
            last = int(page[-1]["seq"])

    def _in(self, column: str, values: Sequence[str]) -> list[RefEntry]:
        found: list[RefEntry] = []
        for start in range(0, len(values), _CHUNK):
            chunk = ",".join(quote(value) for value in values[start:start + _CHUNK])
            found += [_entry(row) for row in self._get({column: f"in.({chunk})"})]
        return found

    def _get(self, params: dict[str, str]) -> list[dict[str, Any]]:
        query = {"select": ",".join([*ENTRY_COLUMNS, "seq"]), "session_id": f"eq.{self._session_id}", **params}
        headers = {"apikey": self._key, "Authorization": f"Bearer {self._token()}"}
        try:
            response = self._reader.use(lambda client: client.get(self._url, params=query, headers=headers))
        except httpx.HTTPError as error:
            raise StoreError(f"Could not read the session's refs: {error}") from error
        if response.status_code != 200:
            raise StoreError(f"Could not read the session's refs (HTTP {response.status_code}).")
        rows: list[dict[str, Any]] = response.json()
        return rows


def _entry(row: dict[str, Any]) -> RefEntry:
    return RefEntry.from_dict({name: row[name] for name in ENTRY_COLUMNS})
