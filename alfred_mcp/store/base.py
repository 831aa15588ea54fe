"""The store contract: every database read and write alfred-mcp makes goes through it.

Two halves, one seam: `KitchenStore` holds the user's kitchen rows, `SessionStore` a
conversation's refs, counters, documents and version. `Store` is both on ONE connection, because
a call's row writes and its session save must commit in one transaction. Backends (`sqlite/`,
`postgres/`, `supabase/`) implement `Store`; the contract is written here, once:

- Rows are plain dicts of Python values: str, int, float, bool, None, and list[str] for
  `text[]` columns. Dates are 'YYYY-MM-DD' strings, timestamps ISO-8601 strings (UTC).
- `id` values are UUID strings made by the backend on insert; they never leave the server.
- User-owned tables are always scoped to `user_id`: a read, update or delete sees only that
  user's rows, an insert stamps it. `ingredients` is global and ignores `user_id`.
- Table and column names come from the kitchen schema (`Table`), never from input; every
  value is a bound parameter.
- Writes are serialized; `transaction()` makes a group of calls atomic (nested = savepoint).
- Driver exceptions are mapped to `StoreError` / `ConstraintViolationError` inside the backend:
  any method may raise `StoreError` when the database fails or refuses (busy, unreachable, closed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from alfred_mcp.errors import SessionConflictError, StoreError
from alfred_mcp.kitchen.query import Query, Where
from alfred_mcp.kitchen.schema import Table
from alfred_mcp.state.registry import RefEntry, RefSource

Row = dict[str, Any]
FIRST_TURN = 1
"""A new session starts in turn 1; turn_begin moves it on."""


@dataclass(frozen=True)
class Children:
    """Rows of a child table written with their parents (`KitchenStore.insert_with_children`).

    Row `i` points at the parent row `parents[i]` (its index among the parents) through `column`,
    which the store fills with that parent's new id: the rows leave it out.
    """

    table: Table
    column: str
    rows: Sequence[Row]
    parents: Sequence[int]


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


class StoreConnection(Protocol):
    """What both halves of a store share: the connection's life and its transactions."""

    dialect: str
    """The SQL dialect of its filters and errors: 'sqlite' or 'postgres'."""

    async def open(self) -> None:
        """Connect and create or migrate the schema. Idempotent.

        Raises:
            StoreError: the database cannot be reached, or has another schema version.
        """

    async def close(self) -> None:
        """Release the connection(s); the store can be opened again."""

    def transaction(self) -> AbstractAsyncContextManager[None]:
        """All store calls inside the block commit together or not at all; a nested block is a savepoint.

        Raises:
            StoreError: the commit failed (then nothing of the block was saved).
        """

    def in_transaction(self) -> bool:
        """True inside this task's `transaction()` block (its reads may see writes not committed yet)."""

    async def check_ready(self) -> None:
        """Ask the database whether it can serve this alfred-mcp now (a readiness probe).

        Raises:
            StoreError: the database does not answer, or its migrations or schema version are not this alfred-mcp's.
        """


