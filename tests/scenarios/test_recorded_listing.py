"""A conversation recorded through a listing (ALFRED_LISTED) is replayed with it: `live.py` starts its stdio server with
the listing, `export` keeps it in the recording, and the replay serves it, so every answer reads as it did live."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from e2e.conftest import SeededKitchens

from .live import _call, export
from .recorded import recording_of, replay
from .scripts import CATEGORY_SEARCH

pytestmark = pytest.mark.anyio
SEARCH = CATEGORY_SEARCH.turns[0]


async def test_a_conversation_recorded_through_the_stage_listing_replays_with_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seeded_kitchens: SeededKitchens) -> None:
    monkeypatch.setenv("ALFRED_LISTED", "stages")
    db = tmp_path / "kitchen.db"
    listed = json.loads(await _call(db, "list", [], ""))
    assert {tool["name"] for tool in listed} == {"turn_start", "turn_submit", "turn_context", "turn_abandon"}
    ahead = [{"role": "understand", "output": SEARCH.outputs["understand"][0]}, {"role": "think", "output": SEARCH.outputs["think"][0]}]
    await _call(db, "call", ["turn_start", json.dumps({"message": SEARCH.message, "then": ahead})], "t1")
    for role, output in [*(("act", output) for output in SEARCH.outputs["act"]), ("reply", SEARCH.outputs["reply"][0])]:
        said = await _call(db, "call", ["turn_submit", json.dumps({"role": role, "output": output})], "t1")
        assert not said.startswith("ERROR"), said
    data = export(db, "listed_search")
    assert data["listed"] == ["stages"]
    recording = recording_of(json.loads(json.dumps(data)))
    assert recording.listed == ("stages",)
    (tmp_path / "replay").mkdir()
    [replayed] = await replay(recording, tmp_path / "replay", seeded_kitchens)
    [turn] = recording.turns
    assert not replayed.diverged and replayed.digest == turn.digest
    assert replayed.bytes == turn.bytes, "the replay's answers read as the live ones did: the same listing"
