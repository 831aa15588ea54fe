"""The `alfred-mcp` command: serve MCP over stdio (the default) or streamable HTTP, seed, migrate, chat, run.

Global options work before or after the subcommand. Exit codes: 0 done; 1 an error while running;
2 the command could not start (a bad flag or setting, an unusable database path, a file that is not
a database), always as one line on stderr; 130 after Ctrl-C, 143 after SIGTERM.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import signal
import sys
from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import anyio

from alfred_mcp import __version__
from alfred_mcp.cli_parser import OneLineParser, UsageError, checked
from alfred_mcp.config import (
    DB_ENV,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_SESSION_IDLE_TIMEOUT,
    JSON_MODE_ENV,
    JSON_MODES,
    MAX_SESSIONS_ENV,
    OAUTH_ISSUER_ENV,
    PUBLIC_URL_ENV,
    SESSION_IDLE_TIMEOUT_ENV,
    TIMEOUT_ENV,
    TURN_CALLS_ENV,
    TURN_SECONDS_ENV,
    HttpSettings,
    Settings,
    default_db_path,
)
from alfred_mcp.errors import AlfredError, ConfigError, StoreError

if TYPE_CHECKING:  # the app (the whole server) is imported only once the command line and settings are good
    from alfred_mcp.app import AlfredApp

logger = logging.getLogger("alfred_mcp")
EXIT_ERROR, EXIT_STARTUP, EXIT_INTERRUPTED = 1, 2, 130
PLACEHOLDER = "/path/to/"
"""Part of the example config's database path (claude_desktop_config.example.json), never a real one."""
SQLITE_HEADER = b"SQLite format 3\x00"
CONNINFO = re.compile(r"(?:^|\s)(host|hostaddr|dbname|user|port|password)=")
"""A libpq keyword/value connection string (`host=db dbname=kitchen`), which would otherwise be taken for a file name."""
DB_SETTING = f"--db / {DB_ENV}"

EXAMPLES = """\
Example: alfred-mcp --db ./kitchen.db                 (serve MCP over stdio, the demo kitchen on first run)
Example: alfred-mcp serve --http 127.0.0.1:8765 --db postgresql://alfred@localhost/kitchen
Example: alfred-mcp --model scripted:demo run messages.txt          (the packaged scripted model, no key)
Exit codes: 0 done, 1 error while running, 2 could not start, 130 Ctrl-C, 143 SIGTERM."""


class StartupError(Exception):
    """The command could not start; `error` says what failed and what to do."""

    def __init__(self, error: AlfredError) -> None:
        super().__init__(error.message)
        self.error = error


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="alfred-mcp", description="Kitchen assistant MCP server: refs, never UUIDs.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"alfred-mcp {__version__}")
    _global_options(parser, after_command=False)
    common = OneLineParser(add_help=False)
    _global_options(common, after_command=True)
    commands = parser.add_subparsers(dest="command", metavar="{serve,seed,migrate,chat,run}")
    _serve_parser(commands, common)
    seed = commands.add_parser("seed", parents=[common], help="seed the demo kitchen", epilog="Example: alfred-mcp seed --reset")
    seed.add_argument("--reset", action="store_true", help="delete the user's kitchen rows first")
    commands.add_parser("migrate", parents=[common], help="apply the database's migrations and exit (nothing seeded)",
                        epilog="Example: alfred-mcp migrate --db postgresql://postgres@db.example.supabase.co:5432/postgres")
    chat = commands.add_parser(
        "chat", parents=[common], help="talk to the kitchen assistant in the terminal (needs --model)",
        epilog="Example: alfred-mcp --model anthropic:claude-sonnet-4-5 chat   (Ctrl-D leaves; Ctrl-C stops the turn, exit 130)",
    )
    run = commands.add_parser(
        "run", parents=[common], help="run a file of user messages (one per line), printing each turn as a JSON line when it ends",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Example: alfred-mcp --model scripted:demo run messages.txt   (the packaged demo model; - reads stdin)\n"
               "Exit codes: 0 every turn ended, 1 a turn ended blocked, 130/143 interrupted (what finished is written).",
    )
    run.add_argument("script", help="a text file with one user message per line, or - for stdin")
    for command in (chat, run):
        _model_option_flags(command)
    return parser


