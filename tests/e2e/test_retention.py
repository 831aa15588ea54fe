"""Retention: a session keeps its per-turn documents for a window of turns, so a long session costs what a short one does."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.session.documents import CALLS, NARRATIVE_INDEX, NARRATIVES, PER_TURN, turn_of

from .helpers import call

pytestmark = pytest.mark.anyio
WINDOW = 3


async def _turns_kept(app: AlfredApp) -> dict[str, set[int]]:
    record = await app.store.current_session(app.user_id)
    assert record is not None
    documents = await app.store.load_documents(record.session_id)
    kept: dict[str, set[int]] = {family.prefix: set() for family in PER_TURN}
    for key in documents:
        for family in PER_TURN:
            if key.startswith(family.prefix) and (turn := turn_of(family, key)) is not None:
                kept[family.prefix].add(turn)
    return kept


@pytest.mark.parametrize("turns", [2, 9])
async def test_per_turn_documents_older_than_the_window_are_dropped(tmp_path: Path, turns: int) -> None:
    app = AlfredApp.from_settings(Settings(db=str(tmp_path / "k.db"), seed_demo=True, ledger_turns=WINDOW))
    await app.open()
    async with Client(build_server(app)) as client:
        for turn in range(2, turns + 1):
            await call(client, "turn_begin", message=f"turn {turn}")
            await call(client, "db_read", table="inventory", limit=2)
            await call(client, "db_create", table="tasks", data={"title": f"task {turn}"})
        await call(client, "turn_begin", message="last")
        async with app.work("check") as work:
            index = work.session.read(NARRATIVE_INDEX)
            in_memory = {key for key in work.session.family_suffixes(CALLS)}
            final = work.session.turn
    await app.close()
    kept = await _turns_kept_after_reopen(app)
    called = set(range(1, final))  # every turn before the last made calls (turn_begin itself is not logged)
    assert kept[CALLS.prefix] == {turn for turn in called if turn >= final - WINDOW}
    whole = set(index.whole) if index else set()
    assert kept[NARRATIVES.prefix] - whole <= set(range(final - WINDOW, final + 1))
    assert {int(key.split(":")[0]) for key in in_memory} == kept[CALLS.prefix]


async def _turns_kept_after_reopen(app: AlfredApp) -> dict[str, set[int]]:
    reopened = AlfredApp.from_settings(Settings(db=str(app.store.path), seed_demo=False))  # type: ignore[attr-defined]
    await reopened.open()
    try:
        return await _turns_kept(reopened)
    finally:
        await reopened.close()


async def test_zero_keeps_every_turn(tmp_path: Path) -> None:
    app = AlfredApp.from_settings(Settings(db=str(tmp_path / "k.db"), seed_demo=True, ledger_turns=0))
    await app.open()
    async with Client(build_server(app)) as client:
        for turn in range(2, 8):
            await call(client, "turn_begin", message=f"turn {turn}")
            await call(client, "db_read", table="inventory", limit=1)
    await app.close()
    assert len((await _turns_kept_after_reopen(app))[CALLS.prefix]) == 6  # one turn per turn_begin, none dropped
