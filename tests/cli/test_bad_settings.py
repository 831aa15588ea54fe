"""Every flag and every ALFRED_* variable the command reads, given a bad value, as an operator meets it: the command
answers with one line naming the flag or variable, the value given (never a secret's) and what it takes, exits 2
(could not start), and leaves no database behind.

Each case runs the console script's entry point (`alfred_mcp.cli:main`) in this process, with the environment the
script would get and nothing else; one case of each kind of refusal (REAL_PROCESS) also runs the installed
`alfred-mcp` script in its own process, proving that the script answers exactly as its entry point does."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from alfred_mcp.cli import EXIT_STARTUP, build_parser
from tests.entry_point import run_entry_point as entry_point

REPO = Path(__file__).resolve().parents[2]
CONSOLE_SCRIPT = Path(sys.executable).with_name("alfred-mcp")
TOKENS = {"ALFRED_TOKENS": "a-token-of-twenty-chars=alice"}
HTTP = ["serve", "--http", "127.0.0.1:1"]  # port 1 is never reached: every case fails before it listens
RUN = ["--model", "scripted:demo", "run", "-"]
ON_OFF = "takes 1, true, yes, on or 0, false, no, off"


@dataclass(frozen=True)
class Case:
    """A bad setting: the command line and environment, and the words its one line must hold."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    words: tuple[str, ...] = ()


ANY_VALUE = {"ALFRED_USER", "ALFRED_MODEL_API_KEY", "ALFRED_OAUTH_AUDIENCE", "ALFRED_OAUTH_SCOPES"}
"""Variables every text is a valid value of (a name, a key, an audience, scope words)."""
SECRETS = {"ALFRED_TOKENS", "ALFRED_METRICS_TOKEN"}
"""Variables whose bad value must not be echoed."""


