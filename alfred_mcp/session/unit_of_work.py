"""The unit of work: one call's work on one session, committed together or not at all.

It owns the three things that must agree: the session's lock (calls on a session are
serialized), one store transaction (begun by the call's first write; a call that writes no row
opens none, its session save being one atomic store call), and the session save at the end,
inside that transaction. Operations receive a
`UnitOfWork`; nothing else saves a session or opens a transaction.

On failure the transaction rolls back, the cached session is dropped (the next call reloads the
stored one), and a refused call is still written to the turn's call log in a unit of its own.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass

import anyio

from alfred_mcp.config import TurnSettings
from alfred_mcp.errors import AlfredError, SessionConflictError, StoreError
from alfred_mcp.session.documents import UNDO
from alfred_mcp.session.journal import KitchenJournal, journaling
from alfred_mcp.session.manager import SessionManager
from alfred_mcp.session.session import Session
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.known_ids import current_ids
from alfred_mcp.state.undo import MAX_ENTRIES, UndoEntry
from alfred_mcp.store.base import KitchenStore, Store

logger = logging.getLogger(__name__)
MAX_FAILURE_NOTE = 300


class UnitOfWork:
    """What an operation works with: the session, the store, and atomic groups of writes."""

    def __init__(self, store: Store, session: Session, *, call: str = "call", turns: TurnSettings | None = None) -> None:
        self.store = store
        self.session = session
        self.call = call
        self.journal = KitchenJournal()
        """The kitchen rows this unit writes (through a JournalingStore), kept for kitchen_undo."""
        self.turns = turns or TurnSettings()
        """The context windows and quick-mode gate this call's turn logic follows (from the settings)."""
        self._transaction: AbstractAsyncContextManager[None] | None = None
        self._after_commit: list[Callable[[], Awaitable[None]]] = []

    def after_commit(self, callback: Callable[[], Awaitable[None]]) -> None:
        """Run `callback` once this call's writes and session are committed; never if they roll back.

        For what must not be said before it is true (a batch save announcing saved refs). Callbacks
        run in order; one that fails is logged, since the call itself has succeeded.
        """
        self._after_commit.append(callback)

    @property
    def user_id(self) -> str:
        return self.session.user_id

    @asynccontextmanager
    async def atomic(self) -> AsyncIterator[None]:
        """All writes of the block or none of them, inside the call's transaction.

        The first block begins the call's transaction; a later (or nested) one is a savepoint in
        it. A failure inside a block undoes that block; it still fails the call unless the caller
        handles it (a partial batch save goes on with the next item).
        """
        mark = self.journal.mark()
        if self._transaction is not None:
            try:
                async with self.store.transaction():
                    yield
            except BaseException:
                self.journal.rollback_to(mark)
                raise
            return
        self._transaction = self.store.transaction()
        await self._transaction.__aenter__()
        try:
            yield
        except BaseException as error:
            self.journal.rollback_to(mark)
            await self._end(error)  # the transaction began with this block: undoing it undoes the block
            raise

    async def _commit(self) -> None:
        """Save the session (inside the call's transaction when writes opened one) and commit.

        A call that wrote no row and changed only what may wait (`Session.deferrable`: its call-log
        entry, refs seen again) saves nothing now: write-behind carries it (see `flush_deferred`).
        """
        if self.journal.wrote:
            self._keep_for_undo()
        session = self.session
        if session.has_changes:
            if self._transaction is None and session.deferrable:
                session.defer()
            else:
                await session.save(self.store)  # alone it is one atomic store call: no transaction needed
        await self._end(None)
        callbacks, self._after_commit = self._after_commit, []
        for callback in callbacks:
            try:
                await callback()
            except Exception:
                logger.exception("an after-commit callback failed; the call was committed")

    def _keep_for_undo(self) -> None:
        """The journal as the session's newest undo entry; entries beyond the last few are dropped."""
        numbers = undo_numbers(self.session)
        entry = UndoEntry(number=(numbers[-1] if numbers else 0) + 1, turn=self.session.turn, tool=self.call,
                          steps=self.journal.steps, too_large=self.journal.too_large)
        self.session.write(UNDO.at(entry.number), entry)
        for number in numbers[: max(0, len(numbers) + 1 - MAX_ENTRIES)]:
            self.session.write(UNDO.at(number), None)

    async def _end(self, error: BaseException | None) -> None:
        transaction, self._transaction = self._transaction, None
        if transaction is not None:
            await transaction.__aexit__(type(error) if error else None, error, error.__traceback__ if error else None)


