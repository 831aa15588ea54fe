"""http_concurrency: 8 concurrent HTTP sessions x 200 tool calls on PostgreSQL (loopback, bounded).

Each session belongs to its own user (its own bearer token) on one `alfred-mcp serve --http`
process: it adds a few shopping-list rows, then reads and renames them. Reported: throughput,
p99 latency, errors (must be 0), refs seen outside their own session (must be 0), and `ratio`:
the p50 latency of those calls against the same calls made one by one over stdio on SQLite.
`single_session_ratio` is the same comparison for one HTTP session alone (no queueing behind
the other seven on the server's one event loop), which separates transport + database cost
from concurrency.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from statistics import median, quantiles
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

SESSIONS = 8
CALLS = 200
ROWS_PER_SESSION = 5
TIME_LIMIT = 600.0


async def http_concurrency(sessions: int = SESSIONS, calls: int = CALLS) -> dict[str, object]:
    """The benchmark; {"skipped": reason} when PostgreSQL is unavailable."""
    try:
        import psycopg  # noqa: F401
        from pg_harness import PostgresUnavailable, create_database, postgres_server
    except ImportError as error:
        return {"skipped": f"psycopg is not installed: {error}"}
    from http_harness import http_client, http_server

    tokens = {f"bench-token-{i:02d}-0123456789": f"bench{i}" for i in range(sessions + 1)}
    concurrent, solo = list(tokens)[:sessions], list(tokens)[sessions]
    try:
        with postgres_server() as server, anyio.fail_after(TIME_LIMIT):
            dsn = create_database(server, "bench_http")
            async with http_server(dsn, tokens) as url:
                results: list[dict[str, Any]] = []
                started = time.perf_counter()
                async with anyio.create_task_group() as group:
                    for number, token in enumerate(concurrent):
                        group.start_soon(_run_http_session, http_client(url, token), f"s{number}", calls, results)
                elapsed = time.perf_counter() - started
                async with http_client(url, solo) as alone:
                    single = await _workload(alone, "solo", calls)
    except PostgresUnavailable as error:
        return {"skipped": str(error)}
    latencies = [t for result in results for t in result["latencies"]]
    stdio_p50 = await _stdio_p50(calls)
    return {
        "calls_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(median(latencies) * 1000, 2),
        "p99_ms": round(quantiles(latencies, n=100)[98] * 1000, 2),
        "stdio_sqlite_p50_ms": round(stdio_p50 * 1000, 2),
        "ratio": round(median(latencies) / stdio_p50, 2),
        "single_session_p50_ms": round(median(single["latencies"]) * 1000, 2),
        "single_session_ratio": round(median(single["latencies"]) / stdio_p50, 2),
        "errors": sum(result["errors"] for result in [*results, single]),
        "cross_session_refs": sum(result["foreign"] for result in [*results, single]),
        "sessions": sessions,
        "calls": len(latencies),
    }


async def _run_http_session(client: Client, tag: str, calls: int, results: list[dict[str, Any]]) -> None:
    async with client:
        results.append(await _workload(client, tag, calls))


async def _workload(client: Client, tag: str, calls: int) -> dict[str, Any]:
    """`calls` tool calls: create a few rows, then alternate reads and renames; timed one by one."""
    latencies: list[float] = []
    errors = foreign = 0
    own: set[str] = set()
    for i in range(calls):
        if i < ROWS_PER_SESSION:
            name, arguments = "db_create", {"table": "shopping_list", "data": {"name": f"{tag} item {i}"}}
        elif i % 2:
            name, arguments = "db_read", {"table": "shopping_list", "limit": 20}
        else:
            ref = sorted(own)[i % len(own)] if own else "shop_1"
            name = "db_update"
            arguments = {"table": "shopping_list", "filters": [{"field": "id", "op": "eq", "value": ref}], "data": {"name": f"{tag} renamed {i}"}}
        started = time.perf_counter()
        result = await client.call_tool(name, arguments)
        latencies.append(time.perf_counter() - started)
        if result.is_error:
            errors += 1
            continue
        rows = result.structured_content.get("rows", [])
        if name == "db_create":
            own.update(row["id"] for row in rows)
        foreign += sum(1 for row in rows if row["id"] not in own or not row["name"].startswith(f"{tag} "))
    return {"latencies": latencies, "errors": errors, "foreign": foreign}


async def _stdio_p50(calls: int) -> float:
    """The same workload, one session, over stdio on a SQLite file: its p50 latency."""
    with tempfile.TemporaryDirectory() as folder:
        env = {"ALFRED_DB": str(Path(folder) / "bench.db"), "PATH": os.environ.get("PATH", "")}
        params = StdioServerParameters(command=sys.executable, args=["-m", "alfred_mcp", "--no-seed"], env=env)
        with anyio.fail_after(TIME_LIMIT):
            async with Client(params) as client:
                result = await _workload(client, "s0", calls)
    if result["errors"]:
        raise RuntimeError(f"the stdio baseline had {result['errors']} error(s)")
    return median(result["latencies"])
