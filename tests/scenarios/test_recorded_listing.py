"""A conversation recorded through a listing (ALFRED_LISTED) is replayed with it: `live.py` starts its stdio server with
the listing, `export` keeps it in the recording, and the replay serves it, so every answer reads as it did live; the
export also keeps how many outputs sent ahead each call had applied, and what its refs named.

Each test's first call goes through `live.py`'s own stdio server process; its later calls build the same server in this
process (`in_process`), opened on the same kitchen file per call, as a new process would (a process costs seconds)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from e2e.conftest import SeededKitchens

from .live import ROOT, _call, export
from .recorded import recording_of, replay, replay_through_loop
from .scripts import CATEGORY_SEARCH, reply

pytestmark = pytest.mark.anyio
SEARCH = CATEGORY_SEARCH.turns[0]


async def test_a_conversation_recorded_through_the_stage_listing_replays_with_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seeded_kitchens: SeededKitchens) -> None:
    monkeypatch.setenv("ALFRED_LISTED", "stages")
    db = tmp_path / "kitchen.db"
    listed = json.loads(await _call(db, "list", [], ""))
    assert {tool["name"] for tool in listed} == {"turn_start", "turn_submit", "turn_context", "turn_abandon"}
    ahead = [{"role": "understand", "output": SEARCH.outputs["understand"][0]}, {"role": "think", "output": SEARCH.outputs["think"][0]}]
    await _call(db, "call", ["turn_start", json.dumps({"message": SEARCH.message, "then": ahead})], "t1", in_process=True)
    for role, output in [*(("act", output) for output in SEARCH.outputs["act"]), ("reply", SEARCH.outputs["reply"][0])]:
        said = await _call(db, "call", ["turn_submit", json.dumps({"role": role, "output": output})], "t1", in_process=True)
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


def _ahead(*outputs: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"role": role, "output": output} for role, output in outputs]


async def test_an_export_keeps_which_outputs_sent_ahead_were_applied_and_what_each_calls_refs_named(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seeded_kitchens: SeededKitchens) -> None:
    """A reply sent ahead of a lookup is not applied (its model had not read the rows), and the model submits it after
    them: the export, run as a recorder runs it (the repository alone on the path), counts only the outputs applied, so
    the bundled loop is scripted with the replies the turns used; and each call keeps what its refs named."""
    monkeypatch.setenv("ALFRED_LISTED", "stages")
    db = tmp_path / "kitchen.db"
    answer = SEARCH.outputs["reply"][0]
    await _call(db, "call", ["turn_start", json.dumps({"message": SEARCH.message, "then": _ahead(
        ("understand", SEARCH.outputs["understand"][0]), ("think", SEARCH.outputs["think"][0]))})], "t1")
    found = await _call(db, "call", ["turn_submit", json.dumps({"role": "act", "output": SEARCH.outputs["act"][0], "then": _ahead(
        ("act", SEARCH.outputs["act"][1]), ("reply", answer))})], "t1", in_process=True)
    assert "not_applied" in found, found
    await _call(db, "call", ["turn_submit", json.dumps({"role": "reply", "output": answer})], "t1", in_process=True)
    salmon = re.search(r"(recipe_\d+)\W+Miso-Glazed Salmon", found)
    assert salmon, found
    show = {"referenced_refs": [salmon.group(1)], "processed_message": "show the salmon", "quick_mode": True,
            "quick_mode_confidence": 0.9, "quick_read": {"tool": "recipe_show", "arguments": {"recipe": salmon.group(1)}}}
    said = reply("The Miso-Glazed Salmon with Bok Choy: salmon glazed with miso, with bok choy.")
    shown = await _call(db, "call", ["turn_start", json.dumps({"message": "Show me the salmon one", "then": _ahead(
        ("understand", show), ("reply", said))})], "t2", in_process=True)
    assert "not_applied" in shown, shown
    await _call(db, "call", ["turn_submit", json.dumps({"role": "reply", "output": said})], "t2", in_process=True)

    out = tmp_path / "exported.json"
    exported = subprocess.run([sys.executable, "-m", "tests.scenarios.live", "--db", str(db), "export", "listed_lookups", "--out", str(out)],
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, check=False)
    assert exported.returncode == 0 and not exported.stderr.strip(), exported.stderr
    data = json.loads(out.read_text())
    sent = [call for turn in data["turns"] for call in turn["calls"] if call["arguments"].get("then")]
    assert [call["ahead_applied"] for call in sent] == [2, 1, 1]
    assert data["turns"][1]["calls"][0]["named"] == {salmon.group(1): "Miso-Glazed Salmon with Bok Choy"}
    recording = recording_of(data)
    assert [len(turn.role_outputs().get("reply", [])) for turn in recording.turns] == [1, 1]
    (tmp_path / "replay").mkdir()
    replayed = await replay(recording, tmp_path / "replay", seeded_kitchens)
    assert not [line for turn in replayed for line in turn.diverged]
    (tmp_path / "loop").mkdir()
    digests = await replay_through_loop(recording, tmp_path / "loop", seeded_kitchens, replayed)
    assert digests == [turn.digest for turn in recording.turns]
