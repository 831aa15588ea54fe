"""The pantry as a cook keeps it, through the real client on the demo kitchen: a bought line stocked where the thing
keeps (onions on the counter, spinach in the fridge, a can in the pantry, frozen corn in the freezer)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from .helpers import call, eq

pytestmark = pytest.mark.anyio
BOUGHT = [  # names the demo pantry holds no row of: where a new row goes is the rules', not an old row's
    ({"name": "shallots", "quantity": 4, "category": "produce"}, "counter"),
    ({"name": "butternut squash", "quantity": 1}, "counter"),
    ({"name": "mangoes", "quantity": 2, "category": "produce"}, "counter"),
    ({"name": "cherry tomatoes", "quantity": 1, "unit": "lb"}, "counter"),
    ({"name": "kale", "quantity": 1, "unit": "bunch", "category": "produce"}, "fridge"),
    ({"name": "scallions", "quantity": 1, "unit": "bunch"}, "fridge"),
    ({"name": "chickpeas", "quantity": 2, "unit": "can", "category": "produce"}, "pantry"),
    ({"name": "frozen corn", "quantity": 1, "unit": "bag", "category": "produce"}, "freezer"),
]


@pytest.mark.parametrize(("line", "place"), BOUGHT, ids=[line["name"] for line, _ in BOUGHT])
async def test_a_bought_line_is_stocked_where_the_thing_keeps(client: Client, line: dict[str, Any], place: str) -> None:
    (row,) = (await call(client, "db_create", table="shopping_list", data=[line]))["rows"]
    ticked = await call(client, "shopping_list_check", items=[row["id"]], bought=True)
    (stocked,) = ticked["stocked"]
    assert stocked["new"], stocked
    (item,) = (await call(client, "db_read", table="inventory", filters=[eq("id", stocked["ref"])]))["rows"]
    assert item["location"] == place, item
