"""Issue 24's correctness measure: what the state holds and enforces after the recorded conversations, staged vs plain.

Each conversation's latest staged recording and its plain-tool run are replayed call for call; at the checkpoints
(`tests/scenarios/held_probes.py`: the end of each phase of a statement's life and the last turn) every probe of
`tests/scenarios/held_labels.json` is tried on a copy of that kitchen and session, and the server's answer says
whether the state stopped it. It measures what the state enforces when a model forgets, not how well a model does.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from e2e.conftest import SeededKitchens  # noqa: E402
from scenarios.held_probes import HeldTurn, Stated, conversation_of, held_replay, load_labels  # noqa: E402
from scenarios.recorded import Recording, load_recordings  # noqa: E402

from .economy import _plain_of, _round_of  # noqa: E402

SIDES = ("staged", "plain")


def latest_pairs(recordings: dict[str, Recording]) -> dict[str, tuple[Recording, Recording]]:
    """Per conversation, its latest round's staged recording and the plain run beside it (as recorded_turns pairs
    them)."""
    latest: dict[str, Recording] = {}
    for name, recording in recordings.items():
        if recording.plain:
            continue
        conversation = conversation_of(recording)
        if conversation not in latest or int(_round_of(name)) > int(_round_of(latest[conversation].name)):
            latest[conversation] = recording
    pairs: dict[str, tuple[Recording, Recording]] = {}
    for conversation, staged in sorted(latest.items()):
        plain = _plain_of(staged.name, recordings)
        if plain is not None:
            pairs[conversation] = (staged, plain)
    return pairs


EVERY_TURN = "ALFRED_HELD_EVERY_TURN"
"""Set to 1: probe after every turn from each statement's, not only at the checkpoints (about three times as long)."""


async def held_constraints(*, every_turn: bool | None = None) -> dict[str, object]:
    """Per conversation and side: what the session's constraints hold after it against what the user stated, and
    each probe's outcome at each checkpoint (`every_turn`, else $ALFRED_HELD_EVERY_TURN=1: after every turn); per side,
    probes the state got right / probes (`stopped` while a statement held, `passed` once dropped)."""
    if every_turn is None:
        every_turn = os.environ.get(EVERY_TURN) == "1"
    labels = load_labels()
    pairs = latest_pairs({recording.name: recording for recording in load_recordings()})
    out: dict[str, Any] = {}
    totals = {side: {"right": 0, "probes": 0, "stopped": 0, "to_stop": 0, "passed": 0, "to_pass": 0, "failed": 0, "diverged": 0}
              for side in SIDES}
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "seeded").mkdir()
        kitchens = SeededKitchens(Path(folder) / "seeded")
        for conversation, (staged, plain) in pairs.items():
            stated = labels.get(conversation, [])
            entry: dict[str, Any] = {"stated": [_said(item) for item in stated]}
            for side, recording in zip(SIDES, (staged, plain)):
                (made := Path(folder) / recording.name).mkdir()
                turns = await held_replay(recording, stated, made, kitchens, every_turn=every_turn)
                entry[side] = _side(recording, turns)
                _add(totals[side], turns)
            out[conversation] = entry
    for tally in totals.values():
        tally["share"] = round(tally["right"] / max(1, tally["probes"]), 3)
    return {**out, "totals": totals, "probed": "after every turn" if every_turn else "at the checkpoints",
            "labels": "tests/scenarios/held_labels.json",
            "what": "probes of violating actions a model that forgot would take, tried on the end kitchens: what the state "
                    "enforces, not how well a model does",
            "ok": all(tally["failed"] == 0 and tally["diverged"] == 0 for tally in totals.values())}


def _said(item: Stated) -> str:
    dropped = f" (dropped at {item.dropped}: '{item.dropped_words}')" if item.dropped else ""
    return f"{item.turn} '{item.words}': {item.holds}{dropped}"


def _side(recording: Recording, turns: list[HeldTurn]) -> dict[str, Any]:
    results = [result for turn in turns for result in turn.results]
    return {
        "recording": recording.name,
        "holds": turns[-1].holds if turns else [],
        "right": f"{sum(result.ok for result in results)}/{len(results)}",
        "probes": [f"{result.turn} {result.probe}: {result.outcome} (expected {result.expect})" for result in results],
        **({"failed": [f"{r.turn} {r.probe}: {r.evidence}" for r in results if r.outcome == "failed"]}
           if any(r.outcome == "failed" for r in results) else {}),
        **({"diverged": diverged} if (diverged := [line for turn in turns for line in turn.diverged]) else {}),
    }


def _add(tally: dict[str, int], turns: list[HeldTurn]) -> None:
    tally["diverged"] += sum(len(turn.diverged) for turn in turns)
    for result in (result for turn in turns for result in turn.results):
        tally["probes"] += 1
        tally["right"] += result.ok
        tally["failed"] += result.outcome == "failed"
        if result.expect == "stop":
            tally["to_stop"] += 1
            tally["stopped"] += result.ok
        else:
            tally["to_pass"] += 1
            tally["passed"] += result.ok
