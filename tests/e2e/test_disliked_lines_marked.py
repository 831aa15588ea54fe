"""A shopping line of something the user dislikes says so, on the list and in shopping_list_from's result, as the
recipe card marks the line (the cook's QA: a jar of kalamata olives went on the list unmarked); what the dislike does
not name ('olive tapenade' for olives) is not marked."""

from __future__ import annotations

import pytest
from mcp import Client

from .helpers import call, eq

pytestmark = pytest.mark.anyio
ALL_PREFERENCES = {"table": "preferences", "all": True}


@pytest.mark.parametrize(("dislike", "name", "marked"), [
    ("olives", "kalamata olives", True), ("olives", "olive tapenade", False), ("blue cheese", "blue cheese", True),
    ("cilantro", "fresh cilantro", True), ("mushrooms", "shiitake mushrooms", True), ("cilantro", "coriander seeds", False),
])
@pytest.mark.parametrize("preview", [True, False])
async def test_a_disliked_line_says_it_is_disliked(client: Client, dislike: str, name: str, marked: bool, preview: bool) -> None:
    await call(client, "db_update", **ALL_PREFERENCES, data={"disliked_ingredients": [dislike]})
    created = await call(client, "db_create", table="recipes", data={"name": "Quux Bowl", "servings": 2, "instructions": ["Mix."]})
    ref = str(created["rows"][0]["id"])
    await call(client, "db_create", table="recipe_ingredients",
               data={"recipe_id": ref, "position": 1, "name": name, "quantity": 1, "unit": "cup"})
    result = await call(client, "shopping_list_from", recipes=[ref], preview=preview)
    lines = [line for line in result["lines"] if line["name"] == name]
    said = f"you don't like {dislike}"
    assert lines and all((said in line.get("note", "")) is marked for line in lines), result
    if not preview:
        rows = (await call(client, "db_read", table="shopping_list", filters=[eq("name", name)]))["rows"]
        assert rows and all((said in str(row.get("notes") or "")) is marked for row in rows), rows
        again = await call(client, "shopping_list_from", recipes=[ref])
        assert again["lines"] == []
        shown = [line for section in (await call(client, "shopping_list_show"))["sections"] for line in section["lines"]
                 if line["name"] == name]  # the list marks it once: the 'disliked' mark, not again as a note (G11)
        assert shown and all((line.get("disliked") == dislike) is marked and said not in (line.get("notes") or "")
                             for line in shown), shown