def undo_numbers(session: Session) -> list[int]:
    """The numbers of the session's undo entries, oldest first (read without parsing the entries)."""
    return sorted(int(suffix) for suffix in session.family_suffixes(UNDO) if suffix.isdigit())


@dataclass(frozen=True)
class CallScope:
    """Which call a unit serves, for the call log when it is refused."""

    tool: str
    table: str | None = None
    log_refusals: bool = True
    """Tool calls are logged when refused; reads of resources, prompts and completions are not."""


@asynccontextmanager
async def unit_of_work(
    sessions: SessionManager, store: Store, user_id: str, session_name: str | None, scope: CallScope,
    turns: TurnSettings | None = None,
) -> AsyncIterator[UnitOfWork]:
    """Run one call on the user's session (`session_name`, or the current one) as a unit of work.

    Raises:
        UnknownSessionError: no such session.
        SessionConflictError: another process saved the session while this call ran; nothing was saved.
        AlfredError: whatever the operation raised; the call's writes are rolled back, the call logged.
    """
    try:
        async with sessions.acting_on(user_id, session_name) as session:
            work = UnitOfWork(store, session, call=scope.tool, turns=turns)
            known = current_ids()
            if known is not None:  # the leak guard also knows every row id the session's registry holds
                known.add_source(lambda row_ids: work.session.registry.holds_any_row(row_ids))
            try:
                with journaling(work.journal):
                    yield work
                await work._commit()
            except BaseException as error:
                await work._end(error)
                raise
    except AlfredError as error:
        if scope.log_refusals and not error.protocol_slip:
            await _log_refusal(sessions, store, user_id, session_name, scope, error)
        raise


async def _log_refusal(
    sessions: SessionManager, store: Store, user_id: str, session_name: str | None, scope: CallScope, error: AlfredError
) -> None:
    """Write a refused call to its turn's call log, in a unit of its own (the failed one rolled back)."""
    try:
        async with sessions.acting_on(user_id, session_name) as session:
            record = CallRecord(turn=session.turn, tool=scope.tool, table=scope.table, outcome="error",
                                error_code=error.code, note=error.message[:MAX_FAILURE_NOTE])
            session.record_call(record)
            await UnitOfWork(store, session)._commit()
    except AlfredError:
        logger.debug("could not record the refused %s call in the call log", scope.tool)


WRITE_BEHIND_SECONDS = 1.0
"""How long a read's deferred changes wait at most (while the server runs) before they are saved."""


async def flush_deferred(sessions: SessionManager, store: Store, *, older_than: float = 0.0) -> int:
    """Save the sessions whose write-behind changes waited `older_than` seconds or more; how many were saved.

    A session another process saved meanwhile is dropped (its deferred call-log entries are kept
    and replayed into the next copy); a store failure leaves the changes for the next flush.
    """
    saved = 0
    for session in sessions.deferred(older_than):
        async with session.lock:
            if session.deferred_since is None or not sessions.holds(session):
                continue  # a call saved it meanwhile, or the copy was dropped (its entries are replayed elsewhere)
            try:
                await session.save(store)
                saved += 1
            except SessionConflictError:
                sessions.forget(session)
            except StoreError:
                logger.warning("could not save %s's deferred changes; retrying later", session.name, exc_info=True)
    return saved


async def write_behind(sessions: SessionManager, store: Store, *, every: float = WRITE_BEHIND_SECONDS) -> None:
    """Flush deferred session changes every `every` seconds, until cancelled (then once more)."""
    try:
        while True:
            await anyio.sleep(every)
            await flush_deferred(sessions, store, older_than=every)
    finally:
        with anyio.CancelScope(shield=True):
            await flush_deferred(sessions, store)


@asynccontextmanager
async def kitchen_setup(store: KitchenStore) -> AsyncIterator[None]:
    """Kitchen writes that belong to no session (laying the demo kitchen): one transaction."""
    async with store.transaction():
        yield
