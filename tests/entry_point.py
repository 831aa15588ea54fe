"""The console script's entry point (`alfred_mcp.cli:main`) called in the test's own process, as the installed
`alfred-mcp` script would run it: with the given environment and nothing else, stdin given as text, stdout and stderr
captured, and its exit code. A test that runs many cases this way keeps a few in a real process, proving the script."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence

import pytest

from alfred_mcp.cli import main


def run_entry_point(argv: Sequence[str], env: Mapping[str, str], *, monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`alfred-mcp ARGV` in this process with exactly `env` as its environment; what it wrote and its exit code."""
    capsys.readouterr()
    with monkeypatch.context() as patched:
        for name in list(os.environ):
            patched.delenv(name)
        for name, value in env.items():
            patched.setenv(name, value)
        patched.setattr(sys, "stdin", io.StringIO(stdin))
        code = main(list(argv))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["alfred-mcp", *argv], code, out, err)
