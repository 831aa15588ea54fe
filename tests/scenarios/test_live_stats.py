"""`live.py stats` (and `export`) on a database no call was recorded on says so, without a traceback: with no record
file yet, or an empty one; once a call is recorded, stats counts it under its label."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .live import NO_CALLS, ROOT, _call, export, stats

pytestmark = pytest.mark.anyio


def _live(db: Path, *what: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tests.scenarios.live", "--db", str(db), *what], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("record", ["missing", "empty"])
def test_stats_and_export_before_the_first_call_say_no_calls_yet(tmp_path: Path, record: str) -> None:
    db = tmp_path / "kitchen.db"
    if record == "empty":
        Path(f"{db}.record.jsonl").write_text("")
    assert stats(db) == NO_CALLS
    with pytest.raises(SystemExit, match=NO_CALLS):
        export(db, "nothing")


def test_the_stats_command_on_a_new_database_prints_no_calls_yet(tmp_path: Path) -> None:
    printed = _live(tmp_path / "kitchen.db", "stats")
    assert (printed.returncode, printed.stdout.strip(), printed.stderr) == (0, NO_CALLS, "")


async def test_stats_counts_a_recorded_call_under_its_label(tmp_path: Path) -> None:
    db = tmp_path / "kitchen.db"
    said = await _call(db, "call", ["session_start", "{}"], "t1")
    assert stats(db) == f"t1: 1 calls, {len(said.encode())} bytes", said
