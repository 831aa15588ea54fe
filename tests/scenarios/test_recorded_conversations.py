"""Conversations a client's model drove stage by stage (recorded with `live.py`), replayed call for call.

Each replay must take every call the way it went live (accepted or refused), leave the kitchen as it
was after every turn, and keep every turn within the budgets of issue 24. The same turns through the
bundled loop (`chat`), their accepted role outputs as its model (refs translated for its session), must reach the
same kitchen. Each recording is replayed once per test process (`recorded_replays`) for both its tests and those of
other files that read the same replay, which are one xdist group (under `--dist loadgroup`, one worker).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e.conftest import SeededKitchens

from .kitchen_digest import digest_changes
from .recorded import Recording, ReplayedTurn, Replays, load_recordings, replay_through_loop, same_replay
from .scripts import TURN_BYTES_BUDGET, TURN_CALLS_BUDGET

pytestmark = pytest.mark.anyio

RECORDINGS = load_recordings()


@pytest.fixture
async def replayed(recording: Recording, recorded_replays: Replays) -> list[ReplayedTurn]:
    """The recording replayed call for call (`replay`), made once for all the tests of the recording."""
    return await recorded_replays.of(recording)


def test_at_least_twelve_conversations_are_recorded_each_beside_its_plain_run() -> None:
    """Every staged run has a plain run of the same conversation: its own, or an earlier round's (a round that
    re-drove only the staged side is compared with that one, replayed on the same code)."""
    staged = {recording.name for recording in RECORDINGS if not recording.plain}
    plain = {recording.name.removesuffix(".plain") for recording in RECORDINGS if recording.plain}
    assert len(staged) >= 12, sorted(staged)
    assert plain <= staged, sorted(plain - staged)
    assert not {name for name in staged if not {name, *_earlier_rounds(name)} & plain}, sorted(staged)


def _earlier_rounds(name: str) -> set[str]:
    """The same conversation's names in the rounds before `name`'s (r3_x: r2_x and x)."""
    found = re.match(r"r(\d+)_(.+)", name)
    if found is None:
        return set()
    base = found.group(2)
    return {base if earlier == 1 else f"r{earlier}_{base}" for earlier in range(1, int(found.group(1)))}


@pytest.mark.parametrize("recording", same_replay(RECORDINGS))
async def test_a_recorded_conversation_replays_to_the_same_kitchen(recording: Recording, replayed: list[ReplayedTurn]) -> None:
    for turn, log in zip(recording.turns, replayed, strict=True):
        assert not log.diverged, f"{turn.label} {turn.message!r}: {log.diverged}"
        assert log.digest == turn.digest, f"{turn.label} {turn.message!r}: {digest_changes(turn.digest, log.digest)}"
        assert log.calls <= TURN_CALLS_BUDGET, f"{turn.label}: {log.calls} calls"
        assert log.bytes <= TURN_BYTES_BUDGET, f"{turn.label}: {log.bytes} bytes"


@pytest.mark.parametrize("recording", same_replay([r for r in RECORDINGS if not r.plain and all(t.writes_only_in_turn for t in r.turns)]))
async def test_a_recorded_conversation_through_the_bundled_loop_reaches_the_same_kitchen(
        recording: Recording, replayed: list[ReplayedTurn], tmp_path: Path, seeded_kitchens: SeededKitchens) -> None:
    digests = await replay_through_loop(recording, tmp_path, seeded_kitchens, replayed)
    for turn, digest in zip(recording.turns, digests, strict=True):
        assert digest == turn.digest, f"{turn.label} {turn.message!r}: {digest_changes(turn.digest, digest)}"
