"""HTTP on PostgreSQL, one variable at a time: clients at one replica, then replicas at fixed clients.

Every client is its own user (its own bearer token) with its own session on `alfred-mcp serve
--http` processes over one throwaway PostgreSQL (loopback). A client makes `CALLS` tool calls: it
adds a few shopping-list rows, then alternates reads and renames, each timed.

- http_clients: 1, 2, 4, 8 clients on one replica.
- http_replicas: 8 clients on 1 and 2 replicas (clients spread round robin).

Each configuration reports calls/s, p50 and p99 latency, the server processes' CPU per call and
the cores they used (CPU seconds / wall seconds), the cores PostgreSQL and the clients (this
process) used, errors (must be 0) and rows seen outside their own session (must be 0). On 2
shared cores the clients' own CPU bounds what any number of replicas can serve. CPU is read from /proc, so it is measured
on Linux only. Skipped with a reason without PostgreSQL.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from statistics import median, quantiles
from typing import Any

import anyio
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

CALLS = 150
ROWS_PER_SESSION = 5
TIME_LIMIT = 600.0
CLIENT_COUNTS = (1, 2, 4, 8)
REPLICA_COUNTS = (1, 2)
FIXED_CLIENTS = 8


async def http_clients() -> dict[str, object]:
    """Clients at one replica."""
    return await _sweep("clients", [(clients, 1) for clients in CLIENT_COUNTS])


async def http_replicas() -> dict[str, object]:
    """Replicas at a fixed number of clients."""
    return await _sweep("replicas", [(FIXED_CLIENTS, replicas) for replicas in REPLICA_COUNTS])


async def _sweep(variable: str, configurations: list[tuple[int, int]]) -> dict[str, object]:
    try:
        import psycopg  # noqa: F401
        from pg_harness import PostgresUnavailable, create_database, postgres_server
    except ImportError as error:
        return {"skipped": f"psycopg is not installed: {error}"}
    results: dict[str, object] = {}
    try:
        with postgres_server() as server, anyio.fail_after(TIME_LIMIT):
            for number, (clients, replicas) in enumerate(configurations):
                dsn = create_database(server, f"bench_{variable}_{number}")
                key = str(clients if variable == "clients" else replicas)
                results[key] = await _run(dsn, clients, replicas, _postmaster(server.root))
    except PostgresUnavailable as error:
        return {"skipped": str(error)}
    return {"reported": variable, **({"fixed_clients": FIXED_CLIENTS} if variable == "replicas" else {"replicas": 1}),
            "calls_per_client": CALLS, "cores": os.cpu_count(), "by_" + variable: results}


async def _run(dsn: str, clients: int, replicas: int, postmaster: int | None) -> dict[str, object]:
    from http_harness import http_client

    tokens = {f"bench-token-{i:02d}-0123456789": f"bench{i}" for i in range(clients)}
    async with _replicas(dsn, tokens, replicas) as (urls, pids):
        for warm, token in enumerate(tokens):  # every user exists and has a session before the clock starts
            async with http_client(urls[warm % len(urls)], token) as client:
                await client.call_tool("db_read", {"table": "shopping_list", "limit": 1})
        outcomes: list[dict[str, Any]] = []
        server_cpu, pg_cpu = _cpu_seconds(pids), _cpu_seconds(_children(postmaster))
        client_cpu = time.process_time()
        started = time.perf_counter()
        async with anyio.create_task_group() as group:
            for number, token in enumerate(tokens):
                group.start_soon(_session, http_client(urls[number % len(urls)], token), f"s{number}", outcomes)
        elapsed = time.perf_counter() - started
        client_cpu = time.process_time() - client_cpu
        server_cpu = _cpu_seconds(pids) - server_cpu
        pg_cpu = _cpu_seconds(_children(postmaster)) - pg_cpu
    latencies = [t for outcome in outcomes for t in outcome["latencies"]]
    return {
        "calls_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(median(latencies) * 1000, 2),
        "p99_ms": round(quantiles(latencies, n=100)[98] * 1000, 2),
        "server_cpu_ms_per_call": round(server_cpu / len(latencies) * 1000, 3),
        "server_cores": round(server_cpu / elapsed, 2),
        "postgres_cores": round(pg_cpu / elapsed, 2),
        "client_cores": round(client_cpu / elapsed, 2),
        "errors": sum(outcome["errors"] for outcome in outcomes),
        "cross_session_refs": sum(outcome["foreign"] for outcome in outcomes),
        "calls": len(latencies),
    }


@asynccontextmanager
async def _replicas(dsn: str, tokens: Mapping[str, str], count: int) -> AsyncIterator[tuple[list[str], list[int]]]:
    """`count` server processes on `dsn`; their /mcp URLs and pids."""
    from http_harness import http_server

    pids: list[int] = []
    async with AsyncExitStack() as stack:
        urls = [await stack.enter_async_context(http_server(dsn, tokens, pids=pids)) for _ in range(count)]
        yield urls, pids


async def _session(client: Client, tag: str, outcomes: list[dict[str, Any]]) -> None:
    async with client:
        outcomes.append(await _workload(client, tag, CALLS))


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


# -- CPU from /proc -------------------------------------------------------------------------------

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of the processes (0 for a process that is gone)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / _TICKS


def _postmaster(root: Path) -> int | None:
    try:
        return int((root / "data" / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _children(parent: int | None) -> list[int]:
    """The postmaster and its backends."""
    if parent is None:
        return []
    found = [parent]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                    found.append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    return found
