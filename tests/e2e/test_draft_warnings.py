"""A draft that holds the user's allergen, a guest's allergen, a disliked or an excluded ingredient says so the
moment it is drafted, through every tool that drafts (draft_create, draft_revise, recipes_import), naming the
draft, the line and the rule; Act's notice of the result carries the same warnings. A line made from the thing
('olive oil' for the disliked olives) is not warned about, and a clean draft carries no warnings. A direct write
(db_create, db_update) of a disliked or excluded ingredient is warned about the same way."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.agent.act_tools import result_card

from .helpers import call

pytestmark = pytest.mark.anyio

GUESTS = {"occasion_update": "Saturday dinner", "goal_update": "a menu for Saturday", "goal_subdomain": "recipes",
          "new_constraints": [{"type": "allergy", "field": "guests", "value": ["sesame"], "lifetime": "occasion"}]}
NO_CILANTRO = {"goal_update": "dinners this week", "goal_subdomain": "recipes",
               "new_constraints": [{"type": "ingredient_excluded", "field": "herbs", "value": "cilantro"}]}


async def _nothing(client: Client) -> None:
    return None


async def _guests(client: Client) -> None:
    await call(client, "understanding_submit", message="six guests on Saturday, one is allergic to sesame", constraint_snapshot=GUESTS)


async def _goal(client: Client) -> None:
    await call(client, "understanding_submit", message="no cilantro this week", constraint_snapshot=NO_CILANTRO)


RULES: list[tuple[str, Callable[[Client], Awaitable[None]], str, tuple[str, ...]]] = [
    ("user-allergy", _nothing, "peanut oil", ("contains peanuts", "the user is allergic to peanuts", "draft_save will refuse")),
    ("guest-allergy", _guests, "toasted sesame oil", ("contains sesame", "the guests (Saturday dinner) are allergic to sesame")),
    ("dislike", _nothing, "kalamata olives", ("is olives: the user dislikes it",)),
    ("goal-exclusion", _goal, "fresh cilantro", ("is cilantro: the goal excludes it (herbs)",)),
]
"""Each rule a draft line can meet (the demo user is allergic to peanuts and dislikes olives), how it comes to hold,
the line that meets it, and what its warning says."""


def recipe(*lines: str) -> dict[str, Any]:
    return {"name": "Weeknight Bowl", "servings": 2, "instructions": ["Cook.", "Serve."],
            "ingredients": [{"name": name, "quantity": 1, "unit": "cup"} for name in ("rice", "olive oil", *lines)]}


async def draft_by_create(client: Client, *lines: str) -> tuple[str, dict[str, Any]]:
    result = await call(client, "draft_create", entity_type="recipe", items=[recipe(*lines)])
    return "draft_create", result


async def draft_by_revise(client: Client, *lines: str) -> tuple[str, dict[str, Any]]:
    ref = (await call(client, "draft_create", entity_type="recipe", items=[recipe()]))["drafts"][0]["ref"]
    return "draft_revise", await call(client, "draft_revise", ref=ref, content=recipe(*lines))


async def draft_by_import(client: Client, *lines: str) -> tuple[str, dict[str, Any]]:
    page = {"@context": "https://schema.org", "@type": "Recipe", "name": "Weeknight Bowl", "recipeYield": "2",
            "recipeIngredient": [f"1 cup {name}" for name in ("rice", "olive oil", *lines)],
            "recipeInstructions": [{"@type": "HowToStep", "text": "Cook."}, {"@type": "HowToStep", "text": "Serve."}]}
    return "recipes_import", await call(client, "recipes_import", source=json.dumps(page))


DRAFTING_BY_TOOL = {"draft_create": draft_by_create, "draft_revise": draft_by_revise, "recipes_import": draft_by_import}
DRAFTING = list(DRAFTING_BY_TOOL.values())


def _drafts(result: dict[str, Any]) -> list[dict[str, Any]]:
    return result["drafts"] if "drafts" in result else [result["draft"]]


@pytest.mark.parametrize("drafting", DRAFTING, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("rule", "setup", "line", "says"), RULES, ids=[rule[0] for rule in RULES])
async def test_a_draft_line_that_meets_a_rule_is_warned_about_at_once(
    client: Client, drafting: Callable[..., Awaitable[tuple[str, dict[str, Any]]]], rule: str,
    setup: Callable[[Client], Awaitable[None]], line: str, says: tuple[str, ...],
) -> None:
    await setup(client)
    tool, result = await drafting(client, line)
    (draft,) = _drafts(result)
    ours = [w for w in result.get("warnings", []) if draft["ref"] in w]
    assert len(ours) == 1, result.get("warnings")
    assert f"{draft['ref']} (Weeknight Bowl): ingredient '{line}'" in ours[0] and all(words in ours[0] for words in says), ours[0]
    assert not any("olive oil" in w or "'rice'" in w for w in result.get("warnings", []))
    card = result_card(tool, {}, result)
    assert "tell the user" in card and ours[0] in card


@pytest.mark.parametrize("drafting", DRAFTING, ids=lambda f: f.__name__)
async def test_a_clean_draft_carries_no_warning_of_its_own(
    client: Client, drafting: Callable[..., Awaitable[tuple[str, dict[str, Any]]]],
) -> None:
    for _, setup, _, _ in RULES:
        await setup(client)
    tool, result = await drafting(client, "green beans")
    (draft,) = _drafts(result)
    assert not [w for w in result.get("warnings", []) if draft["ref"] in w]
    if tool != "recipes_import":  # the import's own reading notes stay
        assert "warnings" not in result and "Warnings" not in result_card(tool, {}, result)


async def test_an_exclusion_about_one_draft_warns_on_that_draft_only(client: Client) -> None:
    """'Make that one dairy-free' (a constraint about gen_recipe_1): a revision that adds cream is warned about,
    the same line in another draft is not."""
    first, second = (d["ref"] for d in (await call(client, "draft_create", entity_type="recipe", items=[recipe(), recipe()]))["drafts"])
    await call(client, "understanding_submit", message="make the first one dairy-free", constraint_snapshot={
        "new_constraints": [{"type": "ingredient_excluded", "field": "diet", "value": "dairy", "about": first}]})
    revised = await call(client, "draft_revise", ref=first, content=recipe("heavy cream"))
    assert revised["warnings"] == [f"{first} (Weeknight Bowl): ingredient 'heavy cream' is dairy: the user excluded it from this draft"]
    assert "warnings" not in await call(client, "draft_revise", ref=second, content=recipe("heavy cream"))


async def test_a_meal_draft_of_a_saved_recipe_with_an_allergen_is_warned_about(client: Client) -> None:
    consent = {"allergens": ["peanuts"], "reason": "for a guest"}
    await call(client, "draft_create", entity_type="recipe", items=[recipe("peanut butter")])
    saved = (await call(client, "draft_save", refs=["gen_recipe_1"], allergy_override=consent))["items"][0]["saved_as"]
    meal = await call(client, "draft_create", entity_type="meal", items=[{"date": "2026-02-01", "meal_type": "dinner", "recipe": saved}])
    (warning,) = meal["warnings"]
    assert "gen_meal_1" in warning and "'peanut butter' contains peanuts" in warning and "draft_save will refuse" in warning


def test_every_tool_that_drafts_content_is_covered_here() -> None:
    """Every tool a generate step calls that holds new draft content (draft_discard only drops drafts) warns, and is tested above."""
    from alfred_mcp.contracts import load_contracts

    drafting = {name for name, contract in load_contracts().items()
                if (contract.meta or {}).get("alfred/step") == "generate" and name != "draft_discard"}
    assert drafting == set(DRAFTING_BY_TOOL)


@pytest.mark.parametrize(("rule", "setup", "line", "says"), RULES, ids=[rule[0] for rule in RULES])
async def test_a_shopping_draft_that_meets_a_rule_is_warned_about(
    client: Client, rule: str, setup: Callable[[Client], Awaitable[None]], line: str, says: tuple[str, ...],
) -> None:
    await setup(client)
    result = await call(client, "draft_create", entity_type="shop", items=[{"name": line}, {"name": "olive oil"}])
    first, second = (d["ref"] for d in result["drafts"])
    (warning,) = result["warnings"]
    assert warning.startswith(f"{first} (") and f"item '{line}'" in warning and all(words in warning for words in says), warning
    assert second not in warning


WRITES = [
    pytest.param("shopping_list", lambda line, recipe: {"name": line}, id="shopping-item"),
    pytest.param("recipe_ingredients", lambda line, recipe: {"recipe_id": recipe, "position": 9, "name": line}, id="recipe-ingredient"),
    pytest.param("recipes", lambda line, recipe: {"name": line.title()}, id="recipe-name"),
]
"""Every table a write can put an ingredient's name in, and the row that does."""
AVOIDED = [rule for rule in RULES if "allergy" not in rule[0]]
"""The rules a write is warned about (an allergen is refused before the write runs)."""


