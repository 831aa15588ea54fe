"""The Store protocol: every database read and write alfred-mcp makes goes through it.

A backend (SQLite today; PostgreSQL and Supabase later) implements this contract once:

- Rows are plain dicts of Python values: str, int, float, bool, None, and list[str] for
  `text[]` columns. Dates are 'YYYY-MM-DD' strings, timestamps ISO-8601 strings (UTC).
- `id` values are UUID strings made by the backend on insert; they never leave the server.
- User-owned tables are always scoped to `user_id`: a read, update or delete sees only that
  user's rows, an insert stamps it. `ingredients` is global and ignores `user_id`.
- Table and column names come from the kitchen schema (`Table`), never from input; every
  value is a bound parameter.
- Writes are serialized; `transaction()` makes a group of calls atomic (nested = savepoint).
- Driver exceptions are mapped to `StoreError` / `ConstraintViolationError` inside the backend.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from alfred_mcp.errors import SessionConflictError, StoreError
from alfred_mcp.kitchen.query import Query, Where
from alfred_mcp.kitchen.schema import Table
from alfred_mcp.state.registry import RefEntry

Row = dict[str, Any]
FIRST_TURN = 1
"""A new session starts in turn 1; turn_begin moves it on."""


@dataclass(frozen=True)
class SessionRecord:
    """A conversation session of one user; `number` is what clients see (`session_3`)."""

    session_id: str
    user_id: str
    number: int
    turn: int

    @property
    def name(self) -> str:
        return f"session_{self.number}"


@dataclass(frozen=True)
class SessionVersion:
    """What a call checks before trusting its cached session: every save bumps `number`."""

    number: int
    current: bool
    turn: int


class Store(Protocol):
    """Async database access, scoped per user. See the module docstring for the contract."""

    dialect: str

    async def open(self) -> None:
        """Connect and create or migrate the schema. Idempotent."""

    async def close(self) -> None: ...

    def transaction(self) -> AbstractAsyncContextManager[None]:
        """All store calls inside the block commit together or not at all."""

    async def select(self, table: Table, query: Query, *, user_id: str) -> list[Row]:
        """Rows of `table` matching `query`, with `query.columns` (always including `id`)."""

    async def insert(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        """Insert rows (all or none) and return them as stored, with ids and defaults.

        Raises:
            ConstraintViolationError: a NOT NULL, CHECK, UNIQUE or FK rule was broken.
        """

    async def update(self, table: Table, where: Where, values: Row, *, user_id: str) -> list[Row]:
        """Set `values` on every matching row and return the rows as updated."""

    async def delete(self, table: Table, where: Where, *, user_id: str) -> list[Row]:
        """Delete matching rows (cascading per the schema) and return them as they were."""

    async def count(self, table: Table, where: Where, *, user_id: str) -> int: ...

    async def reset_kitchen(self, user_id: str) -> None:
        """Delete every kitchen row the user owns (the shared catalog stays)."""

    async def ensure_user(self, handle: str) -> str:
        """The user id for `handle` ('local' by default), creating the user on first use."""

    async def current_session(self, user_id: str) -> SessionRecord | None: ...

    async def create_session(self, user_id: str) -> SessionRecord:
        """A new session numbered after the user's last one; it becomes the current one."""

    async def get_session(self, user_id: str, number: int) -> SessionRecord | None: ...

    async def load_session_state(self, session_id: str) -> tuple[list[RefEntry], dict[str, int]]:
        """The session's registry entries (in ref order) and its per-type counters."""

    async def session_version(self, session_id: str) -> SessionVersion | None:
        """The session's saved version, whether it is its user's current one, its turn (None: no such session)."""

    async def save_session_state(
        self,
        session_id: str,
        *,
        turn: int,
        entries: Sequence[RefEntry],
        counters: Mapping[str, int],
        expected_version: int | None = None,
        documents: Mapping[str, Any] | None = None,
    ) -> None:
        """Upsert only the given (changed) entries and the counters; set the session's turn; bump its version.

        With `expected_version`, the save happens only if the stored version still equals it
        (compare-and-set, atomic with the rest of the caller's transaction). `documents`
        (key -> JSON, None deletes) are saved with it.

        Raises:
            SessionConflictError: the stored version moved on (another call or replica saved first).
        """

    async def load_documents(self, session_id: str) -> dict[str, Any]:
        """Every JSON document of the session (drafts, batches, constraints, ...), by key."""

    async def save_documents(self, session_id: str, changed: Mapping[str, Any]) -> None:
        """Upsert the changed documents; a value of None deletes that key."""


def bump_version_sql(placeholder: str, expected_version: int | None) -> tuple[str, tuple[int, ...]]:
    """UPDATE of a session's turn that bumps its version, guarded by `expected_version` when given.

    Parameters: (turn, session id, *the returned params). It changes no row when the session is
    gone or its version moved on; the row lock it takes queues saves of one session across processes.
    """
    sql = (
        f'UPDATE "alfred_sessions" SET "turn" = {placeholder}, "version" = "version" + 1 WHERE "id" = {placeholder}'
    )
    if expected_version is None:
        return sql, ()
    return f'{sql} AND "version" = {placeholder}', (expected_version,)


def session_save_refused(number: int | None) -> StoreError | SessionConflictError:
    """The error for a session save that changed no row: the session is gone (None) or was changed."""
    if number is None:
        return StoreError("The session no longer exists in the store.", field="session")
    name = f"session_{number}"
    return SessionConflictError(
        f"{name} was changed by another call while this one ran; nothing of this call was saved. Retry the call.",
        field="session", value=name,
    )


KitchenStore = Store
"""Kitchen rows (interim alias until the protocol is split)."""
SessionStore = Store
"""Session persistence (interim alias until the protocol is split)."""
