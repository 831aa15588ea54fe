"""recipes.total_time_minutes: a database made before the column gains it on open (SQLite by itself, PostgreSQL and
Supabase by migration 0006), keeps every recipe (their total unknown), and then stores and checks the column like
any other. Runs on every backend (the `store` fixture): SQLite, PostgreSQL and Supabase."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import pytest

from alfred_mcp.errors import StoreError
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import RECIPES
from alfred_mcp.store.base import Store
from alfred_mcp.store.postgres.migrations import migrations

pytestmark = pytest.mark.anyio
COLUMN = "total_time_minutes"
OLD_RECIPES = [{"name": "Stew", "prep_time_minutes": 20, "cook_time_minutes": 120}, {"name": "Toast"}]


async def _as_before_the_column(backend: str, request: pytest.FixtureRequest, store_target: Any) -> None:
    """Make the database look as an alfred-mcp before the column left it: no column, no record of migration 0006."""
    if backend == "sqlite":
        with sqlite3.connect(store_target) as connection:
            connection.execute(f'ALTER TABLE "recipes" DROP COLUMN "{COLUMN}"')
        return
    import psycopg

    async with await psycopg.AsyncConnection.connect(request.getfixturevalue("pg_dsn"), autocommit=True) as connection:
        await connection.execute(f'ALTER TABLE "recipes" DROP COLUMN "{COLUMN}"')
        await connection.execute('DELETE FROM "alfred_schema_migrations" WHERE "version" = 6')


async def _upgrade(backend: str, request: pytest.FixtureRequest) -> None:
    """What the operator does before a Supabase server starts: apply the PostgreSQL migrations (the other backends
    upgrade themselves when opened)."""
    if backend == "supabase":
        from alfred_mcp.store.postgres import PostgresStore

        migrator = PostgresStore(request.getfixturevalue("pg_dsn"))
        await migrator.open()
        await migrator.close()


async def _columns(backend: str, request: pytest.FixtureRequest, store_target: Any) -> list[str]:
    if backend == "sqlite":
        with sqlite3.connect(store_target) as connection:
            return [row[1] for row in connection.execute('PRAGMA table_info("recipes")')]
    import psycopg

    async with await psycopg.AsyncConnection.connect(request.getfixturevalue("pg_dsn")) as connection:
        cursor = await connection.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'recipes' ORDER BY ordinal_position")
        return [row[0] for row in await cursor.fetchall()]


def test_migration_0006_adds_only_the_column_and_0001_is_as_it_was_written() -> None:
    """0001's text (and so the checksum a migrated database recorded) does not carry the later column; 0006 adds it."""
    by_version = {migration.version: migration for migration in migrations()}
    assert COLUMN not in by_version[1].sql
    assert by_version[6].name == "recipe_total_time"
    assert f'ALTER TABLE "recipes" ADD COLUMN "{COLUMN}" integer' in by_version[6].sql


async def test_an_older_database_gains_the_column_and_keeps_every_recipe(
    backend: str, store: Store, store_opener: Callable[[], Store], store_target: Any, request: pytest.FixtureRequest,
) -> None:
    user = await store.ensure_user("alice")
    await store.close()
    await _as_before_the_column(backend, request, store_target)
    assert COLUMN not in await _columns(backend, request, store_target)
    if backend == "sqlite":  # rows the older build wrote, into the older table
        with sqlite3.connect(store_target) as connection:
            connection.executemany('INSERT INTO "recipes" ("id", "user_id", "name", "prep_time_minutes", "cook_time_minutes") '
                                   "VALUES (lower(hex(randomblob(16))), ?, ?, ?, ?)",
                                   [(user, r["name"], r.get("prep_time_minutes"), r.get("cook_time_minutes")) for r in OLD_RECIPES])
    else:
        import psycopg

        async with await psycopg.AsyncConnection.connect(request.getfixturevalue("pg_dsn"), autocommit=True) as connection:
            for recipe in OLD_RECIPES:
                await connection.execute(
                    'INSERT INTO "recipes" ("user_id", "name", "prep_time_minutes", "cook_time_minutes") VALUES (%s, %s, %s, %s)',
                    (user, recipe["name"], recipe.get("prep_time_minutes"), recipe.get("cook_time_minutes")))
    await _upgrade(backend, request)

    reopened = store_opener()
    await reopened.open()
    try:
        assert (await _columns(backend, request, store_target))[-1] == COLUMN
        rows = await reopened.select(RECIPES, Query(), user_id=user)
        assert [(row["name"], row["prep_time_minutes"], row[COLUMN]) for row in rows] == [("Stew", 20, None), ("Toast", None, None)]
        (bread,) = await reopened.insert(RECIPES, [{"name": "Bread", "prep_time_minutes": 20, "cook_time_minutes": 40, COLUMN: 240}],
                                         user_id=user)
        assert bread[COLUMN] == 240
        await reopened.update(RECIPES, Where((Filter("name", "eq", "Stew"),)), {COLUMN: 150}, user_id=user)
        stew = await reopened.select(RECIPES, Query(where=Where((Filter("name", "eq", "Stew"),))), user_id=user)
        assert stew[0][COLUMN] == 150
    finally:
        await reopened.close()


@pytest.mark.parametrize("minutes", [-1, 10_001])
async def test_a_total_time_out_of_range_is_refused_naming_the_column_and_nothing_is_written(
    store: Store, user: str, minutes: int,
) -> None:
    with pytest.raises(StoreError) as raised:
        await store.insert(RECIPES, [{"name": "Bread", COLUMN: minutes}], user_id=user)
    assert COLUMN in raised.value.message
    assert await store.select(RECIPES, Query(), user_id=user) == []
