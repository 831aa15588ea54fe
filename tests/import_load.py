"""Many users importing heavy pages while one more user reads: how long the reader waits.

One `alfred-mcp serve --http` process over a SQLite file, the loopback recipe site (`recipe_site.py`,
whose `HEAVY_PAGES` cost the most to read) in a process of its own (so serving pages never slows the
clients), IMPORTERS users each importing those pages in a loop, and one reader timing `describe_table` calls. Used by tests/transport/test_import_isolation.py and
the `import_isolation` benchmark.
"""

from __future__ import annotations

import math
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from http_harness import http_client, http_server
from recipe_site import HEAVY_PAGES

_SITE = ("import sys, time; sys.path.insert(0, sys.argv[1]); from recipe_site import recipe_site\n"
         "with recipe_site() as url:\n    print(url, flush=True)\n    time.sleep(3600)")

IMPORTERS = 10
READER = "reader-token-0123456789"
ALONE_READS = 30
"""Reads timed with no import running, on the same server just before the importers start."""


@dataclass
class Load:
    """The reader's latencies (seconds) while importers ran, how many imports were in flight at each read,
    the imports made while the reader read, internal errors of imports (none may happen), and the reader's latencies
    alone on the same server just before the importers started (the machine's pace at that moment)."""

    reads: list[float]
    in_flight: list[int]
    imports: int
    import_errors: list[str]
    alone: list[float]

    def percentile(self, share: float, of: list[float] | None = None) -> float:
        """The nearest-rank percentile of the reads, or of `of` (0.99 of 100 reads: the second slowest)."""
        ordered = sorted(self.reads if of is None else of)
        return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


async def reader_under_load(reads: int = 60, importers: int = IMPORTERS) -> Load:
    """`reads` timed reads by one user while `importers` users import the heavy pages over and over."""
    tokens = {READER: "reader", **{f"importer-{i:02d}-0123456789": f"importer{i}" for i in range(importers)}}
    with tempfile.TemporaryDirectory(prefix="alfred-import-load-") as folder:
        db = str(Path(folder) / "kitchen.db")
        async with _site() as site, http_server(db, tokens, {"ALFRED_IMPORT_ALLOW_NETWORKS": "127.0.0.0/8"}) as url:
            return await _measure(url, site, tokens, reads)


@asynccontextmanager
async def _site() -> AsyncIterator[str]:
    """The recipe site in a process of its own; yields its base URL."""
    command = [sys.executable, "-c", _SITE, str(Path(__file__).parent)]
    async with await anyio.open_process(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE) as process:
        assert process.stdout is not None
        line = b""
        with anyio.fail_after(30):
            while not line.endswith(b"\n"):
                line += await process.stdout.receive(1)
        try:
            yield line.decode().strip()
        finally:
            process.terminate()


async def _measure(url: str, site: str, tokens: dict[str, str], reads: int) -> Load:
    pages = [f"{site}{path}" for path in HEAVY_PAGES]
    counted = {"imports": 0, "in_flight": 0}
    errors: list[str] = []
    in_flight: list[int] = []
    async with http_client(url, READER) as reader:
        await reader.call_tool("describe_table", {"table": "recipes"})
        alone = await _timed_reads(reader, ALONE_READS)
        warm = anyio.Event()

        async def importer(token: str, first: int) -> None:
            async with http_client(url, token) as client:
                for turn in range(first, 10_000):
                    counted["in_flight"] += 1
                    result = await client.call_tool("recipes_import", {"source": pages[turn % len(pages)]})
                    counted["in_flight"] -= 1
                    text = result.content[0].text if result.content else ""
                    if result.is_error and "Internal" in text:
                        errors.append(text[:200])
                    counted["imports"] += 1
                    if counted["imports"] >= len(pages):
                        warm.set()  # every kind of page was read once: the server's parsers are loaded

        async with anyio.create_task_group() as group:
            for index, token in enumerate(t for t in tokens if t != READER):
                group.start_soon(importer, token, index)
            if len(tokens) == 1:
                warm.set()  # no importers: the reader alone, the baseline
            await warm.wait()
            before = counted["imports"]
            latencies = await _timed_reads(reader, reads, lambda: in_flight.append(counted["in_flight"]))
            group.cancel_scope.cancel()
    return Load(latencies, in_flight, counted["imports"] - before, errors, alone)


async def _timed_reads(reader: Any, reads: int, before_each: Callable[[], None] = lambda: None) -> list[float]:
    """The latency (seconds) of each of `reads` `describe_table` calls by the reader, 20 ms apart."""
    latencies = []
    for _ in range(reads):
        before_each()
        began = time.perf_counter()
        await reader.call_tool("describe_table", {"table": "recipes"})
        latencies.append(time.perf_counter() - began)
        await anyio.sleep(0.02)
    return latencies
