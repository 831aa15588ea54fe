"""Schema for scale on every backend: an index for every default filter and order, kitchen stamps and table stamps."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import INGREDIENTS, INVENTORY, MEAL_PLANS, RECIPE_INGREDIENTS, RECIPES, SHOPPING_LIST, TABLES
from alfred_mcp.store.base import Store
from alfred_mcp.store.ddl import scale_indexes, tables_a_write_reaches, tables_in_fk_order

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


OWNED = tuple(table.name for table in tables_in_fk_order() if table.user_owned)


async def _table_stamps(store: Store, user: str) -> dict[str, int]:
    return dict(zip(OWNED, await store.table_stamps(user, OWNED)))


def _changed(before: dict[str, int], after: dict[str, int]) -> set[str]:
    return {name for name in OWNED if before[name] != after[name]}


async def test_a_write_changes_the_stamps_of_exactly_the_tables_it_reaches_for_its_user_only(store: Store, user: str) -> None:
    """Each write moves its own table's stamp (a delete also those its ON DELETE actions changed), never another
    table's outside its reach, never another user's; no stamp comes back."""
    other = await store.ensure_user("bob")
    theirs = await _table_stamps(store, other)
    (recipe,) = await store.insert(RECIPES, [{"name": "Stew", "instructions": ["Cook."]}], user_id=user)
    the_recipe = Where(all_of=(Filter("id", "eq", recipe["id"]),))
    steps: list[tuple[Any, Any, set[str]]] = [
        (SHOPPING_LIST, lambda: store.insert(SHOPPING_LIST, [{"name": "milk"}], user_id=user), {"shopping_list"}),
        (INVENTORY, lambda: store.insert(INVENTORY, [{"name": "rice", "quantity": 1, "unit": "kg"}], user_id=user), {"inventory"}),
        (RECIPE_INGREDIENTS, lambda: store.insert(RECIPE_INGREDIENTS, [{"recipe_id": recipe["id"], "name": "beef", "position": 1}],
                                                  user_id=user), {"recipe_ingredients"}),
        (MEAL_PLANS, lambda: store.insert(MEAL_PLANS, [{"date": "2026-01-20", "meal_type": "dinner", "recipe_id": recipe["id"]}],
                                          user_id=user), {"meal_plans"}),
        (RECIPES, lambda: store.update(RECIPES, the_recipe, {"name": "Beef Stew"}, user_id=user), {"recipes"}),
        (RECIPES, lambda: store.delete(RECIPES, the_recipe, user_id=user), {"recipes", "recipe_ingredients", "meal_plans"}),
    ]
    seen: dict[str, set[int]] = {name: {stamp} for name, stamp in (await _table_stamps(store, user)).items()}
    for table, write, must in steps:
        before = await _table_stamps(store, user)
        await write()
        after = await _table_stamps(store, user)
        changed = _changed(before, after)
        assert must <= changed <= set(tables_a_write_reaches(table.name)), (table.name, must, changed)
        for name in changed:
            assert after[name] not in seen[name], (table.name, name)
            seen[name].add(after[name])
    before = await _table_stamps(store, user)
    await store.reset_kitchen(user)
    assert {"shopping_list", "inventory"} <= _changed(before, await _table_stamps(store, user))
    assert await _table_stamps(store, other) == theirs


async def test_a_rolled_back_write_leaves_the_table_stamps_as_they_were(store: Store, user: str) -> None:
    before = await _table_stamps(store, user)
    with pytest.raises(RuntimeError):
        async with store.transaction():
            await store.insert(RECIPES, [{"name": "Stew", "instructions": ["Cook."]}], user_id=user)
            raise RuntimeError("undo")
    assert await _table_stamps(store, user) == before


@pytest.mark.sqlite_only
async def test_deleting_from_the_shared_catalog_stamps_every_users_tables_that_referenced_it(store: Store, user: str) -> None:
    """The catalog's ON DELETE SET NULL reaches every user's ingredient lines, pantry and shopping lines."""
    other = await store.ensure_user("bob")
    (salt,) = await store.insert(INGREDIENTS, [{"name": "test salt"}], user_id=user)
    for someone in (user, other):
        await store.insert(INVENTORY, [{"name": "salt", "quantity": 1, "unit": "kg", "ingredient_id": salt["id"]}], user_id=someone)
    before = {someone: await _table_stamps(store, someone) for someone in (user, other)}
    await store.delete(INGREDIENTS, Where(all_of=(Filter("id", "eq", salt["id"]),)), user_id=user)
    for someone in (user, other):
        assert "inventory" in _changed(before[someone], await _table_stamps(store, someone))
