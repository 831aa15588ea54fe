"""db_read pages: next_cursor continues a read where its page ended, for any order, until no row is left."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from .helpers import call, call_error, eq

pytestmark = pytest.mark.anyio

READS: list[dict[str, Any]] = [
    {"table": "inventory"},
    {"table": "inventory", "order_by": [{"field": "expiry_date", "direction": "desc"}, {"field": "name"}]},
    {"table": "recipe_ingredients", "filters": [{"field": "is_optional", "op": "eq", "value": False}]},
    {"table": "ingredients", "order_by": [{"field": "category"}]},
]


async def _all_pages(client: Client, read: dict[str, Any], size: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    page = await call(client, "db_read", **read, limit=size)
    while True:
        rows += page["rows"]
        if "next_cursor" not in page:
            assert page["truncated"] is False
            return rows
        assert page["truncated"] is True and len(page["rows"]) == size
        page = await call(client, "db_read", **read, limit=size, cursor=page["next_cursor"])


@pytest.mark.parametrize("read", READS, ids=lambda read: read["table"] + ("+order" if "order_by" in read else ""))
async def test_pages_cover_the_whole_read_once_in_order(client: Client, read: dict[str, Any]) -> None:
    whole = await call(client, "db_read", **read, limit=500)
    assert "next_cursor" not in whole
    paged = await _all_pages(client, read, 7)
    assert [row["id"] for row in paged] == [row["id"] for row in whole["rows"]]


async def test_a_cursor_may_change_columns_and_limit_but_not_the_filters(client: Client) -> None:
    first = await call(client, "db_read", table="inventory", limit=3)
    narrower = await call(client, "db_read", table="inventory", limit=5, columns=["name"], cursor=first["next_cursor"])
    assert set(narrower["rows"][0]) == {"id", "name"} and len(narrower["rows"]) == 5
    refused = await call_error(client, "db_read", table="inventory", filters=[eq("location", "fridge")], cursor=first["next_cursor"])
    assert refused["field"] == "cursor" and "another read" in refused["message"]
    other_table = await call_error(client, "db_read", table="recipes", cursor=first["next_cursor"])
    assert other_table["field"] == "cursor"


@pytest.mark.parametrize("cursor", ["", "not-a-cursor", "YzF8eHx5", "Y|2|3"])
async def test_a_cursor_db_read_did_not_give_is_refused_naming_the_field(client: Client, cursor: str) -> None:
    refused = await call_error(client, "db_read", table="inventory", cursor=cursor)
    assert refused["field"] == "cursor"


async def test_the_next_page_continues_after_the_last_row_even_when_rows_are_added(client: Client) -> None:
    """Keyset, not offset: a row added before the cursor's position shifts nothing on the next page."""
    first = await call(client, "db_read", table="inventory", limit=5)
    await call(client, "db_create", table="inventory", data={"name": "aaa first by name", "quantity": 1, "unit": "g"})
    second = await call(client, "db_read", table="inventory", limit=5, cursor=first["next_cursor"])
    whole = await call(client, "db_read", table="inventory", limit=500)
    ids = [row["id"] for row in whole["rows"]]
    assert [row["id"] for row in second["rows"]] == ids[ids.index(first["rows"][-1]["id"]) + 1:][:5]
