"""Session versions on every backend: a save bumps the version only if nobody saved in between."""

from __future__ import annotations

import pytest

from alfred_mcp.errors import SessionConflictError
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import SHOPPING_LIST
from alfred_mcp.session import CallScope, SessionManager, unit_of_work
from alfred_mcp.session.documents import BATCH_COUNTER
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.base import SessionVersion, Store

pytestmark = pytest.mark.anyio


def _entry(n: int) -> RefEntry:
    return RefEntry(f"shop_{n}", "shop", None, f"item {n}", "created", 1, 1)


async def test_a_new_session_is_current_at_version_zero_and_each_save_bumps_it(store: Store, user: str) -> None:
    """Versions start at 0 and count saves; the turn saved is reported with it."""
    record = await store.create_session(user)
    assert await store.session_version(record.session_id) == SessionVersion(0, True, 1)
    await store.save_session_state(record.session_id, turn=2, entries=[_entry(1)], counters={"shop": 1}, expected_version=0)
    await store.save_session_state(record.session_id, turn=3, entries=[], counters={"shop": 1})
    assert await store.session_version(record.session_id) == SessionVersion(2, True, 3)


async def test_a_stale_save_is_refused_and_rolls_back_the_call_with_it(store: Store, user: str) -> None:
    """A save expecting an old version raises a conflict naming the session; the call's row is not kept."""
    record = await store.create_session(user)
    await store.save_session_state(record.session_id, turn=1, entries=[_entry(1)], counters={"shop": 1}, expected_version=0)
    with pytest.raises(SessionConflictError, match="session_1 was changed by another call"):
        async with store.transaction():
            await store.insert(SHOPPING_LIST, [{"name": "lost"}], user_id=user)
            await store.save_session_state(record.session_id, turn=1, entries=[_entry(2)], counters={"shop": 2}, expected_version=0)
    entries, counters = await store.load_session_state(record.session_id)
    assert [e.ref for e in entries] == ["shop_1"] and counters == {"shop": 1}
    assert await store.select(SHOPPING_LIST, Query(), user_id=user) == []


async def test_a_refused_save_writes_none_of_its_documents(store: Store, user: str) -> None:
    """Outside any transaction a save is still all or nothing: a version conflict keeps the old documents."""
    record = await store.create_session(user)
    await store.save_session_state(record.session_id, turn=1, entries=[], counters={}, expected_version=0,
                                   documents={"batch_counter": 1})
    with pytest.raises(SessionConflictError):
        await store.save_session_state(record.session_id, turn=2, entries=[_entry(1)], counters={"shop": 1},
                                       expected_version=0, documents={"batch_counter": 2, "curation": {}})
    assert await store.load_documents(record.session_id) == {"batch_counter": 1}
    assert (await store.session_version(record.session_id)) == SessionVersion(1, True, 1)


async def test_a_manager_reloads_a_session_another_manager_saved(store: Store, user: str) -> None:
    """Two managers on one store (two replicas) continue each other's refs and counters."""
    first, second = SessionManager(store), SessionManager(store)
    async with unit_of_work(first, store, user, None, CallScope("test")) as work:
        ref = work.session.registry.register_row("shop", "row-1", "milk", turn=1, action="created")
        work.session.write(BATCH_COUNTER, 1)
    async with unit_of_work(second, store, user, None, CallScope("test")) as work:
        session = work.session
        assert session.read(BATCH_COUNTER) == 1 and session.registry.resolve(ref) == "row-1"
        assert session.registry.register_row("shop", "row-2", "eggs", turn=1, action="created") == "shop_2"
        session.write(BATCH_COUNTER, 2)
    async with unit_of_work(first, store, user, None, CallScope("test")) as work:
        assert work.session.read(BATCH_COUNTER) == 2 and work.session.version == 2
        assert work.session.registry.resolve("shop_2") == "row-2"