@pytest.mark.parametrize(("table", "row"), WRITES)
@pytest.mark.parametrize(("rule", "setup", "line", "says"), AVOIDED, ids=[rule[0] for rule in AVOIDED])
async def test_a_write_of_a_disliked_or_excluded_ingredient_is_warned_about(
    client: Client, table: str, row: Callable[[str, str], dict[str, Any]], rule: str,
    setup: Callable[[Client], Awaitable[None]], line: str, says: tuple[str, ...],
) -> None:
    """A direct write has its allergens refused before it runs; a disliked or excluded line is written and said:
    db_create and db_update answer with the line and the rule, and Act's notice lists them."""
    await setup(client)
    recipe = (await call(client, "db_read", table="recipes", limit=1))["rows"][0]["id"]
    created = await call(client, "db_create", table=table, data=row(line, recipe))
    (warning,) = created["warnings"]
    written = line.title() if table == "recipes" else line
    assert f"data.name ({'shopping item' if table == 'shopping_list' else 'recipe' if table == 'recipes' else 'ingredient'}) '{written}'" in warning
    assert all(words in warning for words in says) and warning in result_card("db_create", {}, created)
    ref = created["rows"][0]["id"]
    renamed = await call(client, "db_update", table=table, filters=[{"field": "id", "op": "eq", "value": ref}], data={"name": "green beans"})
    assert "warnings" not in renamed
    back = await call(client, "db_update", table=table, filters=[{"field": "id", "op": "eq", "value": ref}], data={"name": written})
    assert back["warnings"] == [warning]


