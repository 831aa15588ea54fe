"""SQLiteStore against real SQLite files: schema, CRUD, scoping, cascades, errors, transactions, sessions."""

from __future__ import annotations

import inspect
import re
import sqlite3
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from alfred_mcp.errors import (
    ConstraintViolationError,
    InvalidPayloadError,
    StoreError,
    UnknownColumnError,
)
from alfred_mcp.kitchen.query import Filter, OrderBy, Query, Where
from alfred_mcp.kitchen.schema import (
    COOKING_LOG,
    INGREDIENTS,
    MEAL_PLANS,
    PREFERENCES,
    RECIPE_INGREDIENTS,
    RECIPES,
    SHOPPING_LIST,
    TABLES,
    TASKS,
    Table,
)
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.base import Row, SessionRecord, Store
from alfred_mcp.store.sqlite import SQLiteStore
from alfred_mcp.store.sqlite.errors import to_store_error
from alfred_mcp.store.sqlite.schema import schema_sql

pytestmark = pytest.mark.anyio

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
MISSING_ID = "00000000-0000-4000-8000-000000000000"
INJECTION = "x'); DROP TABLE recipes;--"


class Boom(Exception):
    """Raised inside a transaction to force a rollback."""


def by_id(row_id: str) -> Where:
    return Where(all_of=(Filter("id", "eq", row_id),))


def by_name(name: str) -> Where:
    return Where(all_of=(Filter("name", "eq", name),))


def names(rows: list[Row]) -> list[str]:
    return [row["name"] for row in rows]


async def add(store: SQLiteStore, table: Table, user: str, **values: Any) -> Row:
    (row,) = await store.insert(table, [values], user_id=user)
    return row


