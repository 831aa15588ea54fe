"""Behaviour that must not depend on the backend: what each store returns, orders and matches.

Every test runs on SQLite and on PostgreSQL (the `store` fixture); each pins a place where the
two engines differ by nature (types, collation, LIKE escapes, tie order, strict uuid/date types)
and the stores make them agree.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timezone
from typing import Any

import anyio
import pytest

from alfred_mcp.errors import ConstraintViolationError, InvalidFilterError
from alfred_mcp.kitchen.query import Filter, OrderBy, Query, Where
from alfred_mcp.kitchen.schema import COOKING_LOG, INVENTORY, MEAL_PLANS, RECIPE_INGREDIENTS, RECIPES, SHOPPING_LIST, TASKS, Table
from alfred_mcp.store.base import Children, Row, Store

pytestmark = pytest.mark.anyio

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


async def add(store: Store, table: Table, user: str, **values: Any) -> Row:
    (row,) = await store.insert(table, [values], user_id=user)
    return row


def _instant(text: str) -> datetime:
    """A stored timestamp as an aware datetime (SQLite keeps a caller's spelling, PostgreSQL normalizes it)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def names(rows: list[Row]) -> list[str]:
    return [row["name"] for row in rows]


async def test_values_come_back_as_the_same_python_types(store: Store, user: str) -> None:
    """numeric is a float, dates 'YYYY-MM-DD', timestamps ISO UTC with Z, bools and lists native, ids str."""
    item = await add(store, INVENTORY, user, name="milk", quantity=2, unit="l", expiry_date="2026-01-12")
    (read,) = await store.select(INVENTORY, Query(), user_id=user)
    assert read == item
    assert isinstance(item["id"], str) and isinstance(read["quantity"], float) and read["quantity"] == 2.0
    assert item["expiry_date"] == "2026-01-12" and item["purchase_date"] is None
    assert TIMESTAMP.match(item["created_at"])
    log = await add(store, COOKING_LOG, user, cooked_at="2026-01-12T18:30:00Z", rating=4)
    assert _instant(log["cooked_at"]) == datetime(2026, 1, 12, 18, 30, tzinfo=timezone.utc) and log["rating"] == 4
    shop = await add(store, SHOPPING_LIST, user, name="eggs", quantity=1.5)
    assert (shop["quantity"], shop["is_purchased"]) == (1.5, False)


async def test_new_rows_get_time_ordered_version_7_ids_in_the_order_given(store: Store, user: str) -> None:
    """Every backend makes its ids the same way (store/ids.py): a batch's ids ascend in the order of its rows."""
    first = await store.insert(SHOPPING_LIST, [{"name": f"item {i}"} for i in range(30)], user_id=user)
    parents, (children,) = await store.insert_with_children(
        RECIPES, [{"name": "soup"}], [Children(RECIPE_INGREDIENTS, "recipe_id", [{"name": "leek", "position": 1}], [0])], user_id=user
    )
    ids = [row["id"] for row in (*first, *parents, *children)]
    assert all(uuid.UUID(row_id).version == 7 for row_id in ids)
    assert [row["id"] for row in first] == sorted(row["id"] for row in first)
    assert max(row["id"] for row in first) < parents[0]["id"] or _same_millisecond(first[-1]["id"], parents[0]["id"])


def _same_millisecond(one: str, other: str) -> bool:
    return uuid.UUID(one).int >> 80 == uuid.UUID(other).int >> 80


async def test_ties_in_the_order_come_out_in_insertion_order(store: Store, user: str) -> None:
    """A batch shares created_at; its rows still list in the order they were given."""
    batch = [{"name": name} for name in ("zucchini", "apples", "milk", "bread", "eggs")]
    await store.insert(SHOPPING_LIST, batch, user_id=user)
    assert names(await store.select(SHOPPING_LIST, Query(), user_id=user)) == [row["name"] for row in batch]
    by_date = Query(order_by=(OrderBy("created_at", True),))
    assert names(await store.select(SHOPPING_LIST, by_date, user_id=user)) == [row["name"] for row in batch]


async def test_text_orders_bytewise(store: Store, user: str) -> None:
    """Uppercase before lowercase, accents after ASCII, whatever the server's locale."""
    await store.insert(RECIPES, [{"name": n} for n in ("banana", "Banana", "apple", "Éclair", "Apple")], user_id=user)
    assert names(await store.select(RECIPES, Query(), user_id=user)) == ["Apple", "Banana", "apple", "banana", "Éclair"]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        pytest.param("50\\%", ["50\\% off"], id="backslash-is-plain"),
        pytest.param("%CRÈME%", ["CRÈME BRÛLÉE"], id="ascii-case-folded"),
        pytest.param("%crème%", ["crème brûlée"], id="non-ascii-case-kept"),
        pytest.param("c_ème%", ["crème brûlée"], id="underscore-one-character"),
    ],
)
async def test_ilike_folds_ascii_case_only_and_escapes_nothing(store: Store, user: str, pattern: str, expected: list[str]) -> None:
    """ilike matches the same rows on both engines, whatever their LIKE defaults."""
    await store.insert(RECIPES, [{"name": "50\\% off"}, {"name": "crème brûlée"}, {"name": "CRÈME BRÛLÉE"}], user_id=user)
    where = Where((Filter("name", "ilike", pattern),))
    assert names(await store.select(RECIPES, Query(where=where), user_id=user)) == expected


