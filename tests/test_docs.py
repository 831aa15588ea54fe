"""The README documents every option and environment variable the command reads, and every tool, resource and
prompt the server offers (drift fails here)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib
from mcp import Client
from recipe_site import recipe_site

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


OPERATOR_DOCS = {path.relative_to(REPO).as_posix(): path.read_text(encoding="utf-8")
                 for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]}
"""What an operator follows word for word: the README and docs/."""
NAMED_VARIABLE = re.compile(r"\b((?:ALFRED|SUPABASE)_[A-Z0-9_]*[A-Z0-9])\b")
NAMED_PATH = re.compile(r"`((?:[\w.-]+/)+(?:[\w-]+\.(?:py|md|json|sql|yml|toml|png)|))`")
"""A repo path in backticks: folders ending in `/`, or a file with one of the repo's extensions."""


def test_every_variable_the_docs_name_is_read_by_the_server_or_its_tests() -> None:
    """The other way round from test_every_environment_variable_is_in_the_readme: a variable the docs tell an operator to
    set that nothing reads (renamed, removed, misspelt) would be set and silently ignored."""
    source = "\n".join(p.read_text(encoding="utf-8") for folder in ("alfred_mcp", "tests", "benchmarks", "bundle")
                       for p in (REPO / folder).rglob("*.py"))
    named = {(doc, name) for doc, text in OPERATOR_DOCS.items() for name in NAMED_VARIABLE.findall(text)}
    assert len(named) > 40 and sorted((doc, name) for doc, name in named if f'"{name}"' not in source) == []


def test_every_file_and_folder_the_docs_name_exists() -> None:
    """A path in backticks is the repo's (from its top, or inside alfred_mcp/ as architecture.md names modules), or
    one the reader makes (listed here)."""
    made_by_the_reader = {"dist/", "node_modules/"}
    named = {(doc, path) for doc, text in OPERATOR_DOCS.items() for path in NAMED_PATH.findall(text)}
    missing = sorted((doc, path) for doc, path in named if path not in made_by_the_reader
                     and not any((root / path).exists() for root in (REPO, REPO / "alfred_mcp", REPO / "tests")))
    assert len(named) > 30 and missing == []