def _model_option_flags(command: argparse.ArgumentParser) -> None:
    """Model options of chat and run; each wins over its environment variable."""
    options = command.add_argument_group("model options")
    options.add_argument("--json-mode", choices=JSON_MODES, help=f"how to ask for JSON (env {JSON_MODE_ENV}; default auto)")
    options.add_argument("--timeout", metavar="SECONDS", type=checked(float, "a positive number of seconds"), help=f"seconds for one model call (env {TIMEOUT_ENV}; default 120)")
    options.add_argument("--max-calls", metavar="N", type=checked(_whole, "a positive whole number"), help=f"model calls one turn may make (env {TURN_CALLS_ENV}; default 30)")
    options.add_argument("--max-seconds", metavar="SECONDS", type=checked(float, "a positive number of seconds"), help=f"seconds one turn may take (env {TURN_SECONDS_ENV}; default 600)")


def _whole(text: str) -> int:
    return int(text)


def _model_overrides(args: argparse.Namespace) -> dict[str, str]:
    flags = {JSON_MODE_ENV: args.json_mode, TIMEOUT_ENV: args.timeout, TURN_CALLS_ENV: args.max_calls, TURN_SECONDS_ENV: args.max_seconds}
    return {name: str(value) for name, value in flags.items() if value is not None}


def _global_options(parser: argparse.ArgumentParser, *, after_command: bool) -> None:
    """The options every command takes; after the command they override only when given."""

    def default(value: object) -> object:
        return argparse.SUPPRESS if after_command else value

    parser.add_argument("--db", default=default(None),
                        help=f"SQLite database file or postgresql://user@host/db URL (env {DB_ENV}; default: {default_db_path()})")
    parser.add_argument("--supabase-url", default=default(None),
                        help="use a Supabase project as the store (env SUPABASE_URL; key in SUPABASE_KEY, JWT secret in SUPABASE_JWT_SECRET)")
    parser.add_argument("--supabase-key", default=default(None), help="the Supabase project's anon key (env SUPABASE_KEY)")
    parser.add_argument("--user", default=default(None), help="local user handle (env ALFRED_USER; default: local)")
    parser.add_argument("--no-seed", action="store_true", default=default(False),
                        help="the local user starts with an empty kitchen instead of the demo one")
    parser.add_argument("--demo", action="store_true", default=default(False),
                        help="every new user starts with the demo kitchen, HTTP users too (default: only the local user)")
    parser.add_argument("--model", default=default(None),
                        help="agent model for chat/run, e.g. anthropic:claude-sonnet-4-5 (env ALFRED_MODEL)")
    parser.add_argument("--read-only", action="store_true", default=default(False),
                        help="serve only read-only tools (env ALFRED_READ_ONLY=1)")
    parser.add_argument("--tools", metavar="A,B", default=default(None),
                        help="serve only these tools and toolsets: core, drafts, stages, agent, kitchen, views, all (env ALFRED_TOOLS)")
    parser.add_argument("--listed", metavar="A,B", default=default(None),
                        help="list only these tools and toolsets in tools/list, e.g. stages; the others stay callable "
                             "(env ALFRED_LISTED)")
    parser.add_argument("--no-ui", action="store_true", default=default(False),
                        help="offer no MCP Apps views, text results only (env ALFRED_UI=0)")
    parser.add_argument("-v", "--verbose", action="count", default=default(0), help="more logging on stderr (-v, -vv)")


