"""A recipe's total time when it is not prep + cook (rising, resting, marinating, a page giving only a total): imported,
saved, and then read as the total everywhere a total is meant: the card, search's max_minutes and total_minutes,
both exports, the quick answers' cards. A recipe without one (every older row) reads prep + cook, as before."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import RECIPES
from alfred_mcp.kitchen.units import iso_minutes

from .helpers import call

pytestmark = pytest.mark.anyio


def page(name: str, **times: str) -> str:
    return json.dumps({"@context": "https://schema.org", "@type": "Recipe", "name": name, "recipeYield": "4",
                       "recipeIngredient": ["500 g bread flour", "7 g dried yeast", "350 ml warm water"],
                       "recipeInstructions": ["Mix.", "Leave to rise for two hours.", "Bake."], **times})


TIMES = [
    pytest.param({"prepTime": "PT20M", "cookTime": "PT35M", "totalTime": "PT2H55M"}, (20, 35, 175), 175, id="rising-beyond-prep-and-cook"),
    pytest.param({"totalTime": "PT1H30M"}, (None, None, 90), 90, id="only-a-total"),
    pytest.param({"prepTime": "PT20M", "cookTime": "PT35M"}, (20, 35, None), 55, id="no-total-reads-prep-plus-cook"),
    pytest.param({"prepTime": "PT10M", "totalTime": "PT8H10M"}, (10, None, 490), 490, id="marinating-no-cook-time"),
]


@pytest.mark.parametrize(("times", "stored", "total"), TIMES)
async def test_a_pages_total_time_is_kept_and_read_as_the_total_everywhere(
    client: Client, app: AlfredApp, times: dict[str, str], stored: tuple[int | None, ...], total: int,
) -> None:
    content = await _import_and_save(client, "Overnight Loaf", times)
    assert (content["prep_time_minutes"], content["cook_time_minutes"], content["total_time_minutes"]) == stored
    (row,) = await app.store.select(RECIPES, Query(where=Where((Filter("name", "eq", "Overnight Loaf"),))), user_id=app.user_id)
    assert (row["prep_time_minutes"], row["cook_time_minutes"], row["total_time_minutes"]) == stored
    ref = (await call(client, "recipes_search", ingredient="bread flour"))["recipes"][0]["ref"]

    card = await call(client, "recipe_show", recipe=ref)
    assert card.get("total_time_minutes") == stored[2]
    hits = (await call(client, "recipes_search", ingredient="bread flour", max_minutes=total))["recipes"]
    assert [(hit["name"], hit["total_minutes"]) for hit in hits] == [("Overnight Loaf", total)]
    assert (await call(client, "recipes_search", ingredient="bread flour", max_minutes=total - 1))["recipes"] == []
    exported = (await call(client, "recipes_export", recipe=ref))["content"]
    assert iso_minutes(exported["totalTime"]) == total
    markdown = (await call(client, "recipes_export", recipe=ref, format="markdown"))["content"]
    written = {175: "2 hr 55 min", 90: "1 hr 30 min", 490: "8 hr 10 min"}  # as a cook writes a time
    assert (f"Total {written.get(stored[2] or 0, '')}" in markdown) == (stored[2] is not None)
    again = (await call(client, "recipes_import", source=json.dumps(exported)))["drafts"][0]["content"]
    assert again["total_time_minutes"] == total



async def _import_and_save(client: Client, name: str, times: dict[str, str]) -> dict[str, Any]:
    """The draft recipes_import makes of a page with these times, saved."""
    draft = (await call(client, "recipes_import", source=page(name, **times)))["drafts"][0]
    await call(client, "draft_save", refs=[draft["ref"]])
    return dict(draft["content"])
