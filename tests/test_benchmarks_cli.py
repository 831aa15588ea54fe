"""`python -m benchmarks` as people run it from the repo root: --help lists every entry and runs nothing;
an unknown entry name is refused before anything runs."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from benchmarks.__main__ import ENTRIES  # noqa: E402


def _benchmarks(*arguments: str) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "benchmarks", *arguments], cwd=REPO, capture_output=True, text=True,
                          timeout=120, check=False)
    return done, time.monotonic() - started


def _readme_entries() -> set[str]:
    """The entry names of benchmarks/README.md's table (first column, e.g. `http_clients` (`benchmarks/http.py`))."""
    text = (REPO / "benchmarks" / "README.md").read_text(encoding="utf-8")
    return set(re.findall(r"^\| `([a-z0-9_]+)`", text, flags=re.MULTILINE))


def test_help_lists_every_entry_with_its_target_and_runs_nothing() -> None:
    done, seconds = _benchmarks("--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m benchmarks [-h] [ENTRY ...]")
    lines = done.stdout.splitlines()
    for entry in ENTRIES:
        pattern = re.compile(rf"  {re.escape(entry.name)} +{re.escape(entry.target)}")
        at = next((i for i, line in enumerate(lines) if pattern.fullmatch(line)), None)
        assert at is not None, f"{entry.name} is not listed with its target {entry.target!r}:\n{done.stdout}"
        assert lines[at + 1].strip() == entry.what, f"{entry.name}'s line is not followed by what it compares"
    listed = {line.split()[0] for line in lines if re.match(r"  [a-z0-9_]+  ", line)}
    assert listed == {entry.name for entry in ENTRIES} == _readme_entries()
    # Nothing ran: every finished entry prints "name: {...}" to stderr and the results go to stdout as JSON.
    assert done.stderr == "" and "{" not in done.stdout
    assert seconds < 60, f"--help took {seconds:.0f} s"


def test_an_unknown_entry_is_refused_before_anything_runs() -> None:
    done, _ = _benchmarks("read_overhead", "no_such_entry")
    assert done.returncode == 2 and done.stdout == ""
    known = ", ".join(entry.name for entry in ENTRIES)
    # Only argparse's usage line and the refusal: a known entry named beside it did not run (it would print "read_overhead: {...}").
    assert done.stderr.splitlines() == [
        "usage: python -m benchmarks [-h] [ENTRY ...]",
        f"python -m benchmarks: error: unknown entries: no_such_entry; known: {known}",
    ]