async def test_planning_a_recipe_with_a_disliked_line_is_warned_about(client: Client) -> None:
    (recipe,) = (await call(client, "db_read", table="recipes", filters=[{"field": "name", "op": "eq", "value": "Greek Lemon Chicken and Potatoes"}]))["rows"]
    planned = await call(client, "db_create", table="meal_plans", data={"date": "2026-02-01", "meal_type": "dinner", "recipe_id": recipe["id"]})
    (warning,) = planned["warnings"]
    assert recipe["id"] in warning and "'kalamata olives' is olives: the user dislikes it" in warning and "olive oil" not in warning


async def test_an_ingredient_excluded_from_its_recipe_is_warned_about_when_written(client: Client) -> None:
    """'Make the fajitas dairy-free' (about that recipe): adding sour cream to it is warned about, to another recipe not."""
    fajitas, other = [(await call(client, "db_read", table="recipes", filters=[{"field": "name", "op": "eq", "value": name}]))["rows"][0]["id"]
                      for name in ("Chicken Fajitas", "Mushroom Risotto")]
    await call(client, "understanding_submit", message="make the fajitas dairy-free", constraint_snapshot={
        "new_constraints": [{"type": "ingredient_excluded", "field": "diet", "value": "dairy", "about": fajitas}]})
    added = await call(client, "db_create", table="recipe_ingredients", data={"recipe_id": fajitas, "position": 20, "name": "sour cream"})
    assert added["warnings"] == [f"data.name (ingredient) 'sour cream' is dairy: the user excluded it from {fajitas}"]
    elsewhere = await call(client, "db_create", table="recipe_ingredients", data={"recipe_id": other, "position": 20, "name": "sour cream"})
    assert "warnings" not in elsewhere