def bad_environment(tmp_path: Path) -> dict[str, Case]:
    """One bad value of each validated variable, on the command that reads it."""
    return {
        "ALFRED_DB": Case([], {"ALFRED_DB": str(tmp_path)}, ("is a folder",)),
        "ALFRED_TOOLS": Case([], {"ALFRED_TOOLS": "nonsense"}, ("unknown tool or toolset 'nonsense'", "Toolsets: core")),
        "ALFRED_LISTED": Case([], {"ALFRED_LISTED": "stagez"}, ("unknown tool or toolset 'stagez'", "Toolsets: core",
                                                                "Did you mean stages?")),
        "ALFRED_READ_ONLY": Case([], {"ALFRED_READ_ONLY": "x"}, (ON_OFF, "'x'")),
        "ALFRED_UI": Case([], {"ALFRED_UI": "x"}, (ON_OFF, "'x'")),
        "ALFRED_CHECK_RESULTS": Case([], {"ALFRED_CHECK_RESULTS": "x"}, (ON_OFF, "'x'")),
        "ALFRED_COMPRESS_OLDER_TURNS": Case([], {"ALFRED_COMPRESS_OLDER_TURNS": "x"}, (ON_OFF, "'x'")),
        "ALFRED_TURN_RETENTION": Case([], {"ALFRED_TURN_RETENTION": "x"}, ("takes a whole number", "'x'")),
        "ALFRED_CONVERSATION_TURNS": Case([], {"ALFRED_CONVERSATION_TURNS": "0"}, ("takes a whole number from 1 to 50", "got 0")),
        "ALFRED_QUICK_MODE_THRESHOLD": Case([], {"ALFRED_QUICK_MODE_THRESHOLD": "2"}, ("takes a number from 0 to 1", "got 2")),
        "ALFRED_LEDGER_TURNS": Case([], {"ALFRED_LEDGER_TURNS": "-1"}, ("0 (keep all) or more", "got -1")),
        "ALFRED_IMPORT_ALLOW_NETWORKS": Case([], {"ALFRED_IMPORT_ALLOW_NETWORKS": "x"}, ("'x' is not a network", "CIDRs such as")),
        "ALFRED_USER_MAP_FILE": Case([], {"ALFRED_USER_MAP_FILE": str(tmp_path / "missing.json")}, ("missing.json", "cannot read it")),
        "ALFRED_LOG_FORMAT": Case([], {"ALFRED_LOG_FORMAT": "x"}, ("takes 'text' or 'json'", "'x'")),
        "ALFRED_HTTP_SESSION_IDLE_TIMEOUT": Case(HTTP, {**TOKENS, "ALFRED_HTTP_SESSION_IDLE_TIMEOUT": "x"}, ("takes a positive number", "'x'")),
        "ALFRED_HTTP_MAX_SESSIONS": Case(HTTP, {**TOKENS, "ALFRED_HTTP_MAX_SESSIONS": "x"}, ("takes a positive whole number", "'x'")),
        "ALFRED_PUBLIC_URL": Case(HTTP, {**TOKENS, "ALFRED_PUBLIC_URL": "x"}, ("must be an http:// or https:// URL", "'x'")),
        "ALFRED_OAUTH_ISSUER": Case(HTTP, {"ALFRED_OAUTH_ISSUER": "x"}, ("must be an http:// or https:// URL", "'x'")),
        "ALFRED_OAUTH_JWKS_URL": Case(HTTP, {"ALFRED_OAUTH_ISSUER": "https://auth.example", "ALFRED_OAUTH_JWKS_URL": "x"},
                                      ("must be an http:// or https:// URL", "'x'")),
        "ALFRED_TOKENS": Case(HTTP, {"ALFRED_TOKENS": "not-a-pair"}, ("takes 'token=user' pairs",)),
        "ALFRED_TOKENS_FILE": Case(HTTP, {"ALFRED_TOKENS_FILE": str(tmp_path / "missing.json")}, ("missing.json", "cannot read it")),
        "ALFRED_METRICS_TOKEN": Case(HTTP, {**TOKENS, "ALFRED_METRICS_TOKEN": "short"}, ("at least 16 characters",)),
        "ALFRED_ALLOWED_HOSTS": Case(HTTP, {**TOKENS, "ALFRED_ALLOWED_HOSTS": "https://kitchen.example/"},
                                     ("takes host names or addresses", "'https://kitchen.example/'")),
        "ALFRED_MODEL": Case(["run", "-"], {"ALFRED_MODEL": "x"}, ("is not a model: use one of anthropic:<model>", "'x'")),
        "ALFRED_MODEL_JSON_MODE": Case(RUN, {"ALFRED_MODEL_JSON_MODE": "x"}, ("use one of auto, json_schema", "'x'")),
        "ALFRED_MODEL_TIMEOUT": Case(RUN, {"ALFRED_MODEL_TIMEOUT": "x"}, ("must be a positive number of seconds", "'x'")),
        "ALFRED_MODEL_STREAM": Case(RUN, {"ALFRED_MODEL_STREAM": "x"}, (ON_OFF, "'x'")),
        "ALFRED_MODEL_MAX_TOKENS": Case(RUN, {"ALFRED_MODEL_MAX_TOKENS": "x"}, ("write a number of tokens (16 or more)", "'x'")),
        "ALFRED_TURN_MAX_CALLS": Case(RUN, {"ALFRED_TURN_MAX_CALLS": "x"}, ("must be a positive whole number", "'x'")),
        "ALFRED_TURN_MAX_SECONDS": Case(RUN, {"ALFRED_TURN_MAX_SECONDS": "x"}, ("must be a positive number of seconds", "'x'")),
        "ALFRED_MODEL_BASE_URL": Case(["--model", "openai:gpt-x", "run", "-"], {"ALFRED_MODEL_API_KEY": "k", "ALFRED_MODEL_BASE_URL": "x"},
                                      ("takes an http:// or https:// URL", "'x'")),
    }


def variables_read() -> set[str]:
    source = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "alfred_mcp").rglob("*.py"))
    return set(re.findall(r'"(ALFRED_[A-Z_]*[A-Z])"', source))


def test_every_variable_the_server_reads_has_a_bad_value_here_or_takes_any(tmp_path: Path) -> None:
    assert sorted(variables_read() - set(bad_environment(tmp_path)) - ANY_VALUE) == []


