"""`python -m benchmarks [ENTRY ...]`: run the benchmarks (all, or the entries named) and print one JSON object.

`python -m benchmarks --help` lists every entry with what it compares and its target.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio

from . import (
    context,
    drafts,
    economy,
    foundation,
    held,
    http,
    imports,
    isolation,
    kitchen_lines,
    loop,
    overhead,
    reply_check,
    scaling,
    supabase,
)


@dataclass(frozen=True)
class Entry:
    """One benchmark: its name, what it compares, its target, and how to run it."""

    name: str
    what: str
    target: str
    run: Callable[[], Awaitable[Any]]


def _sync(fn: Callable[[], Any]) -> Callable[[], Awaitable[Any]]:
    async def run() -> Any:
        return fn()

    return run


ENTRIES: tuple[Entry, ...] = (
    Entry("read_overhead", "db_read of 50 rows over MCP vs a bare SDK tool returning the same rows", "ratio <= 1.3",
          foundation.read_overhead),
    Entry("batch_save", "saving 20 drafts x 15 ingredients vs plain sqlite3 executemany (warm, same durability, same ids)", "ratio <= 2.0",
          drafts.batch_save),
    Entry("search_scaling", "recipes_search, 10,000 vs 100 recipes", "ratio <= 3.0", scaling.search_scaling),
    Entry("makeable_scaling", "recipes_makeable, 10,000 vs 100 recipes", "ratio <= 3.0", scaling.makeable_scaling),
    Entry("search_after_write_scaling", "the first recipes_search after a shopping-line write, 10,000 vs 100 recipes",
          "ratio <= 3.0", scaling.search_after_write_scaling),
    Entry("makeable_after_write_scaling", "the first recipes_makeable after a shopping-line write, 10,000 vs 100 recipes",
          "ratio <= 3.0", scaling.makeable_after_write_scaling),
    Entry("turn_scaling", "turn_begin at turn 1,000 vs turn 10", "ratio <= 1.2", scaling.turn_scaling),
    Entry("restart_scaling", "start to first answered call, 100,000 vs 1,000 refs in the session", "ratio <= 2.0",
          scaling.restart_scaling),
    Entry("read_by_name_scaling", "db_read name eq, 100,000 vs 100 recipes", "ratio <= 1.5", scaling.read_by_name_scaling),
    Entry("translate_10k", "ids -> refs for 10,000 rows vs fetching them from SQLite", "ratio <= 1.0", foundation.translate_10k),
    Entry("registry_lookup_scaling", "ref <-> id lookups, 100k-ref registry vs 1k", "ratio <= 1.3",
          _sync(foundation.registry_lookup_scaling)),
    Entry("session_save_scaling", "saving a session after one new ref, 100k refs vs 1k", "ratio <= 2.0",
          foundation.session_save_scaling),
    Entry("context_growth", "Think's context at turn 50 vs turn 5 of a scripted session", "ratio <= 1.3", context.context_growth),
    Entry("context_build", "building a role's context at turn 50 with 1,000 refs", "<= 5 ms", _sync(context.context_build)),
    Entry("loop_overhead", "one scripted plan turn at turn 20 (model time ~0)", "<= 20 ms", loop.loop_overhead),
    Entry("http_clients", "HTTP on PostgreSQL: 1, 2, 4, 8 clients at one replica (calls/s, latency, CPU per call)",
          "reported; errors = 0, cross_session_refs = 0", http.http_clients),
    Entry("http_replicas", "HTTP on PostgreSQL: 1 and 2 replicas at 8 clients (calls/s, cores used)",
          "reported; errors = 0, cross_session_refs = 0", http.http_replicas),
    Entry("http_overhead", "server CPU per call of mixed reads over HTTP vs a bare SDK server returning the same rows, "
          "SQLite and PostgreSQL", "reported", overhead.http_overhead),
    Entry("import_isolation", "HTTP: a reader's p99 while 10 users import 5 MB pages vs the reader alone",
          "while_importing p99 < 300 ms; import_errors = 0", isolation.import_isolation),
    Entry("tools_list_bytes", "the default tools/list as sent, compact and pretty-printed (all tools beside it)", "<= 40,000 bytes",
          economy.tools_list_bytes),
    Entry("stage_turns", "calls and bytes of each stage-by-stage turn of the scenario conversations (a client following the answers)",
          "<= 14 calls and 24,000 bytes a turn; a later one-step read <= 6 calls and 8,000 bytes", economy.stage_turns),
    Entry("recorded_turns", "calls and bytes of each turn of the conversations a client's model drove (tests/scenarios/recorded), "
          "replayed stage by stage, and the same conversations with plain tools", "as stage_turns; diverged = 0", economy.recorded_turns),
    Entry("held_constraints", "what the user stated that the state holds and enforces after each recorded conversation, staged vs "
          "plain: probes of violating actions a model that forgot would take (tests/scenarios/held_labels.json)",
          "reported; failed = 0, diverged = 0", held.held_constraints),
    Entry("prompt_tokens", "the bundled loop's largest prompt per role and step type over the same conversations",
          "<= 2,000 tokens in one-step turns", economy.prompt_tokens),
    Entry("import_pages", "recipes_import's reading of saved real pages (ALFRED_IMPORT_CORPUS): drafted, quantity and unit, servings, time",
          "drafted >= 0.99, quantity_unit_right >= 0.98, servings_right >= 0.98, total_time_right >= 0.97", imports.import_pages),
    Entry("reply_check_corpus", "the reply check on a labelled corpus of replies generated from scenario ledgers",
          "false_accepted <= 2%, true_refused <= 2%", _sync(reply_check.reply_check_corpus)),
    Entry("supabase_vs_postgres", "a 50-row store read through Supabase (PostgREST) vs PostgreSQL directly", "reported",
          supabase.supabase_vs_postgres),
    Entry("odd_lines", "shopping lines of the demo week and seed recipes scaled x0.5-x3 that read oddly to a cook (rules in "
          "kitchen/odd_amounts.py); the same week listed twice", "0 odd, 0 changed the second time", kitchen_lines.odd_lines),
)
BY_NAME = {entry.name: entry for entry in ENTRIES}


def _epilog() -> str:
    width = max(len(entry.name) for entry in ENTRIES)
    lines = ["entries (all run when none is named; every ratio is measured side by side in one run):"]
    for entry in ENTRIES:
        lines.append(f"  {entry.name:<{width}}  {entry.target}")
        lines.append(f"  {'':<{width}}    {entry.what}")
    return "\n".join(lines)


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description="Run alfred-mcp's benchmarks and print one JSON object of results.",
        epilog=_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("entries", nargs="*", metavar="ENTRY", help="entries to run (default: all)")
    return parser


async def run(names: list[str]) -> dict[str, object]:
    results: dict[str, object] = {}
    for name in names:
        started = time.perf_counter()
        try:
            result = await BY_NAME[name].run()
        except Exception as error:  # one broken entry must not hide the others' results
            logging.getLogger("benchmarks").exception("%s failed", name)
            result = {"error": f"{type(error).__name__}: {error}"}
        if isinstance(result, dict):
            result = {**result, "seconds": round(time.perf_counter() - started, 1)}
        results[name] = result
        print(f"{name}: {json.dumps(result)}", file=sys.stderr, flush=True)
    return results


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    unknown = [name for name in arguments.entries if name not in BY_NAME]
    if unknown:
        parser().error(f"unknown entries: {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
    for noisy in ("httpx", "httpx2"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    results = anyio.run(run, arguments.entries or list(BY_NAME))
    json.dump(results, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 1 if any(isinstance(result, dict) and "error" in result for result in results.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
