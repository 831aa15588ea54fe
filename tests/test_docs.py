"""The README documents every option and environment variable the command reads (drift fails here)."""

from __future__ import annotations

import re
from pathlib import Path

from alfred_mcp.cli import build_parser

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def _flags() -> set[str]:
    parser = build_parser()
    actions = list(parser._actions)
    for sub in parser._subparsers._group_actions if parser._subparsers else []:
        for command in sub.choices.values():  # type: ignore[attr-defined]
            actions += command._actions
    return {flag for action in actions for flag in action.option_strings if flag.startswith("--") and flag not in ("--help", "--version")}


def _env_names() -> set[str]:
    source = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "alfred_mcp").rglob("*.py"))
    return set(re.findall(r'"((?:ALFRED|SUPABASE)_[A-Z_]*[A-Z])"', source))


def test_every_command_line_option_is_in_the_readme() -> None:
    assert sorted(flag for flag in _flags() if flag not in README) == []


def test_every_environment_variable_is_in_the_readme() -> None:
    names = _env_names()
    assert {"ALFRED_DB", "ALFRED_HTTP_SESSION_IDLE_TIMEOUT", "ALFRED_OAUTH_ISSUER"} <= names
    assert sorted(name for name in names if name not in README) == []
