"""The `alfred-mcp` command as a new user meets it: options in any order, one clear line when it cannot start."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pg_harness import DatabaseFactory
from ports import free_port

from alfred_mcp.cli import EXIT_STARTUP, build_parser, main

REPO = Path(__file__).resolve().parents[2]
COMMANDS = {"serve": [], "seed": [], "migrate": [], "chat": [], "run": ["messages.txt"]}
SAMPLE = {"--db": "k.db", "--supabase-url": "https://x.supabase.co", "--supabase-key": "anon", "--user": "sam",
          "--model": "scripted:demo.json", "--tools": "core", "--listed": "stages"}


def global_options() -> list[argparse.Action]:
    return [a for a in build_parser()._actions if a.option_strings and a.dest not in ("help", "version", "command")]


def test_every_global_option_is_sampled() -> None:
    flags = {a.option_strings[-1] for a in global_options() if a.nargs != 0}
    assert flags == set(SAMPLE)


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("option", [a.option_strings[-1] for a in global_options()])
def test_a_global_option_works_before_or_after_the_command(command: str, option: str) -> None:
    """`alfred-mcp --db k.db serve` and `alfred-mcp serve --db k.db` mean the same, for every option and command."""
    given = [option] if option not in SAMPLE else [option, SAMPLE[option]]
    before = build_parser().parse_args([*given, command, *COMMANDS[command]])
    after = build_parser().parse_args([command, *COMMANDS[command], *given])
    untouched = build_parser().parse_args([command, *COMMANDS[command]])
    assert vars(before) == vars(after) != vars(untouched)


def test_the_issue_s_command_line_parses() -> None:
    args = build_parser().parse_args(["serve", "--http", "127.0.0.1:8765", "--db", "k.db"])
    assert (args.command, args.http, args.db) == ("serve", "127.0.0.1:8765", "k.db")


def test_every_command_s_help_shows_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ["", *COMMANDS]:
        with pytest.raises(SystemExit):
            main([command, "--help"] if command else ["--help"])
        assert "Example: alfred-mcp" in capsys.readouterr().out, command


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port something else is listening on."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        yield busy.getsockname()[1]


def _startup_cases(tmp_path: Path, port: int) -> list[tuple[list[str], dict[str, str], str]]:
    text_file = tmp_path / "notes.txt"
    text_file.write_text("shopping: eggs\n")
    tokens = {"ALFRED_TOKENS": "a-token-of-twenty-chars=alice"}
    return [
        (["--db", "/absolute/path/to/kitchen.db"], {}, "is the example's placeholder: set ALFRED_DB (or --db) to a file"),
        ([], {"ALFRED_DB": "/absolute/path/to/kitchen.db"}, "is the example's placeholder"),
        ([], {"ALFRED_DB": "${user_config.database}"}, "is a variable the host did not fill in: set ALFRED_DB (or --db)"),
        (["--db", str(tmp_path)], {}, f"The database path {tmp_path} (--db / ALFRED_DB) is a folder: give a file path such as"),
        (["--db", str(text_file / "k.db")], {}, f"is inside {text_file}, which is a file, not a folder: choose another --db / ALFRED_DB path"),
        (["--db", str(text_file / "sub" / "k.db")], {}, f"Cannot create the folder {text_file / 'sub'} for the database: Not a directory"),
        (["--db", str(text_file)], {}, f"{text_file} is not an SQLite database. Give --db / ALFRED_DB a new file"),
        (["--db", "host=127.0.0.1 dbname=kitchen user=alfred"], {}, "--db / ALFRED_DB takes a SQLite file or a postgresql://"),
        ([], {"ALFRED_DB": "password=s3cret host=db"}, "; password=... is a libpq connection string"),
        ([], {"ALFRED_DB": "dbname=kitchen"}, "; dbname=... is a libpq connection string: write it as a URL"),
        (["chat"], {"ALFRED_MODEL": "bogus"}, "ALFRED_MODEL='bogus' is not a model"),
        (["serve", "--http", "8765"], tokens, "--http takes HOST:PORT, e.g. 127.0.0.1:8765 (got '8765')"),
        (["serve", "--http", f"127.0.0.1:{port}"], tokens, f"Cannot listen on 127.0.0.1:{port}:"),
        (["serve", "--http", "127.0.0.1:8765"], {}, "Serving over HTTP needs bearer tokens: set ALFRED_TOKENS_FILE or ALFRED_TOKENS"),
        (["serve", "--http", "127.0.0.1:8765"], {**tokens, "ALFRED_HTTP_MAX_SESSIONS": "many"}, "ALFRED_HTTP_MAX_SESSIONS takes a positive whole number (got 'many')"),
        (["serve", "--session-idle-timeout", "0"], {}, "--session-idle-timeout takes a positive number of seconds (got '0')"),
        (["serve", "--public-url", "https://kitchen.example"], {}, "--public-url only applies to serve --http HOST:PORT"),
        (["serve", "--max-sessions", "5", "--oauth-issuer", "https://auth.example"], {},
         "--max-sessions, --oauth-issuer only applies to serve --http"),
        (["serve", "--http", "127.0.0.1:8765", "--oauth-issuer", "auth.example.com"], {}, "ALFRED_OAUTH_ISSUER must be an http://"),
        (["--demo", "--no-seed"], {}, "--demo and --no-seed contradict each other"),
        (["--listed", "stages,turn_strat"], {}, "--listed / ALFRED_LISTED: unknown tool or toolset 'turn_strat'. Toolsets: core"),
        ([], {"ALFRED_LISTED": "stagez"}, "--listed / ALFRED_LISTED: unknown tool or toolset 'stagez'"),
        (["--read-only", "--listed", "turn_start"], {}, "--listed / ALFRED_LISTED names turn_start, which is not served: "
                                                        "this server is read-only (--read-only)"),
        (["--tools", "core", "--listed", "stages"], {}, "--listed / ALFRED_LISTED (stages) lists no tool this server serves: "
                                                        "turn_abandon, for one, is not served, as it is not in this server's tool allow-list (--tools)"),
    ]


def test_each_startup_failure_is_one_line_and_exit_2(tmp_path: Path, busy_port: int, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """What failed, which path or setting, what to do: on one line, exit code 2, nothing started."""
    for name in [n for n in os.environ if n.startswith(("ALFRED_", "SUPABASE_"))]:
        monkeypatch.delenv(name)
    db = ["--db", str(tmp_path / "fine.db")]
    for argv, env, words in _startup_cases(tmp_path, busy_port):
        with monkeypatch.context() as patched:
            for name, value in env.items():
                patched.setenv(name, value)
            code = main(argv if "--db" in argv or "ALFRED_DB" in env else [*db, *argv])
        err = capsys.readouterr().err
        assert (code, err.count("\n")) == (EXIT_STARTUP, 1), (argv, err)
        assert err.startswith("alfred-mcp: ") and words in err, (argv, err)
    assert not (tmp_path / "fine.db").exists(), "no failed start may leave a database behind"


def test_the_example_config_s_placeholder_fails_in_a_real_process(tmp_path: Path) -> None:
    """Claude Desktop started with the example config unchanged: one line, exit 2, no traceback, no folder created."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "HOME": str(tmp_path), "ALFRED_DB": "/absolute/path/to/kitchen.db"}
    done = subprocess.run([sys.executable, "-m", "alfred_mcp"], capture_output=True, text=True, env=env, timeout=60, check=False,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == EXIT_STARTUP and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert not Path("/absolute/path").exists()


def test_seed_seeds_once_and_then_says_in_one_line_how_to_replace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`alfred-mcp seed` on a new database seeds it (exit 0); again, it refuses in one line naming the database and --reset
    (exit 1); `seed --reset` replaces the kitchen (exit 0)."""
    db = str(tmp_path / "kitchen.db")
    assert main(["--db", db, "--no-seed", "seed"]) == 0 and f"seeded the demo kitchen in {db}" in capsys.readouterr().err
    assert main(["--db", db, "seed"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"alfred-mcp: the kitchen with {db} already has") and "seed --reset" in err
    assert main(["seed", "--reset", "--db", db]) == 0 and capsys.readouterr().err.startswith("seeded: 11 recipes")


MIGRATIONS = sorted(p.name for p in (REPO / "migrations").glob("*.sql"))


def test_migrate_makes_a_sqlite_kitchen_s_schema_and_seeds_no_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`alfred-mcp migrate` (the operator's step before pointing servers at a database): the schema, no user, no demo
    kitchen, one line; again, the same."""
    db = tmp_path / "kitchen.db"
    for _ in range(2):
        assert main(["migrate", "--db", str(db)]) == 0
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"alfred-mcp: {db} holds this alfred-mcp's schema") and "nothing was seeded" in err
    with sqlite3.connect(db) as connection:
        assert [connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in ("users", "recipes")] == [0, 0]