async def test_an_id_that_is_not_a_uuid_matches_nothing(store: Store, user: str) -> None:
    """eq/in find nothing, neq/not_in keep everything: the value simply differs from every id."""
    await add(store, RECIPES, user, name="Curry")
    for op, value, count in (("eq", "recipe-1", 0), ("in", ["x", "y"], 0), ("neq", "x", 1), ("not_in", ["x"], 1)):
        assert await store.count(RECIPES, Where((Filter("id", op, value),)), user_id=user) == count, op
    assert await store.count(RECIPES, Where(), user_id="not-a-user") == 0


async def test_date_filters_compare_as_dates(store: Store, user: str) -> None:
    """gt/lte on a date column and a timestamp bound on created_at select by time."""
    await store.insert(MEAL_PLANS, [
        {"date": day, "meal_type": "dinner"} for day in ("2026-01-10", "2026-01-12", "2026-02-01")
    ], user_id=user)
    where = Where((Filter("date", "gt", "2026-01-10"), Filter("date", "lte", "2026-01-31")))
    assert [row["date"] for row in await store.select(MEAL_PLANS, Query(where=where), user_id=user)] == ["2026-01-12"]
    recent = Where((Filter("created_at", "gte", "2000-01-01T00:00:00Z"),))
    assert await store.count(MEAL_PLANS, recent, user_id=user) == 3


@pytest.mark.parametrize("day", ["tomorrow", "2026-02-30", "2026-13-45"])
async def test_a_date_filter_that_is_no_date_is_refused_the_same_on_every_backend(store: Store, user: str, day: str) -> None:
    """A malformed or impossible date is refused before any SQL runs, naming the column (never a driver error)."""
    await add(store, MEAL_PLANS, user, date="2026-01-12", meal_type="dinner")
    with pytest.raises(InvalidFilterError) as raised:
        await store.count(MEAL_PLANS, Where((Filter("date", "lt", day),)), user_id=user)
    assert raised.value.fields["field"] == "date" and "YYYY-MM-DD" in raised.value.message


async def test_documents_round_trip_with_key_order_and_unicode(store: Store, user: str) -> None:
    """JSON documents come back equal, keys in their order; None deletes a key."""
    session = await store.create_session(user)
    draft = {"name": "Crème brûlée", "zeta": 1, "alpha": [1.5, None, True], "nested": {"b": 1, "a": 2}}
    await store.save_documents(session.session_id, {"drafts": draft, "batch": {"step": 1}})
    loaded = await store.load_documents(session.session_id)
    assert loaded == {"batch": {"step": 1}, "drafts": draft} and list(loaded["drafts"]) == list(draft)
    await store.save_documents(session.session_id, {"batch": None})
    assert await store.load_documents(session.session_id) == {"drafts": draft}


@pytest.mark.parametrize("reads_first", [False, True], ids=["nothing-else", "after-a-read"])
@pytest.mark.parametrize("nested", [False, True], ids=["transaction", "savepoint"])
async def test_a_session_save_is_committed_when_it_is_the_only_write_of_a_transaction(
    store: Store, user: str, reads_first: bool, nested: bool
) -> None:
    """A unit of work that opened a transaction, read (or did nothing) and then saved its session: the save is
    committed with the transaction, not dropped with an unused BEGIN (a batch whose every item failed)."""
    session = await store.create_session(user)
    async with store.transaction():
        if nested:
            async with store.transaction():
                if reads_first:
                    await store.count(RECIPES, Where(), user_id=user)
        elif reads_first:
            await store.count(RECIPES, Where(), user_id=user)
        await store.save_session_state(session.session_id, turn=2, entries=[], counters={}, expected_version=0,
                                       documents={"batch:batch_1": {"outcome": "failed"}})
    assert await store.load_documents(session.session_id) == {"batch:batch_1": {"outcome": "failed"}}
    stored = await store.session_version(session.session_id)
    assert stored is not None and (stored.number, stored.turn) == (1, 2)


async def test_concurrent_sessions_of_one_user_get_distinct_numbers(store: Store, user: str) -> None:
    """Ten create_session calls at once: numbers 1..10, exactly one current."""
    created: list[int] = []

    async def create() -> None:
        created.append((await store.create_session(user)).number)

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            for _ in range(10):
                group.start_soon(create)
    assert sorted(created) == list(range(1, 11))
    current = await store.current_session(user)
    assert current is not None and current.number in created