async def test_an_ingredient_excluded_from_a_draft_is_warned_about_in_the_recipe_it_was_saved_as(client: Client) -> None:
    """'Make it dairy-free' about a draft (gen_recipe_1): once saved, sour cream added to the saved recipe, or a line
    of it renamed to cheddar, is warned about as the user's exclusion from that recipe; the same writes to another
    recipe are not."""
    drafted = await call(client, "draft_create", entity_type="recipe", items=[recipe("corn tortillas")])
    draft = drafted["drafts"][0]["ref"]
    await call(client, "understanding_submit", message="make it dairy-free", constraint_snapshot={
        "new_constraints": [{"type": "ingredient_excluded", "field": "diet", "value": "dairy", "about": draft}]})
    saved = (await call(client, "draft_save", refs=[draft]))["items"][0]["saved_as"]
    other = (await call(client, "db_read", table="recipes", filters=[{"field": "name", "op": "eq", "value": "Mushroom Risotto"}]))["rows"][0]["id"]
    for ref, warned in ((saved, True), (other, False)):
        added = await call(client, "db_create", table="recipe_ingredients", data={"recipe_id": ref, "position": 20, "name": "sour cream"})
        line = added["rows"][0]["id"]
        renamed = await call(client, "db_update", table="recipe_ingredients", filters=[{"field": "id", "op": "eq", "value": line}],
                             data={"name": "cheddar"})
        assert added.get("warnings", []) == ([f"data.name (ingredient) 'sour cream' is dairy: the user excluded it from {saved}"] if warned else [])
        assert renamed.get("warnings", []) == ([f"data.name (ingredient) 'cheddar' is dairy: the user excluded it from {saved}"] if warned else [])


async def test_an_ingredient_excluded_from_a_recipe_is_warned_about_in_a_version_drafted_from_it_and_once_saved(client: Client) -> None:
    """'Make the fajitas dairy-free' (about that recipe) made as a new version of them: sour cream in the version's
    draft, and added to the recipe the version was saved as, is warned about as excluded from the fajitas; a recipe
    that is no version of them is not."""
    fajitas = (await call(client, "db_read", table="recipes", filters=[{"field": "name", "op": "eq", "value": "Chicken Fajitas"}]))["rows"][0]["id"]
    await call(client, "understanding_submit", message="make the fajitas dairy-free", constraint_snapshot={
        "new_constraints": [{"type": "ingredient_excluded", "field": "diet", "value": "dairy", "about": fajitas}]})
    said = f"is dairy: the user excluded it from {fajitas}"
    version = {**recipe("sour cream"), "name": "Dairy-Free Fajitas", "parent_recipe": fajitas}
    drafted = await call(client, "draft_create", entity_type="recipe", items=[version, recipe("sour cream")])
    versioned, other = (draft["ref"] for draft in drafted["drafts"])
    assert [w for w in drafted["warnings"] if said in w] == [
        f"{versioned} (Dairy-Free Fajitas): ingredient 'sour cream' {said}, which this draft is a version of"]
    saved = {item["ref"]: item["saved_as"] for item in (await call(client, "draft_save", refs=[versioned, other]))["items"]}
    for ref, warned in ((saved[versioned], True), (saved[other], False)):
        added = await call(client, "db_create", table="recipe_ingredients", data={"recipe_id": ref, "position": 20, "name": "cheddar"})
        assert added.get("warnings", []) == ([f"data.name (ingredient) 'cheddar' {said}, which {ref} is a version of"] if warned else [])
