"""A recipe draft (imported or drafted, not saved yet) is shown as a card and scaled exactly as it will be once saved."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from alfred_mcp.kitchen.view_texts import DRAFT_FACT

from .helpers import call, call_error

pytestmark = pytest.mark.anyio

PASTED = ("Quux Curry\nServes 4\nIngredients\n2 tbsp curry powder\n1 can coconut milk (14 oz)\n3 cloves garlic\njuice of 1 lime\n"
          "1 1/2 cups basmati rice\nInstructions\nFry the garlic.\nAdd the rest and simmer.")
DRAFTED = {"name": "Quux Stew", "servings": 2, "instructions": ["Brown.", "Simmer."],
           "ingredients": [{"name": "quuxbeans", "quantity": "1 1/2", "unit": "cup"}, {"name": "onion", "quantity": 1},
                           {"name": "salt", "unit": "pinch"}]}


async def _draft(client: Client, source: str) -> str:
    if source == "import":
        return str((await call(client, "recipes_import", source=PASTED))["drafts"][0]["ref"])
    return str((await call(client, "draft_create", entity_type="recipe", items=[DRAFTED]))["drafts"][0]["ref"])


def _without(result: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in result.items() if key not in {"recipe", "session", "turn", *keys}}


@pytest.mark.parametrize("source", ["import", "draft_create"])
@pytest.mark.parametrize("servings", [1, 3, 12])
async def test_a_drafts_card_and_scaling_are_what_the_saved_recipe_shows(client: Client, source: str, servings: int) -> None:
    ref = await _draft(client, source)
    card = await call(client, "recipe_show", recipe=ref)
    scaled = await call(client, "recipes_scale", recipe=ref, servings=servings)
    assert card["recipe"] == scaled["recipe"] == ref and card["ingredients"] and card["steps"]
    saved = (await call(client, "draft_save", refs=[ref]))["items"][0]["saved_as"]
    assert _without(await call(client, "recipe_show", recipe=saved)) == _without(card, "draft")
    assert _without(await call(client, "recipes_scale", recipe=saved, servings=servings)) == _without(scaled)


async def test_a_discarded_draft_is_refused_by_name(client: Client) -> None:
    ref = await _draft(client, "draft_create")
    await call(client, "draft_discard", refs=[ref])
    error = await call_error(client, "recipe_show", recipe=ref)
    assert ref in error["message"]


async def _card_text(client: Client, ref: str) -> str:
    result = await client.call_tool("recipe_show", {"recipe": ref})
    return "".join(block.text for block in result.content if block.type == "text")


@pytest.mark.parametrize("source", ["import", "draft_create"])
async def test_a_drafts_card_and_text_say_it_is_not_saved_and_the_saved_recipes_do_not(client: Client, source: str) -> None:
    """Not only its gen_ ref: the card (`draft`) and its first line ('draft, not saved') say a draft is not in the
    recipes yet; once saved, neither does."""
    ref = await _draft(client, source)
    assert (await call(client, "recipe_show", recipe=ref))["draft"] is True
    first = (await _card_text(client, ref)).splitlines()[0]
    assert first.startswith(f"{DRAFTED['name'] if source == 'draft_create' else 'Quux Curry'} ({ref}) · {DRAFT_FACT}"), first
    saved = (await call(client, "draft_save", refs=[ref]))["items"][0]["saved_as"]
    assert "draft" not in await call(client, "recipe_show", recipe=saved)
    assert DRAFT_FACT not in (await _card_text(client, saved))