def test_every_pip_command_installs_into_the_readmes_environment_and_names_a_real_extra() -> None:
    """`pip install` alone is whichever Python's pip comes first on PATH: the operator's `.venv/bin/alfred-mcp` would
    still lack the extra. Each one goes through `.venv/bin/pip` (as the opening commands do), and names extras that
    pyproject.toml defines."""
    extras = set(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"])
    commands = [(doc, m.group(0)) for doc, text in OPERATOR_DOCS.items() for m in re.finditer(r"[\w./-]*pip install[^`\n]*", text)]
    assert commands and [(doc, c) for doc, c in commands if not c.startswith(".venv/bin/pip install")] == []
    named = {extra for _, c in commands for group in re.findall(r"\[([\w,]+)\]", c) for extra in group.split(",")}
    assert named and sorted(named - extras) == []


def test_every_flag_the_docs_give_alfred_mcp_is_one_it_takes() -> None:
    """The other way round from test_every_command_line_option_is_in_the_readme: each `--flag` written after
    `alfred-mcp` (a command, a usage line) or in the README's command line block is an option of the command; a renamed
    or removed flag in the docs would stop an operator's start. An example of a refusal (`unknown option --store`) is
    the exception it says it is."""
    (block,) = re.findall(r"## Command line\n\n```text\n(.*?)```", README, flags=re.S)
    written = [(doc, segment) for doc, text in OPERATOR_DOCS.items() for segment in re.findall(r"alfred-mcp\b[^\n`|]*", text)]
    written.append(("README.md", block))
    flags = {(doc, flag) for doc, segment in written for flag in re.findall(r"(?<![\w-])--[a-z][a-z-]*", segment)
             if f"unknown option {flag}" not in segment}
    assert len(flags) > 15 and sorted((doc, flag) for doc, flag in flags if flag not in _flags() | {"--help", "--version"}) == []


def test_the_readmes_command_line_lists_every_command() -> None:
    (block,) = re.findall(r"## Command line\n\n```text\n(.*?)```", README, flags=re.S)
    listed = set(re.findall(r"^alfred-mcp (?:--model M )?([a-z]+)\b", block, flags=re.M))
    (commands,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert listed == set(commands.choices)


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


DAY_MARK = re.compile(r"<today(?:\+(\d+))?>")
FIXED_DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b|\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d")
PAIR = re.compile(r'"([A-Za-z_]+)": ("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)')


@dataclass(frozen=True)
class Exchange:
    """One call of a README transcript and what the README says it answered."""

    tool: str
    arguments: dict[str, Any]
    answer: str


def transcripts() -> list[list[Exchange]]:
    """The README's ```text blocks of `→ tool {arguments}` / `← answer` lines (continued by indented lines)."""
    blocks = re.findall(r"```text\n(→ .*?)```", README, flags=re.S)
    found = []
    for block in blocks:
        calls = re.split(r"\n(?=→ )", block.strip())
        exchanges = []
        for call in calls:
            asked, _, answer = call.partition("\n← ")
            tool, _, arguments = " ".join(asked.removeprefix("→ ").split("\n")).partition(" ")
            exchanges.append(Exchange(tool, json.loads(arguments), " ".join(line.strip() for line in answer.split("\n")).strip()))
        found.append(exchanges)
    return found


def _on(today: date, text: str) -> str:
    """`<today>` and `<today+N>` as the ISO dates of the day the test runs."""
    return DAY_MARK.sub(lambda m: (today + timedelta(days=int(m.group(1) or 0))).isoformat(), text)


def _marked(today: date, text: str) -> str:
    """The dates of this week written back as the README's marks (ISO, and as labels write them: 'Fri Nov 27')."""
    for offset in range(14):
        day = today + timedelta(days=offset)
        mark = "<today>" if offset == 0 else f"<today+{offset}>"
        text = text.replace(day.isoformat(), mark).replace(f"{day:%a %b} {day.day}", mark)
    return text


def test_no_example_a_reader_runs_holds_a_fixed_date() -> None:
    """Calls and commands use the day they run on (`<today>` marks, or no date), so an example never goes stale."""
    calls = [line for line in README.splitlines() if line.startswith("→ ")]
    commands = re.findall(r"```(?:sh|bash)\n(.*?)```", README, flags=re.S)
    assert calls and commands
    assert [text for text in calls + commands if FIXED_DATE.search(text)] == []
    answers = [exchange.answer for block in transcripts() for exchange in block]
    assert [answer for answer in answers if FIXED_DATE.search(answer)] == []


@pytest.mark.anyio
@pytest.mark.parametrize("block", range(2), ids=["what-a-client-sees", "recipes-shopping-undo"])
async def test_every_readme_transcript_is_what_the_server_answers_today(block: int, tmp_path: Path) -> None:
    """Each block replayed, call by call, on a kitchen seeded today (the loopback recipe site for imports): every value
    the README shows in an answer (a key with a number, a word or a whole string) is in the real answer, an error's
    text too."""
    exchanges = transcripts()[block]
    today = date.today()
    app = AlfredApp.from_settings(Settings(db=str(tmp_path / "kitchen.db")))
    await app.open()
    try:
        with recipe_site() as site:
            async with Client(build_server(app)) as client:
                for exchange in exchanges:
                    arguments = json.loads(_on(today, json.dumps(exchange.arguments)).replace("http://127.0.0.1:38037", site))
                    result = await client.call_tool(exchange.tool, arguments)
                    real = result.structured_content if not result.is_error else {"error": result.content[0].text}  # type: ignore[union-attr]
                    said = _marked(today, json.dumps(real, ensure_ascii=False)).replace(site, "http://127.0.0.1:38037")
                    if exchange.answer.startswith("isError: "):
                        assert result.is_error and exchange.answer.removeprefix("isError: ") in said, (exchange.tool, said)
                        continue
                    shown = [f'"{key}": {value}' for key, value in PAIR.findall(exchange.answer) if "…" not in value]
                    assert [pair for pair in shown if pair not in said] == [], (exchange.tool, exchange.arguments, said)
    finally:
        await app.close()
