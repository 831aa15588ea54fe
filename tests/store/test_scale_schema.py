"""Schema for scale on every backend: an index for every default filter and order, and kitchen stamps."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import INVENTORY, RECIPES, SHOPPING_LIST, TABLES
from alfred_mcp.store.base import Store
from alfred_mcp.store.ddl import scale_indexes, tables_in_fk_order

pytestmark = pytest.mark.anyio

EXPECTED = {name: table for table in tables_in_fk_order() for name, _ in scale_indexes(table)}
FK_PREFIXES = {f"{table.name}_{column.name}_" for table in TABLES.values() for column in table.fk_columns}
"""An index led by the foreign key column (alone, or first of a composite such as (recipe_id, position))."""


def _index_names(backend: str, request: pytest.FixtureRequest, store_target: Any) -> set[str]:
    if backend == "sqlite":
        with sqlite3.connect(store_target) as connection:
            return {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    import psycopg

    with psycopg.connect(request.getfixturevalue("pg_dsn")) as connection:
        return {row[0] for row in connection.execute("SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")}


async def test_every_default_filter_order_and_foreign_key_has_an_index(
    store: Store, backend: str, request: pytest.FixtureRequest, store_target: Any
) -> None:
    """(user_id, name), (user_id, <default order>) per user-owned table, and every foreign key column."""
    assert {"recipes_user_id_name_idx", "inventory_user_id_name_idx", "shopping_list_user_id_name_idx"} <= set(EXPECTED)
    names = _index_names(backend, request, store_target)
    assert set(EXPECTED) <= names, sorted(set(EXPECTED) - names)
    unindexed = [prefix for prefix in FK_PREFIXES if not any(name.startswith(prefix) for name in names)]
    assert not unindexed


@pytest.mark.sqlite_only
async def test_sqlite_answers_a_name_filter_and_a_default_page_from_an_index(store: Store, user: str, store_target: Any) -> None:
    await store.insert(RECIPES, [{"name": f"r{i}", "instructions": ["Cook."]} for i in range(30)], user_id=user)
    with sqlite3.connect(store_target) as connection:
        for sql in ('SELECT * FROM recipes WHERE user_id = ? AND name = ? ORDER BY name ASC NULLS LAST, rowid LIMIT 51',
                    'SELECT * FROM recipes WHERE user_id = ? ORDER BY name ASC NULLS LAST, rowid LIMIT 51'):
            plan = " ".join(str(row[3]) for row in connection.execute(f"EXPLAIN QUERY PLAN {sql}", [user, "r1"][: sql.count("?")]))
            assert "recipes_user_id_name_idx" in plan and "TEMP B-TREE" not in plan, plan


async def _stamp(store: Store, user: str) -> int:
    return await store.kitchen_stamp(user)


async def test_every_kitchen_write_gives_the_user_a_new_stamp_and_no_stamp_comes_back(store: Store, user: str) -> None:
    other = await store.ensure_user("bob")
    seen = [await _stamp(store, user)]
    theirs = await _stamp(store, other)
    (row,) = await store.insert(SHOPPING_LIST, [{"name": "milk"}], user_id=user)
    seen.append(await _stamp(store, user))
    mine = Where(all_of=(Filter("id", "eq", row["id"]),))
    await store.update(SHOPPING_LIST, mine, {"name": "oat milk"}, user_id=user)
    seen.append(await _stamp(store, user))
    await store.insert(INVENTORY, [{"name": "rice", "quantity": 1, "unit": "kg"}], user_id=user)
    seen.append(await _stamp(store, user))
    await store.delete(SHOPPING_LIST, mine, user_id=user)
    seen.append(await _stamp(store, user))
    await store.reset_kitchen(user)
    seen.append(await _stamp(store, user))
    assert len(set(seen)) == len(seen), seen
    assert await _stamp(store, other) == theirs
    await store.select(SHOPPING_LIST, Query(), user_id=user)
    assert await _stamp(store, user) == seen[-1]  # reads change nothing


async def test_a_rolled_back_write_leaves_the_stamp_as_it_was(store: Store, user: str) -> None:
    before = await _stamp(store, user)
    with pytest.raises(RuntimeError):
        async with store.transaction():
            await store.insert(SHOPPING_LIST, [{"name": "milk"}], user_id=user)
            raise RuntimeError("undo")
    assert await _stamp(store, user) == before
