"""Scaling: the same call on a small and a large kitchen or session, side by side in one run.

Each entry keeps two apps open (small and large), each with its in-memory MCP client, and times
the same call on both alternately. The ratio is large / small (medians); 1.0 is flat.

- search_scaling: recipes_search (four queries in turn) with 10,000 vs 100 recipes.
- makeable_scaling: recipes_makeable (two queries in turn) with 10,000 vs 100 recipes.
- read_by_name_scaling: db_read of one recipe by name (`name eq`) with 100,000 vs 100 recipes.
- turn_scaling: turn_begin at turn 1,000 vs turn 10 of a session whose turns each read and write.
- restart_scaling: a new server process's work from start to the first answered call (open the
  store, build the server, connect, one db_read), with 100,000 vs 1,000 refs in the session.

search and makeable also report `after_write_ms`: the call right after a recipe is added (the
recipe index is rebuilt then), so the cost of a cold call is on the record too.

- search_after_write_scaling / makeable_after_write_scaling: the first call after a write of one
  shopping line (db_create, which leaves the recipe index as it was), 10,000 vs 100 recipes; and,
  reported beside it, the first call after a write to a recipe (which rebuilds the index).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server

from .fixtures import add_recipes, kitchen_with, opened_app, session_with_refs, temporary_folder
from .timing import MIN_SAMPLES, Paired, interleaved, ms, paired, report, timed

SEARCHES: tuple[dict[str, Any], ...] = (
    {"category": "fish"}, {"ingredient": "garlic"}, {"category": "legumes", "max_minutes": 45}, {"cuisine": "italian"},
)
MAKEABLE: tuple[dict[str, Any], ...] = ({}, {"min_coverage": 0.5})


@asynccontextmanager
async def _clients(*paths: Path) -> AsyncIterator[list[tuple[AlfredApp, Client]]]:
    async with AsyncExitStack() as stack:
        pairs = []
        for path in paths:
            app = await stack.enter_async_context(opened_app(path, seeded=False))
            pairs.append((app, await stack.enter_async_context(Client(build_server(app)))))
        yield pairs


def _rotating(client: Client, tool: str, queries: tuple[dict[str, Any], ...]) -> Callable[[], Awaitable[object]]:
    count = 0

    async def call() -> object:
        nonlocal count
        arguments = queries[count % len(queries)]
        count += 1
        result = await client.call_tool(tool, arguments)
        assert not result.is_error, result.content
        return result

    return call


async def _after_write(app: AlfredApp, client: Client, tool: str, arguments: dict[str, Any], *, rounds: int = 3) -> float:
    """Median seconds of `tool` called right after a kitchen write (a recipe added each round)."""
    samples = []
    for n in range(rounds):
        await add_recipes(app, 1, start=900_000 + n)
        samples.append(await timed(lambda: client.call_tool(tool, arguments)))
    return statistics.median(samples)


async def _kitchen_scaling(tool: str, queries: tuple[dict[str, Any], ...], small: int, large: int) -> dict[str, object]:
    with temporary_folder() as folder:
        paths = [await kitchen_with(Path(folder), f"k{size}", size) for size in (small, large)]
        async with _clients(*paths) as [(small_app, small_client), (large_app, large_client)]:
            result = await paired(_rotating(large_client, tool, queries), _rotating(small_client, tool, queries),
                                  repeat=MIN_SAMPLES * 2, warmup=len(queries))
            cold_small = await _after_write(small_app, small_client, tool, queries[0])
            cold_large = await _after_write(large_app, large_client, tool, queries[0])
    return report(result.ratio, 3.0, **result.fields(f"ms_{large}", f"ms_{small}"),
                  after_write_ms={str(small): ms(cold_small), str(large): ms(cold_large)})


async def _shopping_line(app: AlfredApp, client: Client, n: int) -> None:
    result = await client.call_tool("db_create", {"table": "shopping_list", "data": {"name": f"oat milk {n}"}})
    assert not result.is_error, result.content


async def _recipe(app: AlfredApp, client: Client, n: int) -> None:
    await add_recipes(app, 1, start=900_000 + n)


Write = Callable[[AlfredApp, Client, int], Awaitable[None]]


def _first_after(app: AlfredApp, client: Client, write: Write, tool: str, queries: tuple[dict[str, Any], ...]) -> Callable[[], Awaitable[float]]:
    """Each call: `write` (not timed), then the seconds of the next `tool` call (queries in turn)."""
    count = 0
    query = _rotating(client, tool, queries)

    async def side() -> float:
        nonlocal count
        await write(app, client, count)
        count += 1
        return await timed(query)

    return side


async def _after_write_scaling(tool: str, queries: tuple[dict[str, Any], ...], small: int, large: int) -> dict[str, object]:
    with temporary_folder() as folder:
        paths = [await kitchen_with(Path(folder), f"w{size}", size) for size in (small, large)]
        async with _clients(*paths) as [(small_app, small_client), (large_app, large_client)]:
            sides = [(_first_after(large_app, large_client, write, tool, queries), _first_after(small_app, small_client, write, tool, queries))
                     for write in (_shopping_line, _recipe)]
            shopping = await interleaved(*sides[0], repeat=MIN_SAMPLES, warmup=len(queries))
            recipe = await interleaved(*sides[1], repeat=MIN_SAMPLES // 3, warmup=1)
    recipe_fields = {"ratio": round(recipe.ratio, 3), **recipe.fields(f"ms_{large}", f"ms_{small}")}
    return report(shopping.ratio, 3.0, **shopping.fields(f"ms_{large}", f"ms_{small}"), after_recipe_write=recipe_fields)


async def search_after_write_scaling() -> dict[str, object]:
    return await _after_write_scaling("recipes_search", SEARCHES, 100, 10_000)


async def makeable_after_write_scaling() -> dict[str, object]:
    return await _after_write_scaling("recipes_makeable", MAKEABLE, 100, 10_000)


async def search_scaling() -> dict[str, object]:
    return await _kitchen_scaling("recipes_search", SEARCHES, 100, 10_000)


async def makeable_scaling() -> dict[str, object]:
    return await _kitchen_scaling("recipes_makeable", MAKEABLE, 100, 10_000)


async def read_by_name_scaling(small: int = 100, large: int = 100_000) -> dict[str, object]:
    with temporary_folder() as folder:
        paths = [await kitchen_with(Path(folder), f"n{size}", size, with_ingredients=False) for size in (small, large)]
        async with _clients(*paths) as [(_, small_client), (_, large_client)]:
            result = await paired(_by_name(large_client, small), _by_name(small_client, small), repeat=MIN_SAMPLES * 2)
    return report(result.ratio, 1.5, **result.fields(f"ms_{large}", f"ms_{small}"))


def _by_name(client: Client, names: int) -> Callable[[], Awaitable[object]]:
    """db_read name eq, for a recipe name both kitchens have (names rotate over the small kitchen's)."""
    count = 0

    async def call() -> object:
        nonlocal count
        copy = 11 * (count % ((names - 11) // 11))  # copies of the first demo recipe are numbered 0, 11, 22, ...
        name = f"Lemon Garlic Baked Cod #{copy:06d}"
        count += 1
        result = await client.call_tool("db_read", {"table": "recipes", "filters": [{"field": "name", "op": "eq", "value": name}]})
        assert not result.is_error and len(result.structured_content["rows"]) == 1, result.content
        return result

    return call


# -- turn_scaling -------------------------------------------------------------------------------


async def _play_turn(client: Client, session: str, turn: int) -> float:
    """One turn of a session: turn_begin (timed), then two reads and a write."""
    started = await timed(lambda: _ok(client.call_tool("turn_begin", {"message": f"turn {turn}: what can I cook?", "session": session})))
    await _ok(client.call_tool("db_read", {"table": "inventory", "limit": 8, "session": session}))
    await _ok(client.call_tool("recipes_search", {"category": "fish", "session": session}))
    await _ok(client.call_tool("db_create", {"table": "tasks", "data": {"title": f"Prep for turn {turn}"}, "session": session}))
    return started


async def _ok(call: Awaitable[Any]) -> Any:
    result = await call
    assert not result.is_error, result.content
    return result


async def turn_scaling(early: int = 10, late: int = 1_000, smalls: int = 3) -> dict[str, object]:
    """turn_begin at turn 1,000+ vs turn 10+; `smalls` early sessions take turns so each stays near turn 10."""
    with temporary_folder() as folder:
        async with opened_app(Path(folder) / "turns.db") as app, Client(build_server(app)) as client:
            sessions = {}
            for target in [late] + [early] * smalls:
                name = (await _ok(client.call_tool("session_start", {}))).structured_content["session"]
                for turn in range(2, target + 1):
                    await _play_turn(client, name, turn)
                sessions.setdefault(target, []).append(name)
            result = Paired([], [])
            for i in range(MIN_SAMPLES):
                small = sessions[early][i % smalls]
                result.ours.append(await _play_turn(client, sessions[late][0], late + 1 + i))
                result.base.append(await _play_turn(client, small, early + 1 + i // smalls))
    return report(result.ratio, 1.2, **result.fields(f"ms_turn_{late}", f"ms_turn_{early}"))


# -- restart_scaling ----------------------------------------------------------------------------


async def _first_answer(path: Path) -> float:
    """Seconds from nothing to the first answered call: open the store, build the server, connect, db_read."""
    from alfred_mcp.config import Settings

    started = time.perf_counter()
    app = AlfredApp.from_settings(Settings(db=str(path), seed_demo=False))
    await app.open()
    try:
        async with Client(build_server(app)) as client:
            await _ok(client.call_tool("db_read", {"table": "recipes", "limit": 10}))
            elapsed = time.perf_counter() - started
    finally:
        await app.close()
    return elapsed


async def restart_scaling(small: int = 1_000, large: int = 100_000, repeat: int = 15) -> dict[str, object]:
    with temporary_folder() as folder:
        paths = {}
        for size in (small, large):
            paths[size] = await kitchen_with(Path(folder), f"r{size}", 50, with_ingredients=False)
            async with opened_app(paths[size], seeded=False) as app:
                await session_with_refs(app, size, turns=max(size // 100, 1))
        result = await interleaved(lambda: _first_answer(paths[large]), lambda: _first_answer(paths[small]), repeat=repeat, warmup=2)
    return report(result.ratio, 2.0, **result.fields(f"ms_{large}_refs", f"ms_{small}_refs"))
