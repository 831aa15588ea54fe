"""Read overhead over MCP, translation cost, registry lookups and session saves as the session grows."""

from __future__ import annotations

import json
import sqlite3
import statistics
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypedDict

from mcp import Client
from mcp.server import MCPServer

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.kitchen.schema import RECIPES
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.state.registry import SessionIdRegistry
from alfred_mcp.state.translate import translate_rows
from alfred_mcp.store.sqlite import SQLiteStore

from .bare_http import SameSchemaServer, db_read_schema
from .timing import MIN_SAMPLES, ms, paired, paired_sync, report

READ_ROWS = 50


async def _app_with_recipes(folder: Path, count: int) -> AlfredApp:
    app = AlfredApp.from_settings(Settings(db=str(folder / "bench.db"), seed_demo=False))
    await app.open()
    rows = [{"name": f"Recipe {i:05d}", "cuisine": "thai", "servings": 2, "instructions": ["Cook.", "Eat."],
             "description": "A benchmark recipe.", "prep_time_minutes": 10, "cook_time_minutes": 20} for i in range(count)]
    for start in range(0, count, 500):
        await app.store.insert(RECIPES, rows[start:start + 500], user_id=app.user_id)
    return app


class RecipePage(TypedDict):
    """What db_read returns, as a plain SDK tool would declare it (the SDK derives the outputSchema)."""

    table: str
    rows: list[dict[str, Any]]
    count: int
    truncated: bool


def _bare_server(db_path: Path) -> MCPServer:
    """The like-for-like baseline: a plain SDK tool returning the same rows, the same way typed, from SQLite.

    Same rows: the columns db_read returns, lists and booleans decoded as the store decodes them.
    Same shape: a typed result, advertised with db_read's own published outputSchema, which the client
    validates every result against, as it does db_read's. Async, so the SDK runs it on the event
    loop: the strongest simple baseline, and one that does not depend on thread scheduling.
    """
    bare = SameSchemaServer("bare", db_read_schema())
    connection = sqlite3.connect(db_path, check_same_thread=False)
    columns = ", ".join(f'"{name}"' for name in RECIPES.visible_columns)
    arrays = [c.name for c in RECIPES.columns if c.type == "text[]"]
    flags = [c.name for c in RECIPES.columns if c.type == "bool"]

    @bare.tool()
    async def read_recipes(limit: int) -> RecipePage:
        found = connection.execute(f"SELECT {columns} FROM recipes ORDER BY name LIMIT ?", (limit + 1,)).fetchall()
        rows = []
        for values in found[:limit]:
            row = dict(zip(RECIPES.visible_columns, values))
            row.update({name: json.loads(row[name]) for name in arrays})
            row.update({name: bool(row[name]) for name in flags})
            rows.append(row)
        return {"table": "recipes", "rows": rows, "count": len(rows), "truncated": len(found) > limit}

    return bare


def _raw_bare_server(db_path: Path) -> MCPServer:
    """The baseline the target is measured against: a sync tool (the SDK runs it on a worker thread)
    returning the rows as SQLite gives them (lists still JSON text), untyped (no outputSchema to check)."""
    bare = MCPServer("raw")
    connection = sqlite3.connect(db_path, check_same_thread=False)
    connection.row_factory = sqlite3.Row

    @bare.tool()
    def read_recipes(limit: int) -> dict[str, Any]:
        rows = connection.execute("SELECT * FROM recipes ORDER BY name LIMIT ?", (limit,)).fetchall()
        return {"rows": [dict(row) for row in rows]}

    return bare