def _serve_parser(commands: argparse._SubParsersAction[OneLineParser], common: OneLineParser) -> None:
    serve = commands.add_parser(
        "serve", parents=[common], help="serve MCP over stdio (the default) or streamable HTTP",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Example: ALFRED_TOKENS_FILE=tokens.json alfred-mcp serve --http 127.0.0.1:8765 --db postgresql://alfred@localhost/kitchen\n"
               "Example: alfred-mcp serve --http 0.0.0.0:8765 --public-url https://kitchen.example.com "
               "--oauth-issuer https://auth.example.com",
    )
    serve.add_argument("--http", metavar="HOST:PORT",
                       help="serve streamable HTTP at http://HOST:PORT/mcp; bearer tokens from ALFRED_TOKENS_FILE / ALFRED_TOKENS")
    serve.add_argument("--session-idle-timeout", type=checked(float, "a positive number of seconds"), metavar="SECONDS",
                       help=f"close a 2025-11-25 HTTP session idle this long (env {SESSION_IDLE_TIMEOUT_ENV}; "
                            f"default {DEFAULT_SESSION_IDLE_TIMEOUT:g})")
    serve.add_argument("--max-sessions", type=checked(_whole, "a positive whole number"), metavar="N",
                       help=f"open 2025-11-25 HTTP sessions allowed at once, 503 past it (env {MAX_SESSIONS_ENV}; default {DEFAULT_MAX_SESSIONS})")
    serve.add_argument("--public-url", metavar="URL",
                       help=f"the URL clients use to reach this server, for OAuth metadata (env {PUBLIC_URL_ENV}; default http://HOST:PORT)")
    serve.add_argument("--oauth-issuer", metavar="URL",
                       help=f"accept JWT access tokens from this OAuth authorization server, checked against its JWKS (env {OAUTH_ISSUER_ENV})")


def main(argv: Sequence[str] | None = None) -> int:
    try:  # the command line and the settings are checked before the server is imported: a refusal is quick
        args = build_parser().parse_args(argv)
        settings = _settings(args)
    except (UsageError, ConfigError) as error:
        print(f"alfred-mcp: {error.message if isinstance(error, ConfigError) else error}", file=sys.stderr)
        return EXIT_STARTUP
    from alfred_mcp.server.logs import LOG_FORMAT_ENV, configure_logging, log_format

    try:
        form, refused = log_format(os.environ.get(LOG_FORMAT_ENV)), None
    except ConfigError as error:
        form, refused = "text", error  # told once logging is set up, as every other startup error
    configure_logging(args.verbose, form)
    try:
        if refused is not None:
            raise refused
        check_database(settings)
        _check_tools(settings)
        return _run(args, settings)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BaseException as error:  # a failure inside a task group arrives wrapped in an ExceptionGroup
        found = _first_failure(error)
        if found is None:
            raise
        startup = isinstance(found, (StartupError, ConfigError))
        message = found.error.message if isinstance(found, StartupError) else found.message
        print(f"alfred-mcp: {message}", file=sys.stderr)
        if args.verbose >= 2:
            logger.exception("the command failed")
        return EXIT_STARTUP if startup else EXIT_ERROR


def _check_tools(settings: Settings) -> None:
    """An unknown name in --tools / ALFRED_TOOLS or --listed / ALFRED_LISTED fails here, before anything is served."""
    from alfred_mcp.contracts import load_contracts
    from alfred_mcp.server.toolsets import HostControls

    HostControls.from_settings(settings, load_contracts())


def _first_failure(error: BaseException) -> StartupError | AlfredError | None:
    if isinstance(error, (StartupError, AlfredError)):
        return error
    for inner in getattr(error, "exceptions", ()):  # an exception group (a builtin only from Python 3.11)
        found = _first_failure(inner)
        if found is not None:
            return found
    return None


HTTP_ONLY = ("session_idle_timeout", "max_sessions", "public_url", "oauth_issuer")
"""serve's options that mean something only with --http."""


def _settings(args: argparse.Namespace) -> Settings:
    stray = [f"--{name.replace('_', '-')}" for name in HTTP_ONLY if getattr(args, name, None) is not None]
    if stray and not getattr(args, "http", None):
        raise ConfigError(f"{', '.join(stray)} only applies to serve --http HOST:PORT, and this serves stdio: add --http "
                          "or leave it out.", field=stray[0].lstrip("-"))
    http = HttpSettings.from_env(
        session_idle_timeout=getattr(args, "session_idle_timeout", None), max_sessions=getattr(args, "max_sessions", None),
        public_url=getattr(args, "public_url", None), oauth_issuer=getattr(args, "oauth_issuer", None),
    )
    return Settings.from_env(
        db=args.db, user=args.user, seed_demo=not args.no_seed, model=args.model, demo=args.demo,
        supabase_url=args.supabase_url, supabase_key=args.supabase_key, read_only=args.read_only, tools=args.tools, http=http,
        ui=not args.no_ui, listed=args.listed,
    )


