"""shopping_list_from's notes on what the pantry has say part of a container in the measure it holds, as what is left
is said ('about 2 cups of the bottle'), never a decimal or a fraction of the container."""

from __future__ import annotations

import re
from typing import Any

import pytest
from mcp import Client

from .helpers import call, eq

pytestmark = pytest.mark.anyio
_RAW = re.compile(r"\d\.\d|\d/\d+ (?:bottle|box|carton|bag|jar)s?\b")
"""A decimal, or a fraction of a container whose content is known."""


def _notes(result: dict[str, Any]) -> list[str]:
    return [str(item["note"]) for item in result["covered"] if item.get("note")] + [
        line["text"] for line in result["lines"]]


@pytest.mark.parametrize(("name", "unit"), [("olive oil", "bottle"), ("kosher salt", "box"), ("vegetable broth", "carton"),
                                            ("all-purpose flour", "bag")])
@pytest.mark.parametrize("part", [0.9766, 0.875, 0.5, 0.3])
@pytest.mark.parametrize("cups", [0.25, 12])
async def test_what_the_pantry_has_of_a_part_container_is_said_in_the_measure_it_holds(
        client: Client, name: str, unit: str, part: float, cups: float) -> None:
    """Part of a bottle, box, carton or bag in the pantry, against a need it covers or not: the covered note and the
    line's '(the pantry has ...)' say it as 'about ... of the <container>'."""
    await call(client, "db_update", table="inventory", filters=[eq("name", name)], data={"quantity": part, "unit": unit})
    created = await call(client, "draft_create", entity_type="recipe", items=[{
        "name": "Test Container Dish", "servings": 2, "ingredients": [{"name": name, "quantity": cups, "unit": "cup"}],
        "instructions": ["Cook."]}])
    recipe = (await call(client, "draft_save", refs=[created["drafts"][0]["ref"]]))["items"][0]["saved_as"]
    result = await call(client, "shopping_list_from", recipes=[recipe])
    said = [text for text in _notes(result) if "the pantry has" in text]
    assert said, result
    assert [text for text in said if _RAW.search(text)] == []
    assert all(f"of the {unit}" in text for text in said), said
