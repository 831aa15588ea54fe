"""Reads do not write, and nothing of a session's truth is lost: refs a client saw are always stored.

A read of rows the session knows saves nothing; its call-log entry waits (write-behind) for the
next save, the manager's flush or close. A read that gives new refs saves them before it returns,
so a crash right after it leaves no client holding a ref the store does not know.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import INVENTORY
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.session import SessionManager
from alfred_mcp.session.unit_of_work import write_behind
from alfred_mcp.store.base import Store

from .helpers import call, call_error

pytestmark = pytest.mark.anyio


async def _version(app: AlfredApp) -> int:
    record = await app.store.current_session(app.user_id)
    assert record is not None
    found = await app.store.session_version(record.session_id)
    assert found is not None
    return found.number


async def _stored_calls(store: Store, app: AlfredApp) -> list[str]:
    record = await store.current_session(app.user_id)
    assert record is not None
    documents = await store.load_documents(record.session_id)
    return [value["tool"] for key, value in sorted(documents.items()) if key.startswith("ledger:")]


async def _reopened(app: AlfredApp) -> AlfredApp:
    """A second process on the same file (the first one neither flushed nor closed: as after a crash)."""
    other = AlfredApp.from_settings(Settings(db=str(app.store.path), seed_demo=False))  # type: ignore[attr-defined]
    await other.open()
    return other


async def test_a_read_of_known_rows_saves_nothing(app: AlfredApp, client: Client) -> None:
    await call(client, "db_read", table="inventory", limit=5)
    after_first = await _version(app)
    await call(client, "db_read", table="inventory", limit=5)
    await call(client, "db_read", table="inventory", limit=3)
    assert await _version(app) == after_first


async def test_refs_a_read_gave_survive_a_crash_and_only_deferred_log_entries_are_lost(app: AlfredApp, client: Client) -> None:
    first = await call(client, "db_read", table="inventory", limit=5)
    again = await call(client, "db_read", table="inventory", limit=5)
    assert [row["id"] for row in again["rows"]] == [row["id"] for row in first["rows"]]
    crashed = await _reopened(app)
    try:
        async with crashed.work("check") as work:
            for row in first["rows"]:
                where = Where(all_of=(Filter("id", "eq", work.session.registry.resolve(row["id"])),))
                (stored,) = await crashed.store.select(INVENTORY, Query(where=where), user_id=crashed.user_id)
                assert stored["name"] == row["name"]
        assert await _stored_calls(crashed.store, crashed) == ["db_read"]  # the second read's entry was still deferred
    finally:
        await crashed.close()


async def test_deferred_entries_reach_the_store_with_the_next_write_and_at_close(tmp_path: Path) -> None:
    app = AlfredApp.from_settings(Settings(db=str(tmp_path / "k.db"), seed_demo=True))
    await app.open()
    async with Client(build_server(app)) as client:
        await call(client, "db_read", table="inventory", limit=2)
        await call(client, "db_read", table="inventory", limit=2)
        await call(client, "db_create", table="tasks", data={"title": "Defrost"})
        assert await _stored_calls(app.store, app) == ["db_read", "db_read", "db_create"]
        await call(client, "db_read", table="tasks")
    await app.close()
    reopened = await _reopened(app)
    try:
        assert await _stored_calls(reopened.store, reopened) == ["db_read", "db_read", "db_create", "db_read"]
    finally:
        await reopened.close()


async def test_a_refused_call_keeps_the_deferred_entries_of_the_calls_before_it(app: AlfredApp, client: Client) -> None:
    await call(client, "db_read", table="inventory", limit=2)
    await call(client, "db_read", table="inventory", limit=2)
    await call_error(client, "db_read", table="inventory", filters=[{"field": "colour", "op": "eq", "value": "red"}])
    await call(client, "db_create", table="tasks", data={"title": "Shop"})
    assert await _stored_calls(app.store, app) == ["db_read", "db_read", "db_read", "db_create"]


async def test_a_running_server_saves_deferred_entries_within_its_interval(app: AlfredApp, client: Client) -> None:
    await call(client, "db_read", table="inventory", limit=2)
    await call(client, "db_read", table="inventory", limit=2)
    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(lambda: write_behind(app.sessions, app.store, every=0.02))
            while await _stored_calls(app.store, app) != ["db_read", "db_read"]:
                await anyio.sleep(0.02)
            group.cancel_scope.cancel()


async def test_deferred_entries_survive_another_replica_saving_first(app: AlfredApp, client: Client) -> None:
    """The cached copy is reloaded; the entries it had deferred are replayed after the other replica's."""
    await call(client, "db_read", table="inventory", limit=2)
    await call(client, "db_read", table="inventory", limit=2)
    other = SessionManager(app.store)
    async with (await _unit(other, app)) as work:
        work.session.turn += 1
    await call(client, "db_create", table="tasks", data={"title": "Shop"})
    assert await _stored_calls(app.store, app) == ["db_read", "db_read", "db_create"]


async def _unit(sessions: SessionManager, app: AlfredApp):  # type: ignore[no-untyped-def]
    from alfred_mcp.session import CallScope, unit_of_work

    return unit_of_work(sessions, app.store, app.user_id, None, CallScope("other replica"))