def check_database(settings: Settings) -> None:
    """Refuse, before anything starts, a database path that cannot work, saying what to do instead.

    Raises:
        ConfigError: the example's placeholder path, a folder, a folder that cannot be created, a file
            that is not an SQLite database, or a file or folder this user cannot write.
    """
    if settings.supabase is not None or "://" in settings.db:
        return
    path = Path(settings.db).expanduser()
    if PLACEHOLDER in settings.db:
        raise ConfigError(f"The database path {settings.db} is the example's placeholder: set {DB_ENV} (or --db) to a file "
                          f"of your own, e.g. {Path.home() / 'kitchen.db'}.", field="db")
    conninfo = CONNINFO.search(settings.db)
    if conninfo:  # named by its first keyword only: it may hold a password
        raise ConfigError(f"{DB_SETTING} takes a SQLite file or a postgresql://user@host:port/db URL; "
                          f"{conninfo.group(1)}=... is a libpq connection string: write it as a URL.", field="db")
    if "${" in settings.db:
        raise ConfigError(f"The database path {settings.db} is a variable the host did not fill in: set {DB_ENV} (or --db) to "
                          f"a file of your own, or leave it empty for {default_db_path()}.", field="db")
    if path.is_dir():
        raise ConfigError(f"The database path {path} ({DB_SETTING}) is a folder: give a file path such as {path / 'kitchen.db'}.",
                          field="db")
    if path.parent.exists() and not path.parent.is_dir():
        raise ConfigError(f"The database path {path} is inside {path.parent}, which is a file, not a folder: choose another {DB_SETTING} path.",
                          field="db")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"Cannot create the folder {path.parent} for the database: {error.strerror}. "
                          f"Choose a {DB_SETTING} path in a folder you can write.", field="db") from None
    if path.exists():
        _check_database_file(path)
    elif not os.access(path.parent, os.W_OK):
        raise ConfigError(f"Cannot create the database {path}: the folder is not writable. Choose a {DB_SETTING} path you can write.",
                          field="db")


def _check_database_file(path: Path) -> None:
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except OSError as error:
        raise ConfigError(f"Cannot read the database {path}: {error.strerror}. Choose a {DB_SETTING} path you can read and write.",
                          field="db") from None
    if header and header != SQLITE_HEADER:
        raise ConfigError(f"{path} is not an SQLite database. Give {DB_SETTING} a new file (it is created) or an alfred-mcp "
                          "database.", field="db")
    if not os.access(path, os.W_OK):
        raise ConfigError(f"The database {path} is read-only for this user. Choose a {DB_SETTING} path you can write.", field="db")


def _run(args: argparse.Namespace, settings: Settings) -> int:
    if args.command == "seed":
        return anyio.run(_seed, settings, args.reset)
    if args.command == "migrate":
        return anyio.run(_migrate, settings)
    if args.command in ("chat", "run"):
        from alfred_mcp.headless import chat_in_terminal, run_script

        settings = replace(settings, model_overrides=_model_overrides(args))
        if args.command == "chat":
            return anyio.run(chat_in_terminal, settings)
        return anyio.run(run_script, settings, args.script)
    if getattr(args, "http", None):
        return _serve_http(settings, args.http)
    return anyio.run(_serve_stdio, settings)


async def open_app(settings: Settings, *, serves_many: bool = False, traced: bool = False) -> AlfredApp:
    """The app with its store open, or a StartupError saying why it cannot start (`traced`: see `AlfredApp.from_settings`).

    Raises:
        StartupError: the store cannot be opened, or a setting it needs is wrong.
    """
    from alfred_mcp.app import AlfredApp

    try:
        app = AlfredApp.from_settings(settings, traced=traced)
        app.serves_many = serves_many
        await app.open()
    except (ConfigError, StoreError) as error:
        raise StartupError(error) from error
    except OSError as error:
        raise StartupError(ConfigError(f"Cannot open the database at {settings.db}: {error}", field="db")) from error
    return app


async def close_app(app: AlfredApp) -> None:
    with anyio.CancelScope(shield=True):
        await app.close()


