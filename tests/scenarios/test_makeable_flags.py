"""recipes_makeable flags a disliked ingredient, optional or not, in what it suggests: honoring constraints, a recipe
with it as a required line is left out and one with it optional says to leave it out; not honoring them, each such
recipe is suggested saying what it holds. The card a turn shows carries the flag. Through the real client on the seeded
kitchen (its listed dislike: olives), generated over every recipe and both settings."""

from __future__ import annotations

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.agent.act_tools import result_card
from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server

pytestmark = pytest.mark.anyio
DISLIKE = "olives"


@pytest.mark.parametrize("honor", [True, False])
async def test_every_suggested_recipe_with_a_disliked_ingredient_says_so(app: AlfredApp, honor: bool) -> None:
    async with Client(build_server(app)) as client:
        await call(client, "session_start")
        lines = (await call(client, "db_read", table="recipe_ingredients", columns=["recipe_id", "name", "is_optional"],
                            limit=500))["rows"]
        arguments = {"limit": 50, "honor_constraints": honor}
        result = await call(client, "recipes_makeable", **arguments)
    disliked = {line["recipe_id"]: line for line in lines if DISLIKE in line["name"].lower().split()}
    assert disliked, "the seeded kitchen has a recipe with the disliked ingredient"
    suggested = {recipe["ref"]: recipe for recipe in result["recipes"]}
    card = result_card("recipes_makeable", arguments, result)
    for ref, line in disliked.items():
        if honor and not line["is_optional"]:
            assert ref not in suggested and any(item["ref"] == ref for item in result["excluded"])
            continue
        notes = " ".join(suggested[ref].get("notes", []))
        assert line["name"] in notes and f"don't like {DISLIKE}" in notes, (ref, notes)
        assert "notes=" in next(row for row in card.splitlines() if row.startswith(f"- {ref} ")), card
    for ref, recipe in suggested.items():
        if ref not in disliked:
            assert f"don't like {DISLIKE}" not in " ".join(recipe.get("notes", [])), recipe
