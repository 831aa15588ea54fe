"""What an answer carries, it does not carry again: the recorded round-5 conversations replayed through the real client
on the stage listing. A turn's closing summary lists no thing an earlier answer's notice of the same turn showed by ref,
and shopping_list_from's notice writes each line once (its text, not its parts again) and what the pantry covered as
a count and its first names, once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from alfred_mcp.agent.act_tools import NAMES_SHOWN
from alfred_mcp.state.refs import refs_in

from .recorded import Recording, load_recordings, replayed_answers

pytestmark = pytest.mark.anyio

ROUND_5 = [recording for recording in load_recordings() if recording.name.startswith("r5_")]


@pytest.mark.parametrize("recording", ROUND_5, ids=[r.name for r in ROUND_5])
async def test_no_answer_repeats_what_the_turns_notices_showed(tmp_path: Path, recording: Recording) -> None:
    for answers in await replayed_answers(recording, tmp_path):
        shown: set[str] = set()
        for answer in answers:
            listed = {thing.get("ref") for key, things in (answer.get("summary") or {}).items()
                      if key.startswith(("entities_", "artifacts_")) and isinstance(things, list) for thing in things}
            assert not listed & shown, (recording.name, sorted(listed & shown))
            shown |= refs_in(answer.get("notice") or "")
            if (answer.get("notice") or "").startswith("shopping_list_from"):
                _assert_said_once(answer["notice"])


def _assert_said_once(notice: str) -> None:
    """Each line by its ref and text (no quantity or unit columns beside it); the covered names once, after a count."""
    table = re.search(r"(?m)^lines \(\d+\): (.+)$", notice)
    assert table is None or table.group(1) in ("ref | text | for", "name | text | for"), notice
    covered = re.search(r"(\d+) more covered by the pantry[^:]*: ([^;\n]+)", notice)
    if covered is not None:
        count, said = int(covered.group(1)), covered.group(2)
        more = count - NAMES_SHOWN
        names = said.removesuffix(f" and {more} more").split(", ") if more > 0 else said.split(", ")
        assert len(names) == min(count, NAMES_SHOWN) and all(notice.count(f" {name}") == 1 for name in names), notice
    assert not re.search(r"(?m)^(added|topped_up|recipes): ", notice) and "; added: " not in notice, notice
