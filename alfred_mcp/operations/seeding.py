"""Lay the demo kitchen (`kitchen/seed.py`) into a store for one user, in one transaction."""

from __future__ import annotations

from datetime import date
from typing import Any

from alfred_mcp.kitchen.query import Query, Where
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.kitchen.seed import DemoKitchen, demo_kitchen
from alfred_mcp.session.unit_of_work import kitchen_setup
from alfred_mcp.store.base import KitchenStore, Row

_REFERENCE_KEYS = ("recipe", "parent")


async def seed_if_empty(store: KitchenStore, user_id: str, *, today: date) -> bool:
    """Seed the demo kitchen when the user has no recipes and no pantry; True if it did."""
    for name in ("recipes", "inventory"):
        if await store.count(TABLES[name], Where(), user_id=user_id):
            return False
    await seed(store, user_id, today=today)
    return True


async def seed(store: KitchenStore, user_id: str, *, today: date, reset: bool = False) -> dict[str, int]:
    """Write the demo kitchen (after deleting the user's rows when `reset`); counts per table."""
    kitchen = demo_kitchen(today)
    async with kitchen_setup(store):
        if reset:
            await store.reset_kitchen(user_id)
        catalog = await _ensure_catalog(store, kitchen)
        return await _write_kitchen(store, user_id, kitchen, catalog)


async def _ensure_catalog(store: KitchenStore, kitchen: DemoKitchen) -> dict[str, str]:
    """Insert catalog ingredients not yet present; map lowercased names and aliases to ids."""
    table = TABLES["ingredients"]
    existing = await store.select(table, Query(columns=("id", "name", "aliases")), user_id="")
    known = {row["name"].lower() for row in existing}
    missing = [row for row in kitchen.catalog if row["name"].lower() not in known]
    if missing:
        existing += await store.insert(table, missing, user_id="")
    index: dict[str, str] = {}
    for row in existing:
        for name in (row["name"], *(row.get("aliases") or ())):
            index.setdefault(name.lower(), row["id"])
    return index


async def _write_kitchen(store: KitchenStore, user_id: str, kitchen: DemoKitchen, catalog: dict[str, str]) -> dict[str, int]:
    counts: dict[str, int] = {}

    async def insert(table: str, rows: list[Row]) -> list[Row]:
        stored = await store.insert(TABLES[table], rows, user_id=user_id) if rows else []
        counts[table] = counts.get(table, 0) + len(stored)
        return stored

    recipe_ids: dict[str, str] = {}
    for recipe in sorted(kitchen.recipes, key=lambda r: "parent" in r.row):
        row = _without_refs(recipe.row)
        if "parent" in recipe.row:
            row["parent_recipe_id"] = recipe_ids[recipe.row["parent"]]
        (stored,) = await insert("recipes", [row])
        recipe_ids[stored["name"]] = stored["id"]
        ingredients = [
            {**_linked(item, catalog), "recipe_id": stored["id"], "position": position}
            for position, item in enumerate(recipe.ingredients, start=1)
        ]
        await insert("recipe_ingredients", ingredients)
    await insert("inventory", [_linked(item, catalog) for item in kitchen.inventory])
    await insert("shopping_list", [_linked(item, catalog) for item in kitchen.shopping_list])
    await insert("preferences", [dict(kitchen.preferences)])
    await insert("meal_plans", [_with_recipe(row, recipe_ids) for row in kitchen.meal_plans])
    await insert("tasks", [_with_recipe(row, recipe_ids) for row in kitchen.tasks])
    return counts


def _without_refs(row: dict[str, Any]) -> Row:
    return {key: value for key, value in row.items() if key not in _REFERENCE_KEYS}


def _linked(item: dict[str, Any], catalog: dict[str, str]) -> Row:
    row = _without_refs(item)
    ingredient_id = catalog.get(str(row.get("name", "")).lower())
    if ingredient_id is not None and "ingredient_id" not in row:
        row["ingredient_id"] = ingredient_id
    return row


def _with_recipe(item: dict[str, Any], recipe_ids: dict[str, str]) -> Row:
    row = _without_refs(item)
    if item.get("recipe"):
        row["recipe_id"] = recipe_ids[item["recipe"]]
    return row
