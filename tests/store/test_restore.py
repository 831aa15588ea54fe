"""Store.restore puts deleted rows back exactly (same ids and stamps), on every backend: what kitchen_undo builds on."""

from __future__ import annotations

import pytest

from alfred_mcp.errors import ConstraintViolationError
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPE_INGREDIENTS, RECIPES, TABLES
from alfred_mcp.store.base import Store

pytestmark = pytest.mark.anyio


def _by_id(row_id: str) -> Where:
    return Where(all_of=(Filter("id", "eq", row_id),))


async def test_deleted_rows_come_back_with_the_same_ids_and_stamps(store: Store, user: str) -> None:
    (recipe,) = await store.insert(RECIPES, [{"name": "Pie", "tags": ["sweet"], "servings": 4, "instructions": ["Bake."]}], user_id=user)
    children = await store.insert(RECIPE_INGREDIENTS, [{"recipe_id": recipe["id"], "position": i, "name": f"n{i}", "quantity": i / 3}
                                                       for i in (1, 2)], user_id=user)
    before = await store.select(RECIPES, Query(where=_by_id(recipe["id"])), user_id=user)
    deleted = await store.delete(RECIPES, _by_id(recipe["id"]), user_id=user)
    assert deleted == before
    async with store.transaction():
        restored = await store.restore(RECIPES, deleted, user_id=user)
        await store.restore(RECIPE_INGREDIENTS, children, user_id=user)
    assert restored == before == await store.select(RECIPES, Query(where=_by_id(recipe["id"])), user_id=user)
    again = await store.select(RECIPE_INGREDIENTS, Query(where=Where(all_of=(Filter("recipe_id", "eq", recipe["id"]),))), user_id=user)
    assert sorted(again, key=lambda r: r["position"]) == children


async def test_a_restored_row_must_point_at_rows_that_exist(store: Store, user: str) -> None:
    (recipe,) = await store.insert(RECIPES, [{"name": "Gone"}], user_id=user)
    (meal,) = await store.insert(MEAL_PLANS, [{"date": "2030-01-01", "meal_type": "dinner", "recipe_id": recipe["id"]}], user_id=user)
    await store.delete(MEAL_PLANS, _by_id(meal["id"]), user_id=user)
    await store.delete(RECIPES, _by_id(recipe["id"]), user_id=user)
    with pytest.raises(ConstraintViolationError):
        await store.restore(MEAL_PLANS, [meal], user_id=user)
    assert await store.count(MEAL_PLANS, Where(), user_id=user) == 0


@pytest.mark.parametrize("table", [t for t in TABLES.values() if t.user_owned and t.name not in ("preferences",)], ids=lambda t: t.name)
async def test_restore_keeps_every_column_of_every_table(store: Store, user: str, table: object) -> None:
    from alfred_mcp.kitchen.schema import Table

    assert isinstance(table, Table)
    parents = {"recipe_ingredients": {"recipe_id": (await store.insert(RECIPES, [{"name": "P"}], user_id=user))[0]["id"], "position": 1}}
    required = {c.name: _sample(c.type, c.enum) for c in table.writable_columns if c.required_on_create and c.fk is None}
    (row,) = await store.insert(table, [{**required, **parents.get(table.name, {})}], user_id=user)
    (deleted,) = await store.delete(table, _by_id(row["id"]), user_id=user)
    assert await store.restore(table, [deleted], user_id=user) == [row]


def _sample(kind: str, enum: tuple[object, ...] | None) -> object:
    if enum:
        return enum[0]
    return {"text": "x", "numeric": 1.5, "int": 1, "date": "2030-01-01", "bool": False, "text[]": ["a"]}.get(kind, "x")
