"""A recipe drafted without servings is made for the household, as a meal planned without servings is: a generate step
sent ahead of a session's first answer, before its model saw the household, drafts for them. Servings given (either
spelling) are kept; other kinds of draft are left as they are; with nobody in the profile the draft keeps none.
(Real client, real SQLite, the demo kitchen.)"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from e2e.helpers import call, eq

pytestmark = pytest.mark.anyio
LEEK_SOUP = {"name": "Leek Soup", "instructions": ["Sweat the leeks.", "Add stock and simmer."],
             "ingredients": [{"name": "leeks", "quantity": 2}, {"name": "vegetable stock", "quantity": 1, "unit": "l"}]}


async def _household(client: Client, adults: int, kids: int) -> None:
    (profile,) = (await call(client, "db_read", table="preferences"))["rows"]
    await call(client, "db_update", table="preferences", filters=[eq("id", profile["id"])],
               data={"household_adults": adults, "household_kids": kids})


async def _drafted(client: Client, items: list[dict[str, Any]]) -> list[Any]:
    drafts = (await call(client, "draft_create", entity_type="recipe", items=items))["drafts"]
    read = (await call(client, "draft_read", refs=[draft["ref"] for draft in drafts]))["drafts"]
    return [draft["content"].get("servings") for draft in read]


@pytest.mark.parametrize(("adults", "kids"), [(1, 0), (2, 1), (2, 3)])
async def test_a_recipe_drafted_without_servings_is_for_the_household(client: Client, adults: int, kids: int) -> None:
    await _household(client, adults, kids)
    given = [LEEK_SOUP, {**LEEK_SOUP, "name": "Big Leek Soup", "servings": 8}, {**LEEK_SOUP, "name": "Leek Soup for Two", "serves": 2},
             {**LEEK_SOUP, "name": "Leek Soup Again", "servings": None}]
    assert await _drafted(client, given) == [adults + kids, 8, 2, adults + kids]


async def test_with_nobody_in_the_profile_a_draft_keeps_no_servings(client: Client) -> None:
    await _household(client, 0, 0)
    assert await _drafted(client, [LEEK_SOUP]) == [None]


async def test_other_drafts_take_nothing_from_the_household(client: Client) -> None:
    drafts = (await call(client, "draft_create", entity_type="task", items=[{"title": "Thaw the cod"}]))["drafts"]
    read = (await call(client, "draft_read", refs=[drafts[0]["ref"]]))["drafts"]
    assert "servings" not in read[0]["content"]