def _parsers() -> dict[str, tuple[argparse.ArgumentParser, list[str]]]:
    """Each command's parser, with the arguments it needs besides options (none: the top level, which serves)."""
    top = build_parser()
    (commands,) = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    return {"": (top, []), **{name: (parser, ["-"] if name == "run" else []) for name, parser in commands.choices.items()}}


def bad_command_lines() -> list[pytest.param]:  # type: ignore[valid-type]
    """Generated from the parser: every option that takes a value, left without one and (where values are checked) given
    a bad one; an unknown option on every command; an unknown command; run without its file."""
    cases = []
    for command, (parser, needs) in _parsers().items():
        start = [command, *needs] if command else []
        for action in parser._actions:
            flag = next((s for s in reversed(action.option_strings) if s.startswith("--")), None)
            if flag is None or action.nargs == 0 or flag in ("--help", "--version"):
                continue
            cases.append(pytest.param(Case([*start, flag], words=(f"{flag} needs a value:",)), id=f"{command or 'top'}{flag}-missing"))
            if action.choices is not None or action.type is not None:
                cases.append(pytest.param(Case([*start, flag, "nonsense"], words=(f"{flag} takes ", "(got 'nonsense')")),
                                          id=f"{command or 'top'}{flag}-bad"))
        options = sorted(s for a in parser._actions for s in a.option_strings if s.startswith("--"))
        cases.append(pytest.param(Case([*start, "--nonsense", "bogus"], words=("unknown option --nonsense;", ", ".join(options))),
                                  id=f"{command or 'top'}-unknown-option"))
    cases += options_before_their_command()
    cases.append(pytest.param(Case(["--store", "bogus"], words=("unknown option --store;",)), id="unknown-option-before-a-value"))
    cases.append(pytest.param(Case(["nonsense"], words=("unknown command 'nonsense': the commands are serve, seed, migrate, chat, run",)),
                              id="unknown-command"))
    cases.append(pytest.param(Case(["run"], words=("alfred-mcp run needs script: a text file",)), id="run-without-its-file"))
    return cases


def options_before_their_command() -> list[pytest.param]:  # type: ignore[valid-type]
    """Every option only a command takes (`--json-mode`, `--http`, `--reset`), written before the command as the global
    options may be: the line names the option and the command it belongs after (not its value as an unknown command)."""
    parsers = _parsers()
    top = {s for a in parsers[""][0]._actions for s in a.option_strings}
    cases = []
    for command, (parser, needs) in parsers.items():
        for action in parser._actions:
            flag = next((s for s in reversed(action.option_strings) if s.startswith("--")), None)
            if not command or flag is None or flag in top:
                continue
            value = [] if action.nargs == 0 else [str(action.choices[0]) if action.choices else "1"]
            cases.append(pytest.param(Case([flag, *value, command, *needs], words=(f"{flag} is an option of", command, "after the command")),
                                      id=f"{flag}-before-{command}"))
    return cases


REAL_PROCESS = {
    "unknown-command",  # refused by the command line's parser
    "run-without-its-file",  # a command's missing argument
    "ALFRED_READ_ONLY",  # a variable refused while the settings are read
    "ALFRED_LOG_FORMAT",  # refused once logging is set up
    "ALFRED_DB",  # the database checked
    "ALFRED_TOOLS",  # the tools checked against the contracts
    "ALFRED_ALLOWED_HOSTS",  # refused by `serve --http` before it listens
    "ALFRED_MODEL",  # refused by `run` when it builds the model
}
"""Cases also run by the installed console script in its own process: one of each kind of refusal."""

Run = Callable[[Case, Path], subprocess.CompletedProcess[str]]


def _environment(case: Case, home: Path) -> dict[str, str]:
    """All the environment the command gets: a PATH, the checkout first on the import path, a home, and the case's."""
    return {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "HOME": str(home), **case.env}


def _argv(case: Case, home: Path) -> list[str]:
    return [*([] if "ALFRED_DB" in case.env else ["--db", str(home / "kitchen.db")]), *case.argv]