def raw(store: SQLiteStore, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Query the file over a second, independent connection."""
    connection = sqlite3.connect(store.path)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


# -- schema ----------------------------------------------------------------------------------


@pytest.mark.sqlite_only
async def test_schema_creates_every_table_with_its_foreign_keys(store: SQLiteStore) -> None:
    """Each kitchen FK references its table's id with the schema's ON DELETE; user_id cascades from users."""
    for table in TABLES.values():
        found = {(row[3], row[2], row[4], row[6]) for row in raw(store, f'PRAGMA foreign_key_list("{table.name}")')}
        expected = {
            (c.name, c.fk.table, "id", "CASCADE" if c.fk.on_delete == "cascade" else "SET NULL")
            for c in table.fk_columns if c.fk is not None
        }
        if table.user_owned:
            expected.add(("user_id", "users", "id", "CASCADE"))
        assert found == expected, table.name
    internal = {"users", "alfred_sessions", "alfred_session_refs", "alfred_session_counters", "alfred_meta"}
    existing = {row[0] for row in raw(store, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert set(TABLES) | internal <= existing



def test_schema_sql_creates_each_table_after_the_tables_it_references() -> None:
    """users first, then kitchen tables in FK order, then the session tables."""
    created = [re.search(r'CREATE TABLE IF NOT EXISTS "(\w+)"', sql) for sql in schema_sql()]
    order = [match.group(1) for match in created if match]
    assert order[0] == "users" and order.index("alfred_sessions") > max(order.index(name) for name in TABLES)
    for table in TABLES.values():
        for column in table.fk_columns:
            assert column.fk is not None and order.index(column.fk.table) <= order.index(table.name)


@pytest.mark.sqlite_only
async def test_lookups_are_indexed(store: SQLiteStore) -> None:
    """user_id, every FK column and recipe_ingredients (recipe_id, position) have an index."""
    def indexed(table: str) -> set[tuple[str, ...]]:
        names = [row[1] for row in raw(store, f'PRAGMA index_list("{table}")')]
        return {tuple(col[2] for col in raw(store, f'PRAGMA index_info("{name}")')) for name in names}

    for table in TABLES.values():
        leading = {cols[0] for cols in indexed(table.name)}
        wanted = {c.name for c in table.fk_columns} | ({"user_id"} if table.user_owned else set())
        assert wanted <= leading, table.name
    assert ("recipe_id", "position") in indexed("recipe_ingredients")
    assert ("session_id", "row_id") in indexed("alfred_session_refs")

async def test_open_twice_and_reopen_keeps_the_data(tmp_path: Path) -> None:
    """open() is idempotent and a second store on the same file sees what the first wrote."""
    first = SQLiteStore(tmp_path / "k.db")
    await first.open()
    await first.open()
    user = await first.ensure_user("alice")
    await add(first, RECIPES, user, name="Curry")
    await first.close()
    second = SQLiteStore(str(tmp_path / "k.db"))
    await second.open()
    assert await second.ensure_user("alice") == user
    assert names(await second.select(RECIPES, Query(), user_id=user)) == ["Curry"]
    assert raw(second, "PRAGMA journal_mode") == [("wal",)]
    await second.close()


async def test_a_newer_schema_version_is_refused(tmp_path: Path) -> None:
    """A file written by another schema version is not silently used."""
    path = tmp_path / "k.db"
    store = SQLiteStore(path)
    await store.open()
    await store.close()
    connection = sqlite3.connect(path)
    connection.execute("UPDATE alfred_meta SET value = '99' WHERE key = 'schema_version'")
    connection.commit()
    connection.close()
    with pytest.raises(StoreError, match="schema version 99"):
        await SQLiteStore(path).open()


async def test_a_closed_store_says_so(store: SQLiteStore, user: str) -> None:
    """Calls after close() raise StoreError, not a driver error."""
    await store.close()
    with pytest.raises(StoreError, match="not open"):
        await store.count(RECIPES, Where(), user_id=user)


# -- CRUD round trip -------------------------------------------------------------------------


@pytest.mark.sqlite_only
async def test_insert_returns_rows_as_stored_with_python_types(store: SQLiteStore, user: str) -> None:
    """Ids, timestamps and schema defaults are filled; bools and lists come back as Python values."""
    row = await add(store, RECIPES, user, name="Curry", tags=["quick", "spicy"], servings=2)
    assert UUID.fullmatch(row["id"])
    assert TIMESTAMP.match(row["created_at"]) and row["updated_at"] == row["created_at"]
    assert row["tags"] == ["quick", "spicy"] and row["instructions"] == []
    assert row["is_system"] is False and row["servings"] == 2 and row["cuisine"] is None
    assert "user_id" not in row
    assert raw(store, 'SELECT tags, is_system FROM recipes') == [('["quick","spicy"]', 0)]


async def test_insert_fills_every_schema_default(store: SQLiteStore, user: str) -> None:
    """Preferences get their defaults; cooking_log's cooked_at defaults to now."""
    prefs = await add(store, PREFERENCES, user)
    assert (prefs["cooking_skill_level"], prefs["time_budget_minutes"], prefs["household_adults"]) == ("intermediate", 30, 1)
    assert prefs["allergies"] == []
    log = await add(store, COOKING_LOG, user, rating=5)
    assert TIMESTAMP.match(log["cooked_at"])


async def test_select_honours_columns_order_and_limit(store: SQLiteStore, user: str) -> None:
    """Only the asked columns plus id, ordered as asked, at most `limit` rows."""
    await store.insert(RECIPES, [{"name": n, "servings": s} for n, s in [("B", 2), ("A", 4), ("C", 1)]], user_id=user)
    rows = await store.select(RECIPES, Query(columns=("name",), order_by=(OrderBy("servings", True),), limit=2), user_id=user)
    assert [sorted(row) for row in rows] == [["id", "name"], ["id", "name"]]
    assert names(rows) == ["A", "B"]
    assert names(await store.select(RECIPES, Query(), user_id=user)) == ["A", "B", "C"]


async def test_select_rejects_unknown_columns(store: SQLiteStore, user: str) -> None:
    """Columns come from the schema; user_id is not one a caller may ask for."""
    with pytest.raises(UnknownColumnError):
        await store.select(RECIPES, Query(columns=("user_id",)), user_id=user)


async def test_recipe_ingredients_come_back_by_position(store: SQLiteStore, user: str) -> None:
    """Default order of recipe_ingredients is (recipe, position), whatever the insert order."""
    recipe = await add(store, RECIPES, user, name="Curry")
    rows = [{"recipe_id": recipe["id"], "name": name, "position": pos} for name, pos in [("rice", 3), ("chicken", 1), ("coconut milk", 2)]]
    await store.insert(RECIPE_INGREDIENTS, rows, user_id=user)
    assert names(await store.select(RECIPE_INGREDIENTS, Query(), user_id=user)) == ["chicken", "coconut milk", "rice"]


async def test_update_sets_values_and_updated_at(store: SQLiteStore, user: str) -> None:
    """Only matching rows change; updated_at moves, created_at stays; lists and bools convert."""
    curry = await add(store, RECIPES, user, name="Curry")
    await add(store, RECIPES, user, name="Soup")
    (updated,) = await store.update(RECIPES, by_id(curry["id"]), {"tags": ["fast"], "servings": 3}, user_id=user)
    assert (updated["tags"], updated["servings"], updated["created_at"]) == (["fast"], 3, curry["created_at"])
    assert updated["updated_at"] > curry["updated_at"]
    (item,) = await store.insert(SHOPPING_LIST, [{"name": "milk"}], user_id=user)
    (bought,) = await store.update(SHOPPING_LIST, by_id(item["id"]), {"is_purchased": True}, user_id=user)
    assert bought["is_purchased"] is True
    assert [r["servings"] for r in await store.select(RECIPES, Query(), user_id=user)] == [3, None]


async def test_delete_returns_rows_as_they_were(store: SQLiteStore, user: str) -> None:
    """The deleted rows come back whole; they are gone afterwards."""
    curry = await add(store, RECIPES, user, name="Curry", tags=["a"])
    deleted = await store.delete(RECIPES, by_name("Curry"), user_id=user)
    assert deleted == [curry]
    assert await store.count(RECIPES, Where(), user_id=user) == 0


@pytest.mark.parametrize(
    ("values", "error"),
    [
        pytest.param({"id": MISSING_ID}, InvalidPayloadError, id="id"),
        pytest.param({"created_at": "2026-01-01T00:00:00Z"}, InvalidPayloadError, id="created_at"),
        pytest.param({"user_id": MISSING_ID}, UnknownColumnError, id="user_id"),
        pytest.param({"colour": "red"}, UnknownColumnError, id="unknown-column"),
        pytest.param({"tags": "quick"}, InvalidPayloadError, id="string-for-list"),
        pytest.param({}, InvalidPayloadError, id="nothing"),
    ],
)
async def test_update_refuses_payloads_the_store_owns_or_cannot_store(
    store: SQLiteStore, user: str, values: dict[str, Any], error: type[Exception]
) -> None:
    """Server-owned, unknown, mistyped or empty payloads are refused before any SQL runs."""
    curry = await add(store, RECIPES, user, name="Curry")
    with pytest.raises(error):
        await store.update(RECIPES, by_id(curry["id"]), values, user_id=user)
    assert await store.select(RECIPES, Query(), user_id=user) == [curry]


# -- filter semantics on real rows -----------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        pytest.param(Where((Filter("cuisine", "neq", "thai"),)), ["Pasta", "Toast"], id="neq-keeps-null"),
        pytest.param(Where((Filter("cuisine", "not_in", ["thai", "italian"]),)), ["Toast"], id="not_in-many"),
        pytest.param(Where((Filter("cuisine", "in", ["thai", "italian"]),)), ["Curry", "Pasta"], id="in"),
        pytest.param(Where((Filter("name", "ilike", "%CUR%"),)), ["Curry"], id="ilike-case-insensitive"),
        pytest.param(Where((Filter("name", "ilike", "p_sta"),)), ["Pasta"], id="ilike-underscore"),
        pytest.param(Where((Filter("tags", "contains", ["quick", "spicy"]),)), ["Curry"], id="contains-all"),
        pytest.param(Where((Filter("tags", "contains", "quick"),)), ["Curry", "Pasta"], id="contains-one"),
        pytest.param(Where((Filter("tags", "is_null", True),)), ["Toast"], id="array-empty"),
        pytest.param(Where((Filter("cuisine", "is_null", False),)), ["Curry", "Pasta"], id="is-not-null"),
        pytest.param(Where((Filter("servings", "gt", 2),)), ["Pasta"], id="gt"),
        pytest.param(Where((Filter("is_system", "eq", False),)), ["Curry", "Pasta", "Toast"], id="bool"),
        pytest.param(
            Where((Filter("name", "neq", "Curry"),), (Filter("cuisine", "eq", "thai"), Filter("servings", "is_null", True))),
            ["Toast"],
            id="and-plus-or",
        ),
    ],
)
async def test_filters_select_the_right_rows(store: SQLiteStore, user: str, where: Where, expected: list[str]) -> None:
    """Each operator's documented semantics hold on real SQLite rows."""
    await store.insert(RECIPES, [
        {"name": "Curry", "cuisine": "thai", "tags": ["quick", "spicy"], "servings": 2},
        {"name": "Pasta", "cuisine": "italian", "tags": ["quick"], "servings": 4},
        {"name": "Toast"},
    ], user_id=user)
    assert names(await store.select(RECIPES, Query(where=where), user_id=user)) == expected
    assert await store.count(RECIPES, where, user_id=user) == len(expected)


