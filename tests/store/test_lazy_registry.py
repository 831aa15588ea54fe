"""A large session's registry loads lazily, on every backend: recent entries first, the rest on demand.

RESIDENT_REFS is lowered to 3 so a session of a dozen refs is "large"; every lookup a call makes
(by ref, by row id, all of them) must answer exactly as the fully loaded registry does.
"""

from __future__ import annotations

import pytest

from alfred_mcp.errors import DeletedRefError, UnknownRefError
from alfred_mcp.session import CallScope, SessionManager, manager, unit_of_work
from alfred_mcp.session.unit_of_work import flush_deferred
from alfred_mcp.state.registry import RefEntry, SessionIdRegistry
from alfred_mcp.store.base import Store

pytestmark = pytest.mark.anyio
REFS = 12


@pytest.fixture(autouse=True)
def small_resident_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manager, "RESIDENT_REFS", 3)


def _row(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


async def _session_with_refs(store: Store, user: str) -> str:
    record = await store.create_session(user)
    entries = [RefEntry(f"recipe_{n}", "recipe", _row(n), f"Recipe {n}", "read", n, n, deleted_turn=12 if n == 2 else None)
               for n in range(1, REFS + 1)]
    await store.save_session_state(record.session_id, turn=REFS, entries=entries, counters={"recipe": REFS})
    return record.session_id


async def test_the_store_loads_only_the_newest_entries_with_every_counter(store: Store, user: str) -> None:
    session_id = await _session_with_refs(store, user)
    entries, counters = await store.load_session_state(session_id, recent=3)
    assert [e.ref for e in entries] == ["recipe_10", "recipe_11", "recipe_12"] and counters == {"recipe": REFS}
    whole, _ = await store.load_session_state(session_id, recent=REFS)
    assert len(whole) == REFS


async def test_every_lookup_of_a_lazy_registry_answers_as_the_whole_one(store: Store, user: str) -> None:
    await _session_with_refs(store, user)
    async with unit_of_work(SessionManager(store), store, user, None, CallScope("test")) as work:
        registry = work.session.registry
        assert not registry.complete and len(registry) == REFS
        assert registry.resolve("recipe_1", expected_type="recipe") == _row(1)
        assert registry.ref_for_row(_row(4)) == "recipe_4"
        assert registry.register_row("recipe", _row(5), "Recipe 5", turn=REFS, action="read") == "recipe_5"
        assert registry.register_row("recipe", _row(99), "New", turn=REFS, action="read") == f"recipe_{REFS + 1}"
        with pytest.raises(DeletedRefError):
            registry.resolve("recipe_2")
        with pytest.raises(UnknownRefError, match=r"knows recipe_1, recipe_3\.\.recipe_13;"):
            registry.resolve("recipe_40")
        assert registry.complete
        assert [e.ref for e in registry.entries()] == [f"recipe_{n}" for n in range(1, REFS + 2)]


async def test_a_lazy_registry_fetches_many_rows_in_one_ask(store: Store, user: str) -> None:
    """prefetch_rows: rows with refs come back, rows without are remembered as absent (no second ask)."""
    session_id = await _session_with_refs(store, user)
    asked: list[int] = []
    source = store.ref_source(session_id)
    assert source is not None

    class Counting:
        def by_refs(self, refs: list[str]) -> list[RefEntry]:
            return source.by_refs(refs)

        def by_rows(self, rows: list[str]) -> list[RefEntry]:
            asked.append(len(rows))
            return source.by_rows(rows)

        def everything(self) -> list[RefEntry]:
            return source.everything()

    entries, counters = await store.load_session_state(session_id, recent=3)
    registry = SessionIdRegistry(entries, counters, source=Counting())
    registry.prefetch_rows([_row(n) for n in (1, 3, 11, 50, 51)])
    assert asked == [4]  # row 11 was resident
    assert [registry.ref_for_row(_row(n)) for n in (1, 3, 50)] == ["recipe_1", "recipe_3", None] and asked == [4]


async def test_a_lazy_registry_saves_old_entries_it_changed_without_duplicating_them(store: Store, user: str) -> None:
    session_id = await _session_with_refs(store, user)
    sessions = SessionManager(store)
    async with unit_of_work(sessions, store, user, None, CallScope("test")) as work:
        work.session.registry.set_label("recipe_1", "Renamed")
        work.session.registry.touch("recipe_3", turn=REFS + 1)
    await flush_deferred(sessions, store)  # a label and a last-seen turn wait for write-behind
    entries, _ = await store.load_session_state(session_id)
    assert [e.ref for e in entries] == [f"recipe_{n}" for n in range(1, REFS + 1)]
    assert entries[0].label == "Renamed" and entries[2].turn_last_ref == REFS + 1
