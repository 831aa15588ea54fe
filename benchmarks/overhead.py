"""http_overhead: server CPU per call of a mixed read workload over streamable HTTP, alfred-mcp vs a bare
`mcp` SDK server (`bare_http.py`) returning the same rows, side by side in one run, on SQLite and PostgreSQL.

One user's kitchen (the demo kitchen plus 50 recipes). The workload cycles through four reads: 50
recipes by name, the pantry, one recipe by name, the shopping list; the bare server's one tool reads
the same rows with the same SQL shape and advertises db_read's outputSchema. Both servers run as
their own processes; their CPU (user + system, from /proc) is read around blocks of BLOCK calls,
alternating which side goes first, for ROUNDS rounds. Reported: CPU ms per call of each side and
their ratio (median of the rounds), and wall p50 per call.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings

from .fixtures import add_recipes, temporary_folder
from .http import _cpu_seconds

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

USER = "bench"
TOKEN = "bench-overhead-token-0123456789"
BLOCK = 60
ROUNDS = 6
EXTRA_RECIPES = 50
WORKLOAD: tuple[tuple[dict[str, Any], dict[str, Any]], ...] = (
    ({"table": "recipes", "limit": 50, "order_by": [{"field": "name"}]}, {"table": "recipes", "limit": 50}),
    ({"table": "inventory", "limit": 50, "order_by": [{"field": "name"}]}, {"table": "inventory", "limit": 50}),
    ({"table": "recipes", "filters": [{"field": "name", "op": "eq", "value": "Lemon Garlic Baked Cod #000000"}], "limit": 50},
     {"table": "recipes", "limit": 50, "name": "Lemon Garlic Baked Cod #000000"}),
    ({"table": "shopping_list", "limit": 20, "order_by": [{"field": "name"}]}, {"table": "shopping_list", "limit": 20}),
)
"""(db_read arguments, the bare read_rows arguments returning the same rows)."""


async def http_overhead() -> dict[str, object]:
    results: dict[str, object] = {"sqlite": await _on_sqlite()}
    try:
        import psycopg  # noqa: F401
        from pg_harness import PostgresUnavailable, create_database, postgres_server
    except ImportError as error:
        return {**results, "postgres": {"skipped": f"psycopg is not installed: {error}"}}
    try:
        with postgres_server() as server:
            results["postgres"] = await _compare(create_database(server, "bench_overhead"))
    except PostgresUnavailable as error:
        results["postgres"] = {"skipped": str(error)}
    return {"reported": "server CPU per call, ours vs bare", "block": BLOCK, "rounds": ROUNDS, **results}


async def _on_sqlite() -> dict[str, object]:
    with temporary_folder() as folder:
        return await _compare(str(Path(folder) / "overhead.db"))


async def _kitchen(db: str) -> str:
    """The demo kitchen and EXTRA_RECIPES more recipes for USER; the user's id."""
    app = AlfredApp.from_settings(Settings(db=db, user=USER))
    await app.open()
    try:
        await add_recipes(app, EXTRA_RECIPES)
        return app.user_id
    finally:
        await app.close()


async def _compare(db: str) -> dict[str, object]:
    from http_harness import http_client, http_server

    user_id = await _kitchen(db)
    pids: list[int] = []
    async with http_server(db, {TOKEN: USER}, pids=pids) as ours_url, _bare(db, user_id) as (bare_url, bare_pid), \
            http_client(ours_url, TOKEN) as ours, http_client(bare_url, None) as bare:
        sides = {"ours": (ours, "db_read", 0, pids[0]), "bare": (bare, "read_rows", 1, bare_pid)}
        counts = {side: [await _rows(client, tool, pair[which]) for pair in WORKLOAD] for side, (client, tool, which, _) in sides.items()}
        assert counts["ours"] == counts["bare"] and all(counts["ours"]), counts  # warm, and the same rows
        cpu: dict[str, list[float]] = {"ours": [], "bare": []}
        wall: dict[str, list[float]] = {"ours": [], "bare": []}
        for round_number in range(ROUNDS):
            order = ["ours", "bare"] if round_number % 2 == 0 else ["bare", "ours"]
            for side in order:
                client, tool, which, pid = sides[side]
                before = _cpu_seconds([pid])
                for n in range(BLOCK):
                    started = time.perf_counter()
                    await _rows(client, tool, WORKLOAD[n % len(WORKLOAD)][which])
                    wall[side].append(time.perf_counter() - started)
                cpu[side].append((_cpu_seconds([pid]) - before) / BLOCK)
    ours_cpu, bare_cpu = statistics.median(cpu["ours"]), statistics.median(cpu["bare"])
    return {
        "ratio": round(ours_cpu / bare_cpu, 3) if bare_cpu else None,
        "ours_cpu_ms_per_call": round(ours_cpu * 1e3, 3), "bare_cpu_ms_per_call": round(bare_cpu * 1e3, 3),
        "ours_p50_ms": round(statistics.median(wall["ours"]) * 1e3, 3), "bare_p50_ms": round(statistics.median(wall["bare"]) * 1e3, 3),
        "calls_per_side": BLOCK * ROUNDS,
    }


async def _rows(client: Client, tool: str, arguments: dict[str, Any]) -> int:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    return len(result.structured_content["rows"])


@asynccontextmanager
async def _bare(db: str, user_id: str) -> AsyncIterator[tuple[str, int]]:
    """The bare SDK server on a free port over `db`; its /mcp URL and pid."""
    from http_harness import free_port, running, wait_for_port

    port = free_port()
    async with running([sys.executable, "-m", "benchmarks.bare_http", db, user_id, str(port)]) as process:
        await wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp", process.pid