async def test_injection_strings_are_plain_values(store: SQLiteStore, user: str) -> None:
    """A hostile string matches nothing, changes nothing, and is stored verbatim when inserted."""
    await add(store, RECIPES, user, name="Curry", tags=["x"])
    for where in (by_name(INJECTION), Where((Filter("name", "ilike", INJECTION),)), Where((Filter("tags", "contains", INJECTION),))):
        assert await store.select(RECIPES, Query(where=where), user_id=user) == []
        assert await store.update(RECIPES, where, {"name": "Hacked"}, user_id=user) == []
        assert await store.delete(RECIPES, where, user_id=user) == []
    stored = await add(store, RECIPES, user, name=INJECTION)
    assert stored["name"] == INJECTION
    assert sorted(names(await store.select(RECIPES, Query(), user_id=user))) == sorted(["Curry", INJECTION])


# -- user scoping ----------------------------------------------------------------------------


async def test_users_never_touch_each_others_rows(store: SQLiteStore, user: str) -> None:
    """Bob's select, count, update and delete see none of Alice's rows."""
    bob = await store.ensure_user("bob")
    curry = await add(store, RECIPES, user, name="Curry")
    await add(store, RECIPES, bob, name="Bob's Stew")
    assert names(await store.select(RECIPES, Query(), user_id=bob)) == ["Bob's Stew"]
    assert await store.count(RECIPES, by_id(curry["id"]), user_id=bob) == 0
    assert await store.update(RECIPES, by_id(curry["id"]), {"name": "Stolen"}, user_id=bob) == []
    assert await store.delete(RECIPES, Where(), user_id=bob) != []
    assert await store.select(RECIPES, Query(), user_id=user) == [curry]


