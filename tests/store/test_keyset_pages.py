"""Keyset pagination (`Query.after`) and reads past a response cap, on every backend.

Paging through a read, page after page, must give exactly the rows of the whole read, in its
order, whatever the order: ascending or descending, NULLs, ties broken by insertion order. The
orders are generated from the schema's orderable columns of a table with NULLs and duplicates.
"""

from __future__ import annotations

from typing import Any

import pytest

from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.query import Filter, OrderBy, Query, Where
from alfred_mcp.kitchen.schema import INVENTORY, SHOPPING_LIST
from alfred_mcp.store.base import Store

pytestmark = pytest.mark.anyio

ITEMS = [
    {"name": f"item {i % 7}", "quantity": float(i % 4), "unit": ("g", "kg")[i % 2],
     "expiry_date": None if i % 4 == 0 else f"2026-01-{1 + i % 9:02d}", "category": None if i % 5 == 0 else f"c{i % 3}",
     "location": ("fridge", "pantry", "freezer")[i % 3]}
    for i in range(23)
]
ORDERS = [
    (),
    (OrderBy("name"),),
    (OrderBy("name", True),),
    (OrderBy("quantity"),),
    (OrderBy("quantity", True),),
    (OrderBy("expiry_date"), OrderBy("name", True)),
    (OrderBy("category", True), OrderBy("quantity")),
    (OrderBy("category"), OrderBy("unit", True)),
    (OrderBy("location"), OrderBy("expiry_date", True), OrderBy("quantity")),
]


async def _pages(store: Store, user: str, query: Query, size: int) -> list[list[dict[str, Any]]]:
    pages, after = [], None
    while True:
        page = await store.select(INVENTORY, Query(where=query.where, order_by=query.order_by, limit=size, after=after), user_id=user)
        if page:
            pages.append(page)
        if len(page) < size:
            return pages
        after = page[-1]["id"]


@pytest.mark.parametrize("order", ORDERS, ids=lambda order: "+".join(f"{o.field}{' desc' if o.descending else ''}" for o in order) or "default")
async def test_pages_in_any_order_join_into_the_whole_read(store: Store, user: str, order: tuple[OrderBy, ...]) -> None:
    """Pages of 4 rows, each continuing after the previous page's last row, give the whole read once, in order."""
    await store.insert(INVENTORY, ITEMS, user_id=user)
    where = Where(all_of=(Filter("location", "neq", "freezer"),))
    whole = await store.select(INVENTORY, Query(where=where, order_by=order), user_id=user)
    pages = await _pages(store, user, Query(where=where, order_by=order), 4)
    assert [row["id"] for page in pages for row in page] == [row["id"] for row in whole]
    assert all(len(page) == 4 for page in pages[:-1]) and len(whole) == 16


async def test_a_page_after_a_deleted_row_is_refused_naming_the_cursor(store: Store, user: str) -> None:
    rows = await store.insert(SHOPPING_LIST, [{"name": "a"}, {"name": "b"}], user_id=user)
    await store.delete(SHOPPING_LIST, Where(all_of=(Filter("id", "eq", rows[0]["id"]),)), user_id=user)
    with pytest.raises(InputError) as refused:
        await store.select(SHOPPING_LIST, Query(after=rows[0]["id"]), user_id=user)
    assert refused.value.fields["field"] == "cursor"


async def test_another_users_row_is_no_anchor(store: Store, user: str) -> None:
    """A page never continues after a row its user cannot see."""
    other = await store.ensure_user("bob")
    (theirs,) = await store.insert(SHOPPING_LIST, [{"name": "theirs"}], user_id=other)
    with pytest.raises(InputError):
        await store.select(SHOPPING_LIST, Query(after=theirs["id"]), user_id=user)


async def test_a_read_larger_than_a_response_cap_returns_every_row(store: Store, user: str) -> None:
    """1,200 rows in one unlimited read and in pages of 500: the Supabase stack caps responses at 1,000 rows."""
    await store.insert(SHOPPING_LIST, [{"name": f"row {i:04d}"} for i in range(1_200)], user_id=user)
    whole = await store.select(SHOPPING_LIST, Query(columns=("name",)), user_id=user)
    assert [row["name"] for row in whole] == [f"row {i:04d}" for i in range(1_200)]
    limited = await store.select(SHOPPING_LIST, Query(columns=("name",), limit=1_100), user_id=user)
    assert len(limited) == 1_100
    second = await store.select(SHOPPING_LIST, Query(limit=500, after=whole[999]["id"]), user_id=user)
    assert [row["name"] for row in second] == [f"row {i:04d}" for i in range(1_000, 1_200)]
