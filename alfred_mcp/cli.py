"""The `alfred-mcp` command: serve over stdio (default) or seed the demo kitchen."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from datetime import date

import anyio

from alfred_mcp import __version__
from alfred_mcp.app import AlfredApp
from alfred_mcp.config import DB_ENV, Settings
from alfred_mcp.errors import AlfredError

logger = logging.getLogger("alfred_mcp")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="alfred-mcp",
        description="Kitchen assistant MCP server: refs, never UUIDs.",
        epilog="Example: alfred-mcp --db ./kitchen.db",
    )
    parser.add_argument("--version", action="version", version=f"alfred-mcp {__version__}")
    parser.add_argument(
        "--db", help=f"SQLite database file or postgresql://user@host/db URL (env {DB_ENV}; default: per-user data dir)"
    )
    parser.add_argument("--supabase-url", help="use a Supabase project as the store (env SUPABASE_URL; key in SUPABASE_KEY, JWT secret in SUPABASE_JWT_SECRET)")
    parser.add_argument("--supabase-key", help="the Supabase project's anon key (env SUPABASE_KEY)")
    parser.add_argument("--user", help="local user handle (env ALFRED_USER; default: local)")
    parser.add_argument("--no-seed", action="store_true", help="do not seed the demo kitchen on first run")
    parser.add_argument("--model", help="agent model for chat/run, e.g. anthropic:claude-sonnet-4-5 (env ALFRED_MODEL)")
    parser.add_argument("--read-only", action="store_true", help="serve only read-only tools (env ALFRED_READ_ONLY=1)")
    parser.add_argument(
        "--tools", metavar="A,B", help="serve only these tools and toolsets: core, drafts, stages, agent, kitchen, all (env ALFRED_TOOLS)"
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging on stderr (-v, -vv)")
    commands = parser.add_subparsers(dest="command")
    serve = commands.add_parser(
        "serve", help="serve MCP over stdio (the default) or streamable HTTP",
        epilog="Example: ALFRED_TOKENS_FILE=tokens.json alfred-mcp serve --http 127.0.0.1:8765 --db postgresql://alfred@localhost/kitchen",
    )
    serve.add_argument(
        "--http", metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp; bearer tokens from ALFRED_TOKENS_FILE / ALFRED_TOKENS",
    )
    seed = commands.add_parser("seed", help="seed the demo kitchen", epilog="Example: alfred-mcp seed --reset")
    seed.add_argument("--reset", action="store_true", help="delete the user's kitchen rows first")
    commands.add_parser(
        "chat", help="talk to the kitchen assistant in the terminal (needs --model)",
        epilog="Example: alfred-mcp --model anthropic:claude-sonnet-4-5 chat",
    )
    run = commands.add_parser(
        "run", help="run a file of user messages (one per line) and print a JSON transcript",
        epilog="Example: alfred-mcp --model scripted:demo.json run messages.txt",
    )
    run.add_argument("script", help="a text file with one user message per line")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    logging.basicConfig(stream=sys.stderr, level=level, format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = Settings.from_env(
            db=args.db, user=args.user, seed_demo=not args.no_seed, model=args.model,
            supabase_url=args.supabase_url, supabase_key=args.supabase_key, read_only=args.read_only, tools=args.tools,
        )
        _check_tools(settings)
    except AlfredError as error:
        print(f"alfred-mcp: {error.message}", file=sys.stderr)
        return 2
    try:
        if args.command == "seed":
            return anyio.run(_seed, settings, args.reset)
        if args.command in ("chat", "run"):
            from alfred_mcp.headless import chat_in_terminal, run_script

            if args.command == "chat":
                return anyio.run(chat_in_terminal, settings)
            return anyio.run(run_script, settings, args.script)
        if getattr(args, "http", None):
            return _serve_http(settings, args.http)
        return _serve(settings)
    except AlfredError as error:
        print(f"alfred-mcp: {error.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _check_tools(settings: Settings) -> None:
    """An unknown name in --tools / ALFRED_TOOLS fails here, before anything is served."""
    from alfred_mcp.contracts import load_contracts
    from alfred_mcp.server.toolsets import HostControls

    HostControls.from_settings(settings, load_contracts())


def _serve(settings: Settings) -> int:
    from alfred_mcp.server.mcp_server import build_server

    logger.info("serving over stdio with %s", settings.db)
    build_server(AlfredApp.from_settings(settings)).run()
    return 0


def _serve_http(settings: Settings, address: str) -> int:
    from alfred_mcp.server.auth import load_tokens
    from alfred_mcp.server.http import parse_address, serve_http

    host, port = parse_address(address)
    serve_http(AlfredApp.from_settings(settings), host, port, load_tokens())
    return 0


async def _seed(settings: Settings, reset: bool) -> int:
    from alfred_mcp.operations.seeding import seed, seed_if_empty

    app = AlfredApp.from_settings(Settings(db=settings.db, user=settings.user, seed_demo=False))
    await app.open()
    try:
        if reset:
            counts = await seed(app.store, app.user_id, today=date.today(), reset=True)
            print("seeded: " + ", ".join(f"{n} {table}" for table, n in counts.items()), file=sys.stderr)
        elif await seed_if_empty(app.store, app.user_id, today=date.today()):
            print(f"seeded the demo kitchen in {settings.db}", file=sys.stderr)
        else:
            print("the kitchen already has recipes or pantry items; use --reset to replace them", file=sys.stderr)
            return 1
    finally:
        await app.close()
    return 0