def test_migrate_applies_every_migration_to_postgresql_and_seeds_no_one(pg_databases: DatabaseFactory,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """On an empty PostgreSQL database (a Supabase project's, through its database URL): every file of migrations/ is
    applied, no user is made, the URL (which may hold a password) is not echoed."""
    import psycopg

    dsn = pg_databases.create(empty=True)
    assert main(["migrate", "--db", dsn]) == 0
    err = capsys.readouterr().err
    assert err.startswith("alfred-mcp: the database holds this alfred-mcp's schema") and dsn not in err
    with psycopg.connect(dsn) as connection:
        applied = [row[0] for row in connection.execute("SELECT count(*) FROM alfred_schema_migrations UNION ALL "
                                                        "SELECT count(*) FROM users UNION ALL SELECT count(*) FROM recipes")]
    assert applied == [len(MIGRATIONS), 0, 0]


def test_migrating_as_a_login_that_may_not_make_roles_says_what_to_run_first(pg_databases: DatabaseFactory,
                                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A plain login owning its database (the README's `postgresql://alfred@localhost/kitchen`): one line, exit 2,
    naming the roles the first start makes and the grant to run as a superuser."""
    login = f"plain_login_{os.getpid()}"
    admin = pg_databases.server.dsn()
    import psycopg

    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP ROLE IF EXISTS "{login}"')
        connection.execute(f'CREATE ROLE "{login}" LOGIN')
    dsn = pg_databases.create(empty=True, owner=login)
    assert main(["migrate", "--db", pg_databases.server.dsn(dsn.rsplit("/", 1)[1], user=login)]) == EXIT_STARTUP
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Cannot migrate the database" in err, err
    assert "CREATE ROLE authenticated NOLOGIN NOINHERIT" in err and "GRANT authenticated TO <this login>" in err


def test_sigterm_ends_serve_over_http_with_143(tmp_path: Path) -> None:
    """uvicorn shuts down gracefully, the store is closed, then the command exits 143 (Ctrl-C: 130, as on stdio)."""
    port = free_port()
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "HOME": str(tmp_path), "ALFRED_TOKENS": "a-token-of-twenty-chars=alice"}
    command = [sys.executable, "-m", "alfred_mcp", "serve", "--http", f"127.0.0.1:{port}", "--db", str(tmp_path / "k.db")]
    process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not _listening(port):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 143
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize(("extra", "module", "argv", "env"), [
    ("postgres", "alfred_mcp.store.postgres", ["--db", "postgresql://alfred@127.0.0.1:1/kitchen"], {}),
    ("supabase", "alfred_mcp.store.supabase", ["--supabase-url", "http://127.0.0.1:1"],
     {"SUPABASE_KEY": "anon", "SUPABASE_JWT_SECRET": "a-secret-of-thirty-two-characters!"}),
    ("otel", "opentelemetry.sdk.trace", [], {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}),
])
def test_a_missing_extra_names_the_install_command_for_the_python_the_server_runs_on(
    extra: str, module: str, argv: list[str], env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Not a bare `pip install` (another Python's, maybe): this interpreter's `-m pip`, with the extra pyproject defines."""
    monkeypatch.setitem(sys.modules, module, None)  # importing it raises ImportError, as when the extra is not installed
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main([*argv, "--db", str(tmp_path / "k.db")] if not argv or argv[0] != "--db" else argv) == EXIT_STARTUP
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"`{sys.executable} -m pip install -e '.[{extra}]'`" in err, err