async def test_a_reference_to_another_users_row_is_refused(store: SQLiteStore, user: str) -> None:
    """An FK value must point at a row of the same user, on insert and on update."""
    bob = await store.ensure_user("bob")
    alices = await add(store, RECIPES, user, name="Curry")
    with pytest.raises(ConstraintViolationError, match="recipe_id does not point at an existing recipe") as caught:
        await add(store, MEAL_PLANS, bob, date="2026-01-12", meal_type="dinner", recipe_id=alices["id"])
    assert caught.value.fields["field"] == "recipe_id"
    meal = await add(store, MEAL_PLANS, bob, date="2026-01-12", meal_type="dinner")
    with pytest.raises(ConstraintViolationError):
        await store.update(MEAL_PLANS, by_id(meal["id"]), {"recipe_id": alices["id"]}, user_id=bob)


async def test_the_catalog_is_shared_by_every_user(store: SQLiteStore, user: str) -> None:
    """ingredients ignores user_id: every user reads it and may link to it."""
    bob = await store.ensure_user("bob")
    (garlic,) = await store.insert(INGREDIENTS, [{"name": "garlic", "aliases": ["ail"]}], user_id="")
    assert names(await store.select(INGREDIENTS, Query(), user_id=bob)) == ["garlic"]
    item = await add(store, SHOPPING_LIST, bob, name="garlic", ingredient_id=garlic["id"])
    assert item["ingredient_id"] == garlic["id"]


async def test_reset_kitchen_deletes_only_that_users_rows(store: SQLiteStore, user: str) -> None:
    """Alice's kitchen empties; Bob's rows and the shared catalog stay."""
    bob = await store.ensure_user("bob")
    await store.insert(INGREDIENTS, [{"name": "garlic"}], user_id="")
    curry = await add(store, RECIPES, user, name="Curry")
    await add(store, RECIPE_INGREDIENTS, user, recipe_id=curry["id"], name="rice", position=1)
    await add(store, PREFERENCES, user)
    await add(store, RECIPES, bob, name="Stew")
    await store.reset_kitchen(user)
    for table in TABLES.values():
        if table.user_owned:
            assert await store.count(table, Where(), user_id=user) == 0, table.name
    assert await store.count(RECIPES, Where(), user_id=bob) == 1
    assert await store.count(INGREDIENTS, Where(), user_id=user) == 1


# -- cascades --------------------------------------------------------------------------------


