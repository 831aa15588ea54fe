"""recipes_search and recipes_makeable through the real MCP client over the seeded demo kitchen."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from .helpers import call, call_error

pytestmark = pytest.mark.anyio

DEMO_FISH = {"Lemon Garlic Baked Cod", "Air-Fryer Lemon Garlic Cod", "Miso-Glazed Salmon with Bok Choy"}


def names(result: dict[str, Any]) -> list[str]:
    return [recipe["name"] for recipe in result["recipes"]]


async def create_recipe(client: Client, name: str, *ingredients: str, consent: dict[str, Any] | None = None, **fields: Any) -> str:
    """db_create a recipe and its ingredients, the way a client would; returns the recipe's ref.

    `consent` is an allergy_override: without it, a write holding an allergen of the user is refused.
    """
    extra = {"allergy_override": consent} if consent else {}
    recipe = await call(client, "db_create", table="recipes", data={"name": name, "instructions": ["Cook it."], **fields}, **extra)
    ref = recipe["rows"][0]["id"]
    rows = [{"recipe_id": ref, "name": item, "position": n} for n, item in enumerate(ingredients, start=1)]
    await call(client, "db_create", table="recipe_ingredients", data=rows, **extra)
    return ref


async def test_fish_finds_cod_and_salmon_including_a_recipe_saved_a_moment_ago(client: Client) -> None:
    """Seed 000 §3.4: 'fish' expands to cod and salmon; a recipe created just now is found too."""
    before = await call(client, "recipes_search", category="fish", honor_constraints=False)
    assert set(names(before)) == DEMO_FISH
    assert before["category"] == "fish" and {"cod", "salmon", "tilapia"} <= set(before["expanded"])
    assert all(recipe["ref"].startswith("recipe_") for recipe in before["recipes"])
    ref = await create_recipe(client, "Weeknight Cod Chowder", "cod fillets", "potatoes", "heavy cream")
    after = await call(client, "recipes_search", category="fish", honor_constraints=False)
    chowder = next(recipe for recipe in after["recipes"] if recipe["ref"] == ref)
    assert chowder["name"] == "Weeknight Cod Chowder" and chowder["matched"] == ["cod fillets"]
    assert set(names(after)) == DEMO_FISH | {"Weeknight Cod Chowder"}


async def test_category_aliases_and_plurals_resolve(client: Client) -> None:
    poultry = await call(client, "recipes_search", category="fowl", honor_constraints=False)
    assert poultry["category"] == "poultry"
    assert set(names(poultry)) == {"Chicken Tikka Masala", "Greek Lemon Chicken and Potatoes", "Chicken Fajitas"}


async def test_an_unknown_category_is_refused_with_the_known_ones(client: Client) -> None:
    error = await call_error(client, "recipes_search", category="dessert things")
    assert error["code"] == "invalid_filter" and error["field"] == "category"
    assert "fish" in error["valid"] and "Known categories:" in error["message"]


async def test_filters_combine(client: Client) -> None:
    quick = await call(client, "recipes_search", ingredient="cod", max_minutes=20, honor_constraints=False)
    assert names(quick) == ["Air-Fryer Lemon Garlic Cod"]
    fryer = await call(client, "recipes_search", equipment="Air Fryer", honor_constraints=False)
    assert names(fryer) == ["Air-Fryer Lemon Garlic Cod"]
    mexican = await call(client, "recipes_search", cuisine="mexican", honor_constraints=False)
    assert names(mexican) == ["Black Bean and Sweet Potato Tacos", "Chicken Fajitas"]
    limited = await call(client, "recipes_search", category="fish", limit=1, honor_constraints=False)
    assert limited["count"] == 1 and limited["truncated"] is True


async def test_allergens_are_excluded_with_the_reason(client: Client) -> None:
    """The demo user is allergic to peanuts: a satay (saved with explicit consent) is found only when constraints are off."""
    consent = {"allergens": ["peanuts"], "reason": "for a guest"}
    ref = await create_recipe(client, "Chicken Satay", "chicken thighs", "peanut butter", "soy sauce", consent=consent)
    honored = await call(client, "recipes_search", category="poultry")
    assert "Chicken Satay" not in names(honored)
    assert {"ref": ref, "name": "Chicken Satay", "reasons": ["contains peanut butter (peanuts: allergy)"]} in honored["excluded"]
    ignored = await call(client, "recipes_search", category="poultry", honor_constraints=False)
    assert "Chicken Satay" in names(ignored) and ignored["excluded"] == []


async def test_a_disliked_ingredient_does_not_exclude_its_oil(client: Client) -> None:
    """'olives' is disliked; the cod recipes cook with olive oil and stay in."""
    honored = await call(client, "recipes_search", category="fish")
    assert set(names(honored)) == DEMO_FISH and honored["constraints_applied"] is True


async def test_the_session_goal_narrows_the_search(client: Client) -> None:
    """After 'use cod' and 'keep it simple', fish search keeps the easy cod recipes only."""
    snapshot = {"new_constraints": [{"type": "ingredient_required", "field": "protein", "value": "cod"},
                                    {"type": "difficulty", "field": "style", "value": "simple"}]}
    await call(client, "understanding_submit", message="use cod, keep it simple", constraint_snapshot=snapshot)
    found = await call(client, "recipes_search", category="fish")
    assert set(names(found)) == {"Lemon Garlic Baked Cod", "Air-Fryer Lemon Garlic Cod"}
    assert [e["reasons"] for e in found["excluded"]] == [["has no cod (goal:protein)"]]


async def test_makeable_ranks_by_pantry_coverage(client: Client) -> None:
    """Recipes come back most-covered first, each with what is missing; the order is stable."""
    ref = await create_recipe(client, "Buttered Eggs", "eggs", "butter", "kosher salt")
    ranked = await call(client, "recipes_makeable", limit=20, honor_constraints=False)
    coverages = [recipe["coverage"] for recipe in ranked["recipes"]]
    assert coverages == sorted(coverages, reverse=True) and ranked["pantry_items"] == 48  # of 49: the milk is past its date
    eggs = next(recipe for recipe in ranked["recipes"] if recipe["ref"] == ref)
    assert (eggs["coverage"], eggs["have"], eggs["need"], eggs["missing"]) == (1.0, 3, 3, [])
    for recipe in ranked["recipes"]:
        assert recipe["have"] + len(recipe["missing"]) == recipe["need"]
    again = await call(client, "recipes_makeable", limit=20, honor_constraints=False)
    assert again["recipes"] == ranked["recipes"]
    strict = await call(client, "recipes_makeable", min_coverage=1.0, honor_constraints=False)
    assert strict["recipes"] and all(recipe["coverage"] == 1.0 for recipe in strict["recipes"])


async def test_search_results_are_recorded_in_the_turn_ledger(client: Client) -> None:
    found = await call(client, "recipes_search", category="fish", honor_constraints=False)
    narratives = await client.read_resource("alfred://session/current/narratives")
    text = narratives.contents[0].text
    assert "recipes_search recipes" in text and "(category fish)" in text
    assert found["recipes"][0]["ref"] in text


async def test_the_second_one_is_the_second_recipe_the_search_showed(client: Client) -> None:
    """Ordinals count in the order of the last list shown (a search sorts by name, not by ref)."""
    await call(client, "db_read", table="recipes", order_by=[{"field": "name", "direction": "desc"}], limit=50)  # refs in reverse
    found = (await call(client, "recipes_search", category="fish"))["recipes"]
    assert len(found) >= 2
    mentions = (await call(client, "entity_resolve", text="save the second one"))["mentions"]
    assert [m["ref"] for m in mentions if m["text"] == "the second"] == [found[1]["ref"]]