def _run_script(case: Case, home: Path) -> subprocess.CompletedProcess[str]:
    """The installed console script, in its own process."""
    assert CONSOLE_SCRIPT.exists(), f"the package is not installed: no {CONSOLE_SCRIPT}"
    return subprocess.run([str(CONSOLE_SCRIPT), *_argv(case, home)], capture_output=True, text=True, env=_environment(case, home),
                          timeout=60, check=False, stdin=subprocess.DEVNULL)


@pytest.fixture
def run_entry_point(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """The console script's entry point called in this process, with the script's environment in place of this one's."""

    def run(case: Case, home: Path) -> subprocess.CompletedProcess[str]:
        return entry_point(_argv(case, home), _environment(case, home), monkeypatch=monkeypatch, capsys=capsys)

    return run


def _runs(name: str) -> list[str]:
    """The entry point in this process for every case; the installed script too for the cases in REAL_PROCESS."""
    return ["entry-point", *(["script"] if name in REAL_PROCESS else [])]


@pytest.fixture
def run(request: pytest.FixtureRequest, run_entry_point: Run) -> Run:
    return _run_script if request.param == "script" else run_entry_point


def _assert_one_clear_line(done: subprocess.CompletedProcess[str], case: Case, home: Path) -> None:
    assert (done.returncode, done.stdout, done.stderr.count("\n")) == (EXIT_STARTUP, "", 1), done.stderr
    line = done.stderr
    assert line.startswith("alfred-mcp: ") and "usage:" not in line and "Traceback" not in line, line
    assert all(words in line for words in case.words), (case.words, line)
    assert not (home / "kitchen.db").exists(), "a refused start leaves no database behind"


def _with_runs(params: list[pytest.param]) -> list[pytest.param]:  # type: ignore[valid-type]
    """Each case once per way it is run (`_runs`), the case's id first."""
    return [pytest.param(*p.values, run, id=f"{p.id}-{run}") for p in params for run in _runs(p.id)]


def test_each_real_process_case_is_a_case() -> None:
    ids = {p.id for p in bad_command_lines()} | variables_read()
    assert sorted(REAL_PROCESS - ids) == []


@pytest.mark.parametrize(("case", "run"), _with_runs(bad_command_lines()), indirect=["run"])
def test_a_bad_command_line_is_one_line_naming_the_flag_and_what_it_takes(case: Case, run: Run, tmp_path: Path) -> None:
    _assert_one_clear_line(run(case, tmp_path), case, tmp_path)


@pytest.mark.parametrize(("name", "run"), _with_runs([pytest.param(n, id=n) for n in sorted(variables_read() - ANY_VALUE)]),
                         indirect=["run"])
def test_a_bad_variable_is_one_line_naming_it_its_value_and_what_it_takes(name: str, run: Run, tmp_path: Path) -> None:
    case = bad_environment(tmp_path)[name]
    done = run(case, tmp_path)
    _assert_one_clear_line(done, case, tmp_path)
    assert name in done.stderr
    if name in SECRETS:
        assert case.env[name] not in done.stderr, "a secret's value is never echoed"


@pytest.mark.parametrize("source", ["ALFRED_TOKENS", "ALFRED_TOKENS_FILE"])
def test_a_short_token_is_refused_naming_the_setting_that_holds_it_never_the_token(
    source: str, run_entry_point: Run, tmp_path: Path,
) -> None:
    short = "short-token"
    tokens_file = tmp_path / "tokens.json"
    tokens_file.write_text(f'{{"{short}": "alice"}}', encoding="utf-8")
    env = {"ALFRED_TOKENS": f"{short}=alice"} if source == "ALFRED_TOKENS" else {"ALFRED_TOKENS_FILE": str(tokens_file)}
    case = Case(HTTP, env, (source, "at least 16 characters", "'alice'"))
    done = run_entry_point(case, tmp_path)
    _assert_one_clear_line(done, case, tmp_path)
    assert short not in done.stderr.replace(str(tokens_file), "")
