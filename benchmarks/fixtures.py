"""Kitchens and sessions of a given size, built with bulk inserts (the store's own multi-row insert).

A scaled kitchen is the demo kitchen (catalog, pantry, preferences with an allergy and dislikes)
plus copies of its 11 recipes, each copy under its own name and with all its ingredients, until
the kitchen holds the number of recipes asked for.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date
from pathlib import Path
from typing import Any

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.kitchen.schema import RECIPE_INGREDIENTS, RECIPES
from alfred_mcp.kitchen.seed import demo_kitchen
from alfred_mcp.operations.seeding import seed
from alfred_mcp.state.registry import RefEntry

TODAY = date.today()
"""The day the demo kitchen is laid as of: the day the benchmark runs, so its use-by dates are as near as seeded (a
pantry seeded for a fixed day months ago is past its dates, and covers nothing on the shopping list)."""
CHUNK = 2_000


@asynccontextmanager
async def opened_app(path: Path, *, seeded: bool = True) -> AsyncIterator[AlfredApp]:
    """An app over the SQLite file `path` (demo kitchen laid on first open when `seeded`)."""
    app = AlfredApp.from_settings(Settings(db=str(path), seed_demo=False))
    await app.open()
    try:
        if seeded and not await app.store.select(RECIPES, _one(), user_id=app.user_id):
            await seed(app.store, app.user_id, today=TODAY)
        yield app
    finally:
        await app.close()


def _one() -> Any:
    from alfred_mcp.kitchen.query import Query

    return Query(columns=("id",), limit=1)


async def add_recipes(app: AlfredApp, count: int, *, with_ingredients: bool = True, start: int = 0) -> None:
    """`count` more recipes, copies of the demo recipes named '<name> #<n>', ingredients included."""
    demo = demo_kitchen(TODAY).recipes
    for first in range(start, start + count, CHUNK):
        numbers = range(first, min(first + CHUNK, start + count))
        rows = [_copy(demo[n % len(demo)].row, n) for n in numbers]
        stored = await app.store.insert(RECIPES, rows, user_id=app.user_id)
        if not with_ingredients:
            continue
        parts = [
            {**part, "recipe_id": row["id"], "position": position}
            for n, row in zip(numbers, stored)
            for position, part in enumerate(demo[n % len(demo)].ingredients, start=1)
        ]
        for offset in range(0, len(parts), CHUNK):
            await app.store.insert(RECIPE_INGREDIENTS, parts[offset:offset + CHUNK], user_id=app.user_id)


def _copy(row: dict[str, Any], n: int) -> dict[str, Any]:
    copy = {key: value for key, value in row.items() if key != "parent"}
    return {**copy, "name": f"{row['name']} #{n:06d}"}


async def kitchen_with(folder: Path, name: str, recipes: int, *, with_ingredients: bool = True) -> Path:
    """A seeded SQLite kitchen holding `recipes` recipes in all; its path."""
    path = folder / f"{name}.db"
    async with opened_app(path) as app:
        extra = recipes - len(demo_kitchen(TODAY).recipes)
        await add_recipes(app, max(extra, 0), with_ingredients=with_ingredients)
    return path


async def session_with_refs(app: AlfredApp, refs: int, *, turns: int = 100) -> str:
    """A new session (made current) whose registry holds `refs` recipe refs spread over `turns` turns; its name."""
    session, _ = await app.sessions.start(app.user_id)
    per_turn = max(refs // turns, 1)
    entries = [
        RefEntry(f"recipe_{n}", "recipe", f"00000000-0000-4000-8000-{n:012d}", f"Recipe {n}", "read",
                 1 + (n - 1) // per_turn, 1 + (n - 1) // per_turn)
        for n in range(1, refs + 1)
    ]
    last_turn = entries[-1].turn_last_ref if entries else 1
    for offset in range(0, len(entries), 20_000):
        chunk = entries[offset:offset + 20_000]
        await app.store.save_session_state(session.record.session_id, turn=last_turn, entries=chunk, counters={"recipe": refs})
    return session.name


def temporary_folder() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="alfred-bench-")
