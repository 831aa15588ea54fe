"""'Undo that' after a turn that wrote nothing: kitchen_undo does not revert an earlier turn's write as if it were
'that'. It reverts a write of this turn or the one before; else it refuses naming the write and its turn, and reverts
it when the call names that turn. Through the real client (2026-07-28; test_era_parity.py proves the 2025-11-25 era answers the same)."""

from __future__ import annotations

import pytest
from mcp import Client

from .helpers import call, call_error, eq

pytestmark = pytest.mark.anyio


async def _write_then_quiet_turns(client: Client, quiet: int) -> tuple[str, int]:
    """A task written in one turn, then `quiet` turns that only read: the task's ref and the turn it was written in."""
    begun = await call(client, "turn_begin")
    created = await call(client, "db_create", table="tasks", data={"title": "Defrost the chicken"})
    for _ in range(quiet):
        await call(client, "turn_begin")
        await call(client, "db_read", table="tasks", limit=1)
    return created["rows"][0]["id"], begun["turn"]


async def _exists(client: Client, ref: str) -> bool:
    return bool((await call(client, "db_read", table="tasks", filters=[eq("title", "Defrost the chicken")]))["rows"])


@pytest.mark.parametrize("quiet", [0, 1])
async def test_undo_reverts_the_write_of_this_turn_or_the_one_before(client: Client, quiet: int) -> None:
    ref, turn = await _write_then_quiet_turns(client, quiet)
    undone = await call(client, "kitchen_undo")
    assert undone["undone"] == {"tool": "db_create", "turn": turn} and undone["removed"][0]["ref"] == ref
    assert not await _exists(client, ref)


@pytest.mark.parametrize("quiet", [2, 3])
async def test_after_a_turn_that_wrote_nothing_undo_names_the_earlier_write_and_changes_nothing(client: Client, quiet: int) -> None:
    ref, turn = await _write_then_quiet_turns(client, quiet)
    error = await call_error(client, "kitchen_undo")
    assert (error["code"], error["reason"], error["tool"], error["turn"]) == ("undo_conflict", "latest_turn_wrote_nothing", "db_create", turn)
    assert f"turn {turn}" in error["message"] and "Defrost the chicken" in error["message"] and "turn:" in error["message"]
    assert await _exists(client, ref)
    wrong = await call_error(client, "kitchen_undo", turn=turn + 1)
    assert wrong["reason"] == "not_that_turn" and await _exists(client, ref)
    undone = await call(client, "kitchen_undo", turn=turn)
    assert undone["undone"]["turn"] == turn and not await _exists(client, ref)