# -- parents and children in one write ----------------------------------------------------------


def _ingredients(*counts: int) -> Children:
    """`counts[i]` ingredient rows for parent i."""
    rows, parents = [], []
    for parent, count in enumerate(counts):
        rows += [{"position": k + 1, "name": f"part {parent}.{k}", "quantity": k + 0.5} for k in range(count)]
        parents += [parent] * count
    return Children(RECIPE_INGREDIENTS, "recipe_id", rows, parents)


async def test_parents_and_children_are_stored_together_each_child_pointing_at_its_own_parent(store: Store, user: str) -> None:
    children = _ingredients(2, 0, 3)
    parents, (parts,) = await store.insert_with_children(RECIPES, [{"name": n} for n in ("A", "B", "C")], [children], user_id=user)
    assert names(parents) == ["A", "B", "C"] and len({row["id"] for row in parents}) == 3
    assert [row["recipe_id"] for row in parts] == [parents[i]["id"] for i in children.parents]
    stored = await store.select(RECIPE_INGREDIENTS, Query(order_by=(OrderBy("name"),)), user_id=user)
    assert stored == sorted(parts, key=lambda row: row["name"])
    assert names(await store.select(RECIPES, Query(), user_id=user)) == ["A", "B", "C"]


@pytest.mark.parametrize("in_transaction", [pytest.param(False, id="alone"), pytest.param(True, id="inside-transaction")])
async def test_a_bad_child_leaves_neither_parents_nor_children(store: Store, user: str, in_transaction: bool) -> None:
    """All or none, told in terms of the child's table; a caller that catches it inside its transaction goes on cleanly."""
    children = _ingredients(1, 2)
    bad = Children(children.table, children.column, [*children.rows[:-1], {"position": 2, "name": "bad", "quantity": -1}], children.parents)
    with anyio.fail_after(10):
        if in_transaction:
            async with store.transaction():
                with pytest.raises(ConstraintViolationError) as refused:
                    await store.insert_with_children(RECIPES, [{"name": "A"}, {"name": "B"}], [bad], user_id=user)
                await add(store, RECIPES, user, name="After")
        else:
            with pytest.raises(ConstraintViolationError) as refused:
                await store.insert_with_children(RECIPES, [{"name": "A"}, {"name": "B"}], [bad], user_id=user)
    assert refused.value.fields.get("table") == "recipe_ingredients"
    assert names(await store.select(RECIPES, Query(), user_id=user)) == (["After"] if in_transaction else [])
    assert await store.select(RECIPE_INGREDIENTS, Query(), user_id=user) == []


async def test_a_child_pointing_at_another_users_row_is_refused_and_nothing_is_written(store: Store, user: str) -> None:
    bob = await store.ensure_user("bob")
    bobs_recipe = await add(store, RECIPES, bob, name="Bob's")
    tasks = Children(TASKS, "meal_plan_id", [{"title": "prep", "recipe_id": bobs_recipe["id"]}], [0])
    with pytest.raises(ConstraintViolationError):
        await store.insert_with_children(MEAL_PLANS, [{"date": "2026-01-12", "meal_type": "dinner"}], [tasks], user_id=user)
    assert await store.select(MEAL_PLANS, Query(), user_id=user) == []
    assert await store.select(TASKS, Query(), user_id=user) == []


@pytest.mark.row_locks
async def test_two_processes_adding_to_one_row_lose_nothing(store: Store, second_store: Store, user: str) -> None:
    """Two stores on one database (two processes or replicas) each read a row inside a transaction and write it
    back changed: the read runs under the write lock (SQLite: BEGIN IMMEDIATE first; PostgreSQL: FOR UPDATE),
    so neither write overwrites the other."""
    (recipe,) = await store.insert(RECIPES, [{"name": "Soup"}], user_id=user)
    mine = Where(all_of=(Filter("id", "eq", recipe["id"]),))

    async def add_tag(writer: Store, tag: str) -> None:
        async with writer.transaction():
            (row,) = await writer.select(RECIPES, Query(where=mine, columns=("id", "tags")), user_id=user)
            await anyio.sleep(0.01)  # the other process gets every chance to interleave
            await writer.update(RECIPES, mine, {"tags": [*row["tags"], tag]}, user_id=user)

    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            for i in range(6):
                group.start_soon(add_tag, store, f"a{i}")
                group.start_soon(add_tag, second_store, f"b{i}")
    (row,) = await second_store.select(RECIPES, Query(where=mine, columns=("tags",)), user_id=user)
    assert sorted(row["tags"]) == sorted([f"a{i}" for i in range(6)] + [f"b{i}" for i in range(6)])