async def test_deleting_a_recipe_cascades_children_and_clears_references(store: SQLiteStore, user: str) -> None:
    """Ingredients go with the recipe; plans, tasks, log entries and variations keep living, unlinked."""
    curry = await add(store, RECIPES, user, name="Curry")
    variation = await add(store, RECIPES, user, name="Green Curry", parent_recipe_id=curry["id"])
    await store.insert(RECIPE_INGREDIENTS, [{"recipe_id": curry["id"], "name": n, "position": i} for i, n in enumerate(["rice", "paste"], 1)], user_id=user)
    meal = await add(store, MEAL_PLANS, user, date="2026-01-12", meal_type="dinner", recipe_id=curry["id"])
    await add(store, TASKS, user, title="Shop", recipe_id=curry["id"], meal_plan_id=meal["id"])
    await add(store, COOKING_LOG, user, recipe_id=curry["id"], from_meal_plan_id=meal["id"])
    assert [row["id"] for row in await store.delete(RECIPES, by_id(curry["id"]), user_id=user)] == [curry["id"]]
    assert await store.count(RECIPE_INGREDIENTS, Where(), user_id=user) == 0
    assert [r["recipe_id"] for r in await store.select(MEAL_PLANS, Query(), user_id=user)] == [None]
    (task,) = await store.select(TASKS, Query(), user_id=user)
    assert (task["recipe_id"], task["meal_plan_id"]) == (None, meal["id"])
    (log,) = await store.select(COOKING_LOG, Query(), user_id=user)
    assert (log["recipe_id"], log["from_meal_plan_id"]) == (None, meal["id"])
    (kept,) = await store.select(RECIPES, Query(), user_id=user)
    assert (kept["id"], kept["parent_recipe_id"]) == (variation["id"], None)


# -- constraint errors -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "values", "field", "message"),
    [
        pytest.param(MEAL_PLANS, {"date": "2026-01-12", "meal_type": "brunch"}, "meal_type",
                     "meal_type must be one of: breakfast, lunch, dinner, snack, other.", id="check-enum"),
        pytest.param(RECIPES, {"description": "no name"}, "name", "name is required.", id="not-null"),
        pytest.param(RECIPE_INGREDIENTS, {"recipe_id": MISSING_ID, "name": "rice", "position": 1}, "recipe_id",
                     "recipe_id does not point at an existing recipe.", id="foreign-key"),
        pytest.param(RECIPES, {"name": "Curry", "servings": 0}, "servings", "servings must be between 1 and 1000.", id="check-range"),
        pytest.param(SHOPPING_LIST, {"name": "milk", "is_purchased": "yes"}, "is_purchased",
                     "is_purchased must be true or false.", id="check-bool"),
    ],
)
async def test_constraint_violations_name_the_column_without_sql_or_ids(
    store: SQLiteStore, user: str, table: Table, values: dict[str, Any], field: str, message: str
) -> None:
    """A broken rule becomes ConstraintViolationError naming the column; nothing is written."""
    with pytest.raises(ConstraintViolationError) as caught:
        await store.insert(table, [values], user_id=user)
    assert (caught.value.message, caught.value.fields["field"]) == (message, field)
    assert not UUID.search(str(caught.value.to_dict()))
    assert await store.count(table, Where(), user_id=user) == 0


async def test_check_errors_list_the_valid_values(store: SQLiteStore, user: str) -> None:
    """An enum violation carries the valid values as a field."""
    with pytest.raises(ConstraintViolationError) as caught:
        await add(store, TASKS, user, title="Chop", category="chores")
    assert caught.value.fields["valid"] == ["prep", "shopping", "cleanup", "other"]


async def test_second_preferences_row_is_refused(store: SQLiteStore, user: str) -> None:
    """preferences is one row per user; a second insert says to update instead."""
    await add(store, PREFERENCES, user)
    with pytest.raises(ConstraintViolationError, match="update it instead"):
        await add(store, PREFERENCES, user)


async def test_duplicate_catalog_name_is_refused(store: SQLiteStore) -> None:
    """ingredients.name is unique; the message names the column, not the value."""
    await store.insert(INGREDIENTS, [{"name": "garlic"}], user_id="")
    with pytest.raises(ConstraintViolationError) as caught:
        await store.insert(INGREDIENTS, [{"name": "garlic"}], user_id="")
    assert caught.value.fields["field"] == "name" and "garlic" not in caught.value.message


