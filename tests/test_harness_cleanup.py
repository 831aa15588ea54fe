"""No PostgreSQL test cluster outlives a test run stopped by Ctrl-C or SIGTERM (pytest, or a script such as the benchmarks)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pg_harness import PostgresUnavailable, find_bin_dir

TESTS = Path(__file__).resolve().parent
IN_PYTEST = """
    import time, pytest
    from pg_harness import postgres_server

    @pytest.fixture(scope="session")
    def server():
        with postgres_server() as running:
            yield running

    def test_waits_for_a_signal(server):
        print("READY", server.root, server.port, flush=True)
        time.sleep(60)
"""
IN_SCRIPT = """
    import time
    from pg_harness import postgres_server

    with postgres_server() as server:
        print("READY", server.root, server.port, flush=True)
        time.sleep(60)
"""


@pytest.fixture(autouse=True)
def _postgres_installed() -> None:
    try:
        find_bin_dir()
    except PostgresUnavailable as error:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required under CI=true: {error}", pytrace=False)
        pytest.skip(f"{error} (under CI=true this fails instead)")


@pytest.mark.parametrize(
    ("runner", "signum"),
    [("pytest", signal.SIGTERM), ("script", signal.SIGTERM), ("script", signal.SIGINT)],
    ids=["pytest-sigterm", "script-sigterm", "script-ctrl-c"],
)
def test_a_signal_stops_the_cluster_and_deletes_its_files(tmp_path: Path, runner: str, signum: int) -> None:
    source = tmp_path / ("test_wait.py" if runner == "pytest" else "wait.py")
    source.write_text(textwrap.dedent(IN_PYTEST if runner == "pytest" else IN_SCRIPT))
    command = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", str(source)] if runner == "pytest" \
        else [sys.executable, str(source)]
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    try:
        line = ""
        while not line.startswith("READY"):
            line = process.stdout.readline().lstrip(".")
            assert line or process.poll() is None, "the run ended before its cluster started"
        _, root, port = line.split()
        process.send_signal(signum)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert not Path(root).exists(), "the cluster's files were left behind"
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", int(port))) != 0, "the cluster still accepts connections"
