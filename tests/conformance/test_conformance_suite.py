"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in package.json) against the
real HTTP app, with `--requirements 2026-07-28` and with `--spec-version 2025-11-25`.

Every failing check must be in that run's baseline (`expected-failures-*.yml`, one reason per line) and
every baseline entry must still fail: the suite's own exit code checks the scored ones, and this test
compares the whole list, not-scored checks included, in both directions.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from node_tools import SUITE, node_env, node_tool, suite_server

HERE = Path(__file__).parent
RUNS = {"2026-07-28": ["--requirements", "2026-07-28"], "2025-11-25": ["--spec-version", "2025-11-25"]}


def baseline(name: str) -> dict[str, str]:
    """check → reason, from `expected-failures-<name>.yml`."""
    entries = {}
    for line in (HERE / f"expected-failures-{name}.yml").read_text().splitlines():
        found = re.fullmatch(r"  - (\S+)  # (.+)", line)
        if found:
            entries[found[1]] = found[2]
        else:
            assert line.startswith("#") or line == "server:", f"not a baseline line: {line!r}"
    return entries


def failing_checks(results: Path) -> set[str]:
    """scenario:check for every FAILURE or WARNING in the suite's checks.json files."""
    failing = set()
    for checks in results.glob("server-*/checks.json"):
        scenario = re.sub(r"^server-|-\d{4}-\d\d-\d\dT.*$", "", checks.parent.name)
        failing |= {f"{scenario}:{c['id']}" for c in json.loads(checks.read_text()) if c["status"] in ("FAILURE", "WARNING")}
    return failing


@pytest.mark.parametrize("name", list(RUNS))
def test_every_baseline_entry_gives_a_reason(name: str) -> None:
    entries = baseline(name)
    assert entries and all(len(reason) > 20 for reason in entries.values())


@pytest.mark.parametrize("name", list(RUNS))
def test_the_conformance_suite_fails_exactly_its_baseline(tmp_path: Path, name: str) -> None:
    suite = node_tool(SUITE)
    results, expected = tmp_path / "results", HERE / f"expected-failures-{name}.yml"
    with suite_server(tmp_path) as url:
        done = subprocess.run([*suite, "server", "--url", url, *RUNS[name], "--expected-failures", str(expected), "-o", str(results)],
                              capture_output=True, text=True, env=node_env(tmp_path), timeout=300, check=False)
    totals = re.findall(r"Total: \d+ passed, \d+ failed", done.stdout)
    failing, listed = failing_checks(results), set(baseline(name))
    assert failing - listed == set(), f"new failures (fix them, or list them with a reason): {sorted(failing - listed)}"
    assert listed - failing == set(), f"listed checks that now pass (remove them): {sorted(listed - failing)}"
    assert done.returncode == 0 and totals, done.stdout[-3000:] + done.stderr[-2000:]