async def read_overhead(repeat: int = 200) -> dict[str, object]:
    """db_read of 50 rows through the in-memory MCP client vs a bare SDK tool returning the same rows.

    The target ratio is against the first baseline (raw rows, untyped, a sync tool: the SDK runs it
    on a worker thread). `ratio_typed` is against a typed async tool returning the same decoded rows
    with an outputSchema the client validates, as it validates db_read's: like for like, reported.
    """
    with tempfile.TemporaryDirectory() as folder:
        app = await _app_with_recipes(Path(folder), READ_ROWS)
        path = Path(folder) / "bench.db"
        try:
            async with Client(build_server(app)) as ours, Client(_bare_server(path)) as typed, Client(_raw_bare_server(path)) as raw:
                args = {"table": "recipes", "limit": READ_ROWS, "order_by": [{"field": "name"}]}
                ours_call = lambda: ours.call_tool("db_read", args)  # noqa: E731
                result = await paired(ours_call, lambda: raw.call_tool("read_recipes", {"limit": READ_ROWS}), repeat=repeat)
                versus_typed = await paired(ours_call, lambda: typed.call_tool("read_recipes", {"limit": READ_ROWS}), repeat=repeat // 2)
        finally:
            await app.close()
    return report(result.ratio, 1.3, **result.fields("ours_ms", "bare_ms"), rows=READ_ROWS,
                  ratio_typed=round(versus_typed.ratio, 3), typed_bare_ms=ms(statistics.median(versus_typed.base)))


async def translate_10k(rows_count: int = 10_000, repeat: int = 15) -> dict[str, object]:
    """Translating 10,000 fetched rows to refs vs fetching them from SQLite, sampled alternately."""
    with tempfile.TemporaryDirectory() as folder:
        app = await _app_with_recipes(Path(folder), rows_count)
        await app.close()
        connection = sqlite3.connect(Path(folder) / "bench.db")
        connection.row_factory = sqlite3.Row

        def fetch() -> list[dict[str, Any]]:
            return [dict(row) for row in connection.execute("SELECT * FROM recipes")]

        rows = fetch()
        result = paired_sync(lambda: translate_rows(RECIPES, rows, SessionIdRegistry(), turn=1, action="read"), fetch, repeat=repeat)
        connection.close()
    return report(
        result.ratio, 1.0, translate_ms=ms(statistics.median(result.ours)), fetch_ms=ms(statistics.median(result.base)),
        spread=[round(v, 3) for v in result.spread()], samples=len(result.ours), rows=rows_count,
    )


def _registry(size: int) -> tuple[SessionIdRegistry, list[str]]:
    registry = SessionIdRegistry()
    refs = [registry.register_row("recipe", f"row-{i:08d}", f"Recipe {i}", turn=1, action="read") for i in range(size)]
    return registry, refs


def _lookups(registry: SessionIdRegistry, refs: list[str]) -> Callable[[], None]:
    """Looking up each of `refs` both ways: ref -> row id, then row id -> ref."""
    rows = [str(registry.resolve(ref)) for ref in refs]

    def lookup_both_ways() -> None:
        for ref, row_id in zip(refs, rows):
            registry.resolve(ref, expected_type="recipe")
            registry.ref_for_row(row_id)

    return lookup_both_ways


def registry_lookup_scaling(lookups: int = 20_000, working_set: int = 1_000, repeat: int = MIN_SAMPLES) -> dict[str, object]:
    """ref -> row id and row id -> ref, per lookup, in a 100k-ref registry vs a 1k one, sampled alternately.

    The ratio uses the realistic pattern: a turn resolves refs of its working set, here 1,000
    distinct refs spread evenly over the whole registry, looked up in a shuffled order. The
    uniformly random pattern over all 100k refs is reported beside it: there every lookup
    misses the CPU caches, which measures the memory hierarchy rather than the algorithm.
    """
    probes: dict[str, dict[int, Callable[[], None]]] = {"working_set": {}, "uniform": {}}
    registries = []  # kept alive while sampled
    for size in (1_000, 100_000):
        registry, refs = _registry(size)
        registries.append(registry)
        stride = size // working_set
        probes["working_set"][size] = _lookups(registry, [refs[((i * 7919) % working_set) * stride] for i in range(lookups)])
        probes["uniform"][size] = _lookups(registry, [refs[(i * 7919) % size] for i in range(lookups)])
    hot = paired_sync(probes["working_set"][100_000], probes["working_set"][1_000], repeat=repeat)
    uniform = paired_sync(probes["uniform"][100_000], probes["uniform"][1_000], repeat=repeat // 2)

    def per_lookup(samples: list[float]) -> int:
        return round(statistics.median(samples) / lookups * 1e9)

    return report(
        hot.ratio, 1.3, spread=[round(v, 3) for v in hot.spread()], samples=len(hot.ours),
        ns_1k=per_lookup(hot.base), ns_100k=per_lookup(hot.ours),
        uniform_ratio=round(uniform.ratio, 3), uniform_ns_100k=per_lookup(uniform.ours),
    )


async def session_save_scaling(repeat: int = MIN_SAMPLES) -> dict[str, object]:
    """Saving a session after one new ref, 100k refs vs 1k (incremental persistence), sampled alternately."""
    with tempfile.TemporaryDirectory() as folder:
        saves = {}
        stores = []
        for size in (1_000, 100_000):
            store = SQLiteStore(Path(folder) / f"save-{size}.db")
            await store.open()
            stores.append(store)
            user = await store.ensure_user("bench")
            record = await store.create_session(user)
            registry, _ = _registry(size)
            await store.save_session_state(record.session_id, turn=1, entries=registry.dirty_entries(), counters=registry.counters())
            registry.clear_dirty()
            saves[size] = _one_new_ref_saved(store, record.session_id, registry)
        try:
            result = await paired(saves[100_000], saves[1_000], repeat=repeat)
        finally:
            for store in stores:
                await store.close()
    return report(
        result.ratio, 2.0, ms_1k=ms(statistics.median(result.base)), ms_100k=ms(statistics.median(result.ours)),
        spread=[round(v, 3) for v in result.spread()], samples=len(result.ours),
    )


def _one_new_ref_saved(store: SQLiteStore, session_id: str, registry: SessionIdRegistry) -> Callable[[], Awaitable[None]]:
    """A sample: one new ref registered (untimed work is negligible), then the session saved."""
    added = iter(range(10**9))

    async def save() -> None:
        registry.register_row("inv", f"new-{next(added)}", "New", turn=2, action="created")
        await store.save_session_state(session_id, turn=2, entries=registry.dirty_entries(), counters=registry.counters())
        registry.clear_dirty()

    return save