class KitchenStore(StoreConnection, Protocol):
    """The user's kitchen: rows of the kitchen tables, and the users who own them."""

    async def select(self, table: Table, query: Query, *, user_id: str) -> list[Row]:
        """Rows of `table` matching `query`, with `query.columns` (always including `id`).

        Raises:
            UnknownColumnError, InvalidFilterError: the query does not fit the table's schema.
        """

    async def insert(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        """Insert rows (all or none) and return them as stored, with ids and defaults.

        Raises:
            UnknownColumnError, InvalidPayloadError: a key is not a column, or one the store sets itself.
            ConstraintViolationError: a NOT NULL, CHECK, UNIQUE or FK rule was broken.
        """

    async def insert_with_children(
        self, table: Table, rows: Sequence[Row], children: Sequence[Children], *, user_id: str
    ) -> tuple[list[Row], list[list[Row]]]:
        """Insert parent rows and the child rows pointing at them, all or none, as one write (a recipe with its
        ingredients). Returns the parents as stored and, per `children` group, its rows as stored.

        Raises:
            as `insert`, for whichever table's rows broke a rule.
        """

    async def restore(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        """Put back rows exactly as a select or delete returned them: same ids, same stamps (kitchen_undo).

        Raises:
            UnknownColumnError: a key is not a column.
            ConstraintViolationError: an id is taken, or a foreign key points at a row that is gone.
        """

    async def update(self, table: Table, where: Where, values: Row, *, user_id: str) -> list[Row]:
        """Set `values` on every matching row and return the rows as updated.

        Raises:
            UnknownColumnError, InvalidFilterError: the filter does not fit the table's schema.
            InvalidPayloadError: `values` is empty or names a column the store sets itself.
            ConstraintViolationError: a CHECK, UNIQUE or FK rule was broken.
        """

    async def delete(self, table: Table, where: Where, *, user_id: str) -> list[Row]:
        """Delete matching rows (cascading per the schema) and return them as they were.

        Raises:
            UnknownColumnError, InvalidFilterError: the filter does not fit the table's schema.
        """

    async def count(self, table: Table, where: Where, *, user_id: str) -> int:
        """How many rows match `where`.

        Raises:
            UnknownColumnError, InvalidFilterError: the filter does not fit the table's schema.
        """

    async def reset_kitchen(self, user_id: str) -> None:
        """Delete every kitchen row the user owns (the shared catalog stays)."""

    async def kitchen_stamp(self, user_id: str) -> int:
        """An opaque value that changes with every committed write to the user's kitchen rows and never
        comes back (0: never written). Equal stamps mean the user's rows are as they were."""

    async def table_stamps(self, user_id: str, tables: Sequence[str]) -> tuple[int, ...]:
        """Each named kitchen table's stamp for the user, in order: like `kitchen_stamp`, but changed only by
        committed writes that change the user's rows of that table (a delete's ON DELETE actions included)."""

    async def ensure_user(self, handle: str, *, formerly: str | None = None) -> str:
        """The user id for `handle`, creating the user on first use; a new `handle` takes over the user
        `formerly` names instead, when there is one (renamed, their rows stay theirs)."""


class SessionStore(StoreConnection, Protocol):
    """Conversation sessions: their refs, counters, documents and version, per user."""

    async def current_session(self, user_id: str) -> SessionRecord | None:
        """The user's current session (None: the user has none yet)."""

    async def create_session(self, user_id: str) -> SessionRecord:
        """A new session numbered after the user's last one; it becomes the current one.

        Raises:
            ConstraintViolationError: the user does not exist.
        """

    async def get_session(self, user_id: str, number: int) -> SessionRecord | None:
        """The user's session `session_<number>` (None: the user has no such session)."""

    async def load_session_state(self, session_id: str, *, recent: int | None = None) -> tuple[list[RefEntry], dict[str, int]]:
        """The session's registry entries (in ref order) and its per-type counters.

        With `recent`, only the `recent` entries assigned last (still in ref order); the counters are always whole.
        """

    def ref_source(self, session_id: str) -> RefSource | None:
        """Where a lazily loaded registry of the session finds the entries it lacks (None: load it whole)."""

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
        (key -> JSON, None deletes) are saved with it. The whole save is atomic on its own: outside a
        transaction it is one (state, refs and documents commit together or not at all).

        Raises:
            SessionConflictError: the stored version moved on (another call or replica saved first).
            StoreError: the session no longer exists.
        """

    async def load_documents(self, session_id: str) -> dict[str, Any]:
        """Every JSON document of the session (drafts, batches, constraints, ...), by key."""

    async def save_documents(self, session_id: str, changed: Mapping[str, Any]) -> None:
        """Upsert the changed documents; a value of None deletes that key."""


class Store(KitchenStore, SessionStore, Protocol):
    """Kitchen rows and sessions on one connection: a call's rows and its session save commit together."""


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


async def insert_with_children_in_steps(
    store: KitchenStore, table: Table, rows: Sequence[Row], children: Sequence[Children], *, user_id: str
) -> tuple[list[Row], list[list[Row]]]:
    """`insert_with_children` as separate inserts inside one transaction, for a backend with no single write for it."""
    async with store.transaction():
        parents = await store.insert(table, rows, user_id=user_id)
        stored = []
        for group in children:
            linked = [{**row, group.column: parents[i]["id"]} for row, i in zip(group.rows, group.parents)]
            stored.append(await store.insert(group.table, linked, user_id=user_id))
    return parents, stored
