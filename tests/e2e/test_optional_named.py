"""shopping_list_from leaves optional ingredients off the list and says which, by recipe (the cook's QA: the tacos'
avocados vanished without a word), for every demo recipe that has some, listed or previewed."""

from __future__ import annotations

import pytest
from mcp import Client

from .helpers import call, eq

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("preview", [True, False])
async def test_every_optional_ingredient_left_off_is_named_with_its_recipe(client: Client, preview: bool) -> None:
    optional = (await call(client, "db_read", table="recipe_ingredients", filters=[eq("is_optional", True)], limit=200))["rows"]
    assert optional, "the demo recipes have optional ingredients"
    recipes = sorted({str(row["recipe_id"]) for row in optional})
    for ref in recipes:
        name = (await call(client, "db_read", table="recipes", filters=[eq("id", ref)]))["rows"][0]["name"]
        result = await call(client, "shopping_list_from", recipes=[ref], preview=preview)
        mine = [str(row["name"]) for row in optional if row["recipe_id"] == ref]
        assert f"Optional, not added: {', '.join(dict.fromkeys(mine))} ({name})." in result.get("message", ""), result.get("message")
        shown = [line["name"] for line in result["lines"]] + [item["name"] for item in result["covered"]]
        assert not set(mine) & set(shown), shown
