"""Issue 3 benchmark: saving a batch of drafts vs inserting the same rows with plain sqlite3."""

from __future__ import annotations

import sqlite3
import tempfile
import time
import uuid
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.operations import drafting
from alfred_mcp.operations.seeding import seed

from .timing import report

RECIPES, INGREDIENTS = 20, 15


def _recipe(i: int) -> dict[str, Any]:
    return {
        "name": f"Batch Recipe {i}", "description": "Benchmark recipe.", "cuisine": "thai", "difficulty": "easy",
        "prep_time_minutes": 10, "cook_time_minutes": 20, "servings": 4,
        "ingredients": [{"name": f"ingredient {k}", "quantity": k + 1, "unit": "g", "notes": "chopped"} for k in range(INGREDIENTS)],
        "instructions": ["Prep.", "Cook.", "Serve."],
    }


async def _save_through_drafts(app: AlfredApp, count: int) -> float:
    async with app.work("draft_create") as work:
        drafts = drafting.create_drafts(work.session, "recipe", [_recipe(i) for i in range(count)])
    start = time.perf_counter()
    async with app.work("draft_save") as work:
        manifest, _ = await drafting.save_drafts(work, [d.ref for d in drafts], batch=None, policy=None)
    elapsed = time.perf_counter() - start
    assert manifest.outcome == "completed", manifest.summary()
    return elapsed


def _plain_insert(db_path: Path, user_id: str) -> float:
    """The same rows, one transaction, straight into SQLite: the floor for saving them."""
    connection = sqlite3.connect(db_path)
    now = datetime.now(timezone.utc).isoformat()
    start = time.perf_counter()
    with connection:
        for i in range(RECIPES):
            recipe_id = str(uuid.uuid4())
            connection.execute(
                "INSERT INTO recipes (id, user_id, name, description, cuisine, difficulty, prep_time_minutes, cook_time_minutes,"
                " servings, instructions, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (recipe_id, user_id, f"Plain Recipe {i}", "Benchmark recipe.", "thai", "easy", 10, 20, 4, '["Prep.","Cook.","Serve."]', now, now),
            )
            connection.executemany(
                "INSERT INTO recipe_ingredients (id, user_id, recipe_id, position, name, quantity, unit, notes) VALUES (?,?,?,?,?,?,?,?)",
                [(str(uuid.uuid4()), user_id, recipe_id, k + 1, f"ingredient {k}", k + 1, "g", "chopped") for k in range(INGREDIENTS)],
            )
    elapsed = time.perf_counter() - start
    connection.close()
    return elapsed


async def batch_save(rounds: int = 5) -> dict[str, object]:
    ours, plain = [], []
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(rounds):
            app = AlfredApp.from_settings(Settings(db=str(Path(folder) / f"batch-{round_}.db"), seed_demo=False))
            await app.open()
            await seed(app.store, app.user_id, today=date(2026, 1, 12))
            await _save_through_drafts(app, 2)  # warm-up: a running server has its catalog index built
            ours.append(await _save_through_drafts(app, RECIPES))
            await app.close()
            plain.append(_plain_insert(Path(folder) / f"batch-{round_}.db", app.user_id))
    ours_s, plain_s = sorted(ours)[rounds // 2], sorted(plain)[rounds // 2]
    return report(
        ours_s / plain_s, 2.0,
        ms_per_recipe=round(ours_s / RECIPES * 1e3, 3), plain_ms_per_recipe=round(plain_s / RECIPES * 1e3, 3),
        recipes=RECIPES, ingredients_each=INGREDIENTS,
    )