async def test_rows_for_an_unknown_user_are_refused(store: SQLiteStore) -> None:
    """user_id must name a user created by ensure_user."""
    with pytest.raises(ConstraintViolationError, match="user does not exist"):
        await add(store, RECIPES, MISSING_ID, name="Curry")


def _driver_errors() -> list[type[Exception]]:
    found = [getattr(sqlite3, name) for name in dir(sqlite3)]
    return [c for c in found if isinstance(c, type) and issubclass(c, (sqlite3.Error, sqlite3.Warning))]


@pytest.mark.parametrize("error_class", _driver_errors(), ids=lambda c: c.__name__)
def test_every_driver_error_maps_to_a_store_error_without_sql(error_class: type[Exception]) -> None:
    """The mapping is total over what sqlite3 exports, and never echoes the driver's text."""
    mapped = to_store_error(error_class('near "DROP": syntax error in SELECT * FROM recipes'))  # type: ignore[arg-type]
    assert isinstance(mapped, StoreError)
    assert "DROP" not in mapped.message and "SELECT" not in mapped.message


# -- transactions ----------------------------------------------------------------------------


async def test_transaction_rollback_leaves_nothing(store: SQLiteStore, user: str) -> None:
    """Rows written inside a block that raises are gone, and the store keeps working."""
    with anyio.fail_after(5), pytest.raises(Boom):
        async with store.transaction():
            curry = await add(store, RECIPES, user, name="Curry")
            await add(store, RECIPE_INGREDIENTS, user, recipe_id=curry["id"], name="rice", position=1)
            assert await store.count(RECIPES, Where(), user_id=user) == 1
            raise Boom
    assert await store.count(RECIPES, Where(), user_id=user) == 0
    assert await store.count(RECIPE_INGREDIENTS, Where(), user_id=user) == 0
    await add(store, RECIPES, user, name="Soup")


async def test_nested_transaction_rolls_back_to_its_savepoint(store: SQLiteStore, user: str) -> None:
    """An inner block that fails undoes only its own work; the outer block commits the rest."""
    with anyio.fail_after(5):
        async with store.transaction():
            await add(store, RECIPES, user, name="Kept")
            with pytest.raises(Boom):
                async with store.transaction():
                    await add(store, RECIPES, user, name="Undone")
                    raise Boom
            async with store.transaction():
                await add(store, RECIPES, user, name="Also kept")
    assert sorted(names(await store.select(RECIPES, Query(), user_id=user))) == ["Also kept", "Kept"]


@pytest.mark.sqlite_only
async def test_blocks_open_and_close_with_the_store_calls_they_make(store: SQLiteStore, user: str) -> None:
    """BEGIN/SAVEPOINT ride with a block's first store call and RELEASE with the next: a block without
    store calls runs no statement, and siblings sharing a savepoint name still nest and undo correctly."""
    statements: list[str] = []
    store._connection.set_trace_callback(statements.append)  # type: ignore[union-attr]
    async with store.transaction():
        async with store.transaction():
            pass
    assert statements == []
    with anyio.fail_after(5):
        async with store.transaction():
            async with store.transaction():
                await add(store, RECIPES, user, name="First")
            with pytest.raises(Boom):
                async with store.transaction():
                    await add(store, RECIPES, user, name="Undone")
                    async with store.transaction():
                        await add(store, RECIPES, user, name="Nested, undone too")
                    raise Boom
            async with store.transaction():
                pass
            await add(store, RECIPES, user, name="Last")
    assert sorted(names(await store.select(RECIPES, Query(), user_id=user))) == ["First", "Last"]
    assert sum(1 for s in statements if s.startswith("BEGIN")) == 1 and statements.count("COMMIT") == 1