async def _serve_stdio(settings: Settings) -> int:
    from alfred_mcp.server.logs import event
    from alfred_mcp.server.mcp_server import build_server
    from alfred_mcp.server.stdio import serve_until_signal
    from alfred_mcp.server.tracing import start_tracing

    stop_tracing = start_tracing()
    try:
        app = await open_app(settings, traced=stop_tracing is not None)
        try:
            logger.info("serving over stdio with %s", settings.db, extra=event("serving", transport="stdio"))
            _tell_a_person(f"serving MCP over stdio{_where(settings.db)}: waiting for a client on stdin (Ctrl-C stops).")
            return await serve_until_signal(build_server(app).run_stdio_async)
        finally:
            await close_app(app)
            logger.info("stopped serving stdio", extra=event("stopped", transport="stdio"))
    finally:
        if stop_tracing is not None:
            stop_tracing()


def _serve_http(settings: Settings, address: str) -> int:
    from alfred_mcp.server.auth import load_tokens
    from alfred_mcp.server.http import ALLOWED_HOSTS_ENV, allowed_hosts, parse_address, prepare_http, serve_http
    from alfred_mcp.server.metrics import METRICS_TOKEN_ENV, metrics_token
    from alfred_mcp.server.tracing import start_tracing

    host, port = parse_address(address)
    allowed_hosts(os.environ.get(ALLOWED_HOSTS_ENV, ""))  # checked before anything is served
    tokens = load_tokens(required=settings.http.oauth is None)
    scrape_token = metrics_token(os.environ.get(METRICS_TOKEN_ENV))
    # uvicorn shuts down gracefully on SIGTERM, then re-raises it: exit 143 after the store is closed too.
    signal.signal(signal.SIGTERM, _exit_on_signal)

    async def serve() -> int:
        jwks_url = await prepare_http(settings.http, host, port)
        app = await open_app(settings, serves_many=True, traced=stop_tracing is not None)
        _tell_a_person(f"serving MCP at http://{host if ':' not in host else f'[{host}]'}:{port}/mcp{_where(settings.db)} (Ctrl-C stops).")
        try:
            return await serve_http(app, host, port, tokens, jwks_url=jwks_url, metrics_token=scrape_token)
        finally:
            await close_app(app)

    stop_tracing = start_tracing()
    try:
        return anyio.run(serve)
    finally:
        if stop_tracing is not None:
            stop_tracing()


def _where(db: str) -> str:
    """' with <the SQLite file>'; nothing for a database URL (it may hold a password)."""
    return "" if "://" in db else f" with {db}"


def _tell_a_person(line: str) -> None:
    """One line on stderr when a person started the server in a terminal (a client that starts it reads nothing)."""
    if sys.stderr.isatty():
        print(f"alfred-mcp: {line}", file=sys.stderr, flush=True)


def _exit_on_signal(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


async def _migrate(settings: Settings) -> int:
    """Open the store as a server of many users does (it applies what migrations the database lacks; no user is made,
    nothing seeded), then close it.

    Raises:
        ConfigError: a Supabase project named by its API URL, whose schema comes through its database URL.
    """
    if settings.supabase is not None:
        raise ConfigError("migrate applies migrations through the database URL: give the project's as --db postgresql://..., "
                          "not --supabase-url.", field="supabase_url")
    app = await open_app(replace(settings, seed_demo=False, demo=False), serves_many=True)
    await close_app(app)
    where = "the database" if "://" in settings.db else settings.db  # a URL may hold a password
    print(f"alfred-mcp: {where} holds this alfred-mcp's schema (every migration applied); nothing was seeded.", file=sys.stderr)
    return 0


async def _seed(settings: Settings, reset: bool) -> int:
    from alfred_mcp.operations.seeding import seed, seed_if_empty

    app = await open_app(Settings(db=settings.db, user=settings.user, seed_demo=False, supabase=settings.supabase,
                                  user_map=settings.user_map))
    try:
        if reset:
            counts = await seed(app.store, app.user_id, today=date.today(), reset=True)
            print("seeded: " + ", ".join(f"{n} {table}" for table, n in counts.items()), file=sys.stderr)
        elif await seed_if_empty(app.store, app.user_id, today=date.today()):
            print(f"seeded the demo kitchen in {settings.db}", file=sys.stderr)
        else:
            print(f"alfred-mcp: the kitchen{_where(settings.db)} already has recipes or pantry items: seed --reset replaces "
                  "them with the demo kitchen (it deletes this user's kitchen first).", file=sys.stderr)
            return EXIT_ERROR
    finally:
        await close_app(app)
    return 0
