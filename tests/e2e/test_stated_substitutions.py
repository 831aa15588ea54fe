"""A substitution the user's words state ('use oat milk instead of milk') is held about the recipe the turn refers to
when Understand's snapshot leaves it out, and warned about on every write that puts the old thing back: a line added
to the recipe or renamed to it, a version drafted from the recipe, and the recipe that version was saved as; the new
thing is not warned about, nor other recipes; once dropped, overridden or reset, nothing is."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from .helpers import call

pytestmark = pytest.mark.anyio

SAID = "is milk: the user excluded it from"


async def _pancakes(client: Client) -> tuple[str, str]:
    """The pancakes (the recipe the turn refers to) and another recipe, by ref."""
    found = [(await call(client, "db_read", table="recipes", filters=[{"field": "name", "op": "eq", "value": name}]))["rows"][0]["id"]
             for name in ("Blueberry Oat Pancakes", "Mushroom Risotto")]
    return found[0], found[1]


async def _said(client: Client, pancakes: str) -> dict[str, Any]:
    return await call(client, "understanding_submit", message="Make it for 6 and use oat milk instead of milk.", referenced_refs=[pancakes])


async def _line(client: Client, recipe: str, name: str) -> dict[str, Any]:
    return await call(client, "db_create", table="recipe_ingredients", data={"recipe_id": recipe, "position": 30, "name": name})


async def test_the_users_words_are_held_about_the_recipe_referred_to(client: Client) -> None:
    pancakes, _ = await _pancakes(client)
    compiled = (await _said(client, pancakes))["constraints"]
    assert compiled["about"] == {pancakes: ["exclude milk", "include oat milk"]}
    assert "milk" not in [item["value"] for item in compiled["must_exclude"]]  # about the pancakes only, never goal-wide


@pytest.mark.parametrize("name", ["whole milk", "milk", "2% milk"])
async def test_putting_the_old_thing_back_is_warned_about_on_every_write(client: Client, name: str) -> None:
    pancakes, other = await _pancakes(client)
    await _said(client, pancakes)
    added = await _line(client, pancakes, name)
    assert [w for w in added.get("warnings", []) if SAID in w] == [f"data.name (ingredient) '{name}' {SAID} {pancakes}"]
    line = added["rows"][0]["id"]
    renamed = await call(client, "db_update", table="recipe_ingredients", filters=[{"field": "id", "op": "eq", "value": line}],
                         data={"name": f"cold {name}"})
    assert any(SAID in w for w in renamed.get("warnings", []))
    assert not any(SAID in w for w in (await _line(client, other, name)).get("warnings", []))
    assert not any(SAID in w for w in (await _line(client, pancakes, "oat milk")).get("warnings", []))


async def test_a_version_drafted_from_the_recipe_and_the_recipe_it_was_saved_as_are_held_to_it(client: Client) -> None:
    pancakes, _ = await _pancakes(client)
    await _said(client, pancakes)
    version = {"name": "Oat Milk Pancakes", "servings": 6, "instructions": ["Mix.", "Cook."], "parent_recipe": pancakes,
               "ingredients": [{"name": "flour", "quantity": 1, "unit": "cup"}, {"name": "oat milk", "quantity": 2, "unit": "cup"}]}
    drafted = await call(client, "draft_create", entity_type="recipe", items=[version])
    assert not any(SAID in w for w in drafted.get("warnings", []))
    saved = (await call(client, "draft_save", refs=[drafted["drafts"][0]["ref"]]))["items"][0]["saved_as"]
    added = await _line(client, saved, "whole milk")
    assert [w for w in added.get("warnings", []) if SAID in w] == [
        f"data.name (ingredient) 'whole milk' {SAID} {pancakes}, which {saved} is a version of"]


@pytest.mark.parametrize("release", [
    {"drop": ["milk"]},
    {"reset_all": True},
])
async def test_once_the_user_lets_it_go_nothing_is_warned(client: Client, release: dict[str, Any]) -> None:
    pancakes, _ = await _pancakes(client)
    await _said(client, pancakes)
    await call(client, "understanding_submit", message="milk is fine after all", constraint_snapshot=release)
    assert not any(SAID in w for w in (await _line(client, pancakes, "whole milk")).get("warnings", []))


async def test_an_override_of_the_swap_replaces_it(client: Client) -> None:
    pancakes, _ = await _pancakes(client)
    await _said(client, pancakes)
    await call(client, "understanding_submit", message="actually no cream instead", constraint_snapshot={"overrides": [
        {"type": "ingredient_excluded", "field": "swap", "value": "heavy cream", "about": pancakes}]})
    assert not any(SAID in w for w in (await _line(client, pancakes, "whole milk")).get("warnings", []))
    assert any("heavy cream" in w for w in (await _line(client, pancakes, "heavy cream")).get("warnings", []))