@pytest.mark.sqlite_only
async def test_a_read_past_its_budget_on_the_event_loop_moves_to_the_worker_thread(
    store: SQLiteStore, user: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Small reads run on the loop's thread; one that outruns READ_BUDGET is interrupted and run again
    on the worker thread, with the same rows (and a short one never leaves the loop)."""
    from alfred_mcp.store.sqlite import connection

    await store.insert(SHOPPING_LIST, [{"name": f"item {i:04d}"} for i in range(600)], user_id=user)
    moved: list[int] = []
    original = SQLiteStore._read

    async def counted(self: SQLiteStore, work: Any) -> Any:
        moved.append(1)
        return await original(self, work)

    monkeypatch.setattr(SQLiteStore, "_read", counted)
    query = Query(where=Where(all_of=(Filter("name", "ilike", "%9%"),)), columns=("name",))
    expected = [f"item {i:04d}" for i in range(600) if "9" in f"{i:04d}"]
    monkeypatch.setattr(connection, "READ_BUDGET", 60.0)
    assert names(await store.select(SHOPPING_LIST, query, user_id=user)) == expected and moved == []
    monkeypatch.setattr(connection, "READ_BUDGET", -1.0)
    assert names(await store.select(SHOPPING_LIST, query, user_id=user)) == expected and moved == [1]
    assert await store.count(SHOPPING_LIST, Where(), user_id=user) == 600


@pytest.mark.parametrize("in_transaction", [pytest.param(False, id="alone"), pytest.param(True, id="inside-transaction")])
async def test_a_batch_with_one_bad_row_inserts_none(store: SQLiteStore, user: str, in_transaction: bool) -> None:
    """insert is all or none, also when the caller catches the error inside its own transaction."""
    rows = [{"name": "Curry"}, {"name": "Soup"}, {"name": "Bad", "servings": -1}]
    with anyio.fail_after(5):
        if in_transaction:
            async with store.transaction():
                with pytest.raises(ConstraintViolationError):
                    await store.insert(RECIPES, rows, user_id=user)
                await add(store, RECIPES, user, name="After")
        else:
            with pytest.raises(ConstraintViolationError):
                await store.insert(RECIPES, rows, user_id=user)
    expected = ["After"] if in_transaction else []
    assert names(await store.select(RECIPES, Query(), user_id=user)) == expected


async def test_a_cancelled_transaction_rolls_back_and_frees_the_store(store: SQLiteStore, user: str) -> None:
    """Cancellation inside the block undoes its writes and releases the lock for the next caller."""
    with anyio.fail_after(5):
        with anyio.CancelScope() as scope:
            async with store.transaction():
                await add(store, RECIPES, user, name="Ghost")
                scope.cancel()
                await anyio.lowlevel.checkpoint()
        assert scope.cancelled_caught
        assert await store.count(RECIPES, Where(), user_id=user) == 0
        async with store.transaction():
            await add(store, RECIPES, user, name="Real")
    assert names(await store.select(RECIPES, Query(), user_id=user)) == ["Real"]

async def test_another_task_never_sees_uncommitted_rows(store: SQLiteStore, user: str) -> None:
    """A read from another task waits for the transaction instead of reading its half-done work."""
    inside = anyio.Event()
    seen: list[int] = []

    async def reader() -> None:
        await inside.wait()
        seen.append(await store.count(RECIPES, Where(), user_id=user))

    with anyio.fail_after(5):
        async with anyio.create_task_group() as group:
            group.start_soon(reader)
            with pytest.raises(Boom):
                async with store.transaction():
                    await add(store, RECIPES, user, name="Ghost")
                    inside.set()
                    await anyio.wait_all_tasks_blocked()
                    raise Boom
    assert seen == [0]


async def test_child_tasks_of_a_transaction_share_it(store: SQLiteStore, user: str) -> None:
    """Store calls from tasks started inside the block run in it instead of deadlocking on its lock."""
    with anyio.fail_after(5):
        async with store.transaction():
            async with anyio.create_task_group() as group:
                for name in ("A", "B"):
                    group.start_soon(lambda n=name: add(store, RECIPES, user, name=n))
    assert sorted(names(await store.select(RECIPES, Query(), user_id=user))) == ["A", "B"]


# -- users and sessions ----------------------------------------------------------------------


async def test_ensure_user_is_stable_per_handle(store: SQLiteStore) -> None:
    """The same handle gives the same id; another handle another id."""
    alice = await store.ensure_user("alice")
    assert await store.ensure_user("alice") == alice
    assert await store.ensure_user("bob") != alice


async def test_sessions_are_numbered_per_user_and_the_newest_is_current(store: SQLiteStore, user: str) -> None:
    """Alice's sessions count 1, 2; Bob starts at 1; the last created is current."""
    bob = await store.ensure_user("bob")
    assert await store.current_session(user) is None
    first = await store.create_session(user)
    second = await store.create_session(user)
    bobs = await store.create_session(bob)
    assert (first.number, first.turn, second.number, bobs.number) == (1, 1, 2, 1)
    assert await store.current_session(user) == second
    assert await store.get_session(user, 1) == first
    assert await store.get_session(user, 3) is None
    assert await store.get_session(bob, 2) is None
    assert second.name == "session_2"


def entries_fixture() -> list[RefEntry]:
    return [
        RefEntry("recipe_1", "recipe", "row-a", "Curry", "read", 1, 1),
        RefEntry("gen_recipe_1", "recipe", None, "Draft Soup", "saved", 1, 2, saved_as="recipe_2"),
        RefEntry("recipe_2", "recipe", "row-b", "Draft Soup", "created", 2, 2),
        RefEntry("inv_1", "inv", "row-c", "Eggs", "deleted", 1, 3, deleted_turn=3),
    ]


async def test_session_state_round_trips(store: SQLiteStore, user: str) -> None:
    """Entries (every field, in assignment order), counters and the turn come back as saved."""
    session = await store.create_session(user)
    counters = {"recipe": 2, "gen_recipe": 1, "inv": 1}
    await store.save_session_state(session.session_id, turn=3, entries=entries_fixture(), counters=counters)
    assert await store.load_session_state(session.session_id) == (entries_fixture(), counters)
    assert await store.current_session(user) == SessionRecord(session.session_id, user, 1, 3)


@pytest.mark.sqlite_only
async def test_incremental_save_upserts_only_the_given_entries(store: SQLiteStore, user: str) -> None:
    """Saving 1 changed entry of 1000 writes one ref row; order and the other entries stay."""
    session = await store.create_session(user)
    entries = [RefEntry(f"recipe_{i}", "recipe", f"row-{i}", f"Recipe {i}", "read", 1, 1) for i in range(1, 1001)]
    await store.save_session_state(session.session_id, turn=1, entries=entries, counters={"recipe": 1000})
    _count_ref_writes(store.path)
    entries[499].label, entries[499].turn_last_ref = "Renamed", 2
    await store.save_session_state(session.session_id, turn=2, entries=[entries[499]], counters={"recipe": 1000})
    assert raw(store, "SELECT count(*) FROM ref_writes") == [(1,)]
    loaded, counters = await store.load_session_state(session.session_id)
    assert loaded == entries and counters == {"recipe": 1000}


def _count_ref_writes(path: Path) -> None:
    """Install triggers (from a second connection) that log every write to alfred_session_refs."""
    connection = sqlite3.connect(path)
    connection.executescript(
        """
        CREATE TABLE ref_writes (ref TEXT);
        CREATE TRIGGER ref_inserted AFTER INSERT ON alfred_session_refs BEGIN INSERT INTO ref_writes VALUES (new.ref); END;
        CREATE TRIGGER ref_updated AFTER UPDATE ON alfred_session_refs BEGIN INSERT INTO ref_writes VALUES (new.ref); END;
        """
    )
    connection.close()


async def test_new_entries_load_after_older_ones(store: SQLiteStore, user: str) -> None:
    """A later save appends new refs after earlier ones, even when it also updates an old one."""
    session = await store.create_session(user)
    first, draft, second, eggs = entries_fixture()
    await store.save_session_state(session.session_id, turn=1, entries=[first, draft], counters={})
    first.turn_last_ref = 5
    await store.save_session_state(session.session_id, turn=5, entries=[first, second, eggs], counters={"recipe": 2})
    loaded, _ = await store.load_session_state(session.session_id)
    assert [entry.ref for entry in loaded] == ["recipe_1", "gen_recipe_1", "recipe_2", "inv_1"]
    assert loaded[0].turn_last_ref == 5


@pytest.mark.sqlite_only
async def test_saving_an_unknown_session_fails_and_writes_nothing(store: SQLiteStore) -> None:
    """A session id the store does not have is a StoreError, not a silent no-op."""
    with pytest.raises(StoreError, match="no longer exists"):
        await store.save_session_state(MISSING_ID, turn=1, entries=entries_fixture(), counters={"recipe": 2})
    assert raw(store, "SELECT count(*) FROM alfred_session_refs") == [(0,)]


# -- the contract ----------------------------------------------------------------------------


def test_sqlite_store_implements_the_whole_store_protocol() -> None:
    """Every Store method exists on SQLiteStore with the same parameters."""
    members = {name: getattr(Store, name) for name in dir(Store) if not name.startswith("_") and callable(getattr(Store, name))}
    assert members
    for name, member in members.items():
        ours = inspect.signature(getattr(SQLiteStore, name)).parameters
        theirs = inspect.signature(member).parameters
        assert [(p.name, p.kind) for p in ours.values()] == [(p.name, p.kind) for p in theirs.values()], name
    assert SQLiteStore.dialect == "sqlite"
