"""The README documents every option and environment variable the command reads, and every tool, resource and
prompt the server offers (drift fails here)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.cli import build_parser
from alfred_mcp.config import Settings
from alfred_mcp.contracts import load_contracts
from alfred_mcp.server.mcp_server import build_server

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


def test_ci_runs_the_readmes_test_command_word_for_word() -> None:
    """.ci/run ends with the README's test command (installing the test extra, then pytest), exactly as written."""
    (command,) = [line.split("#")[0].rstrip() for line in README.splitlines() if line.startswith("python3 ") and "# run the tests" in line]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert "pytest" in command and ci[-1] == command


def test_every_command_line_option_is_in_the_readme() -> None:
    assert sorted(flag for flag in _flags() if flag not in README) == []


def test_every_environment_variable_is_in_the_readme() -> None:
    names = _env_names()
    assert {"ALFRED_DB", "ALFRED_HTTP_SESSION_IDLE_TIMEOUT", "ALFRED_OAUTH_ISSUER"} <= names
    assert sorted(name for name in names if name not in README) == []


@pytest.mark.anyio
async def test_every_tool_resource_and_prompt_is_in_the_readme(tmp_path: Path) -> None:
    """Everything a client can list with ALFRED_TOOLS=all: each tool by name, each resource by its URI (a
    template up to its first parameter), each prompt by name."""
    app = AlfredApp.from_settings(Settings(db=str(tmp_path / "kitchen.db"), seed_demo=False, tools=("all",)))
    async with Client(build_server(app)) as client:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        uris = [str(r.uri) for r in (await client.list_resources()).resources]
        uris += [t.uri_template.split("{")[0] for t in (await client.list_resource_templates()).resource_templates]
        prompts = [p.name for p in (await client.list_prompts()).prompts]
    assert set(tools) == set(load_contracts()) and uris and prompts
    assert [name for name in tools + uris + prompts if name not in README] == []
