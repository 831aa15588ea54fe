"""Recipes found in pages, JSON-LD, plain text and Paprika archives, mapped to drafts."""

from __future__ import annotations

import gzip

import pytest
from recipe_site import LIST_JSONLD, MICRODATA_PAGE, PAPRIKA_RECIPE, PLAIN_TEXT, YOAST_PAGE, paprika_archive

from alfred_mcp.errors import ImportSourceError
from alfred_mcp.kitchen.recipe_sources import recipe_in_text, recipes_in_html, recipes_in_json, recipes_in_paprika
from alfred_mcp.kitchen.schema_org import draft_from_recipe, find_recipes


@pytest.mark.parametrize(("document", "names"), [
    ({"@type": "Recipe", "name": "A"}, ["A"]),
    ([{"@type": "WebSite"}, {"@type": ["Recipe", "NewsArticle"], "name": "B"}], ["B"]),
    ({"@graph": [{"@type": "WebPage", "mainEntity": {"@type": "schema:Recipe", "name": "C"}}]}, ["C"]),
    ({"@type": "ItemList", "itemListElement": [{"@type": "ListItem", "item": {"@type": "http://schema.org/Recipe", "name": "D"}}]}, ["D"]),
    ({"@type": "Article", "name": "not a recipe"}, []),
])
def test_recipes_are_found_wherever_json_ld_puts_them(document: object, names: list[str]) -> None:
    assert [r["name"] for r in find_recipes(document)] == names


def test_pages_text_and_json_all_become_drafts() -> None:
    found = [recipes_in_html(YOAST_PAGE)[0], recipes_in_json(LIST_JSONLD)[0], recipes_in_html(MICRODATA_PAGE)[0], recipe_in_text(PLAIN_TEXT)]
    drafts = [draft_from_recipe(recipe, source_url=None)[0] for recipe in found if recipe]
    assert [d["name"] for d in drafts] == ["Lemon Garlic Cod & Herbs", "Tomato Soup", "Lentil Soup", "Weeknight Pancakes"]
    assert [d["servings"] for d in drafts] == [4, 2, 6, 4]
    assert drafts[1]["cook_time_minutes"] == 30 and drafts[1]["instructions"][1] == "Add tomatoes and stock; simmer 20 minutes."
    assert drafts[2]["ingredients"][1] == {"name": "water", "quantity": 1.5, "unit": "l"}


def test_text_without_headings_uses_amount_lines_and_numbered_steps() -> None:
    recipe = recipe_in_text("Toast\n2 slices bread\n1 tbsp butter\n1. Toast the bread.\n2. Butter it.")
    assert recipe is not None and recipe["recipeIngredient"] == ["2 slices bread", "1 tbsp butter"]
    assert recipe["recipeInstructions"] == ["Toast the bread.", "Butter it."]
    assert recipe_in_text("I had pasta yesterday.\nIt was nice.") is None


def test_a_paprika_archive_reads_every_recipe() -> None:
    recipes = recipes_in_paprika(paprika_archive(PAPRIKA_RECIPE, {**PAPRIKA_RECIPE, "name": "Second"})).recipes
    draft, warnings = draft_from_recipe(recipes[0], source_url=None)
    assert len(recipes) == 2 and warnings == []
    assert (draft["servings"], draft["prep_time_minutes"], draft["cook_time_minutes"]) == (6, 15, 60)
    assert draft["ingredients"][1] == {"name": "kidney beans", "quantity": 2.0, "unit": "can"}
    assert draft["instructions"] == ["Brown the beef.", "Add everything; simmer."] and draft["tags"] == ["Dinner", "Spicy"]
    assert draft["source_url"] == "https://x.test/chili"


@pytest.mark.parametrize(("data", "words"), [
    (b"not a zip", "not a Paprika export"),
    (paprika_archive(raw=b"\x1f\x8b garbage"), "'broken.paprikarecipe' is not a Paprika recipe"),
    (paprika_archive(raw=gzip.compress(b"\x00" * 3_000_000)), "'broken.paprikarecipe' is not a Paprika recipe"),
])
def test_a_broken_or_oversized_archive_is_refused_naming_the_entry(data: bytes, words: str) -> None:
    with pytest.raises(ImportSourceError) as raised:
        recipes_in_paprika(data)
    assert words in raised.value.message and raised.value.fields["field"] == "source"


@pytest.mark.parametrize(("recipe", "words"), [
    ({"@type": "Recipe", "recipeIngredient": ["x"], "recipeInstructions": "y"}, "has no name"),
    ({"@type": "Recipe", "name": "N", "recipeInstructions": "y"}, "lists no recipeIngredient"),
    ({"@type": "Recipe", "name": "N", "recipeIngredient": ["x"]}, "has no recipeInstructions"),
])
def test_a_recipe_missing_what_a_draft_needs_is_refused(recipe: dict[str, object], words: str) -> None:
    with pytest.raises(ImportSourceError) as raised:
        draft_from_recipe(recipe, source_url=None)
    assert words in raised.value.message


def test_what_cannot_carry_over_is_warned_about_not_dropped_silently() -> None:
    draft, warnings = draft_from_recipe({"@type": "Recipe", "name": "N", "recipeIngredient": ["x"], "recipeInstructions": "y",
                                          "recipeYield": "a big pot", "prepTime": "P1M", "totalTime": "PT40M"}, source_url=None)
    assert "servings" not in draft and "prep_time_minutes" not in draft and draft["total_time_minutes"] == 40
    assert "cook_time_minutes" not in draft, "a total is not spread into a cook time the page did not give"
    assert [w.split(":")[0] for w in warnings] == ["recipeYield", "prepTime"]


INGREDIENT_LOOKING = [
    ("juice of 1 lime", ("lime", 1.0, None, "juiced")),
    ("zest and juice of 2 lemons", ("lemons", 2.0, None, "zest and juice")),
    ("pinch of salt", ("salt", None, "pinch", None)),
    ("a pinch of salt", ("salt", 1.0, "pinch", None)),
    ("a handful of fresh cilantro", ("fresh cilantro", 1.0, "handful", None)),
    ("dash of hot sauce", ("hot sauce", None, "dash", None)),
    ("salt and pepper, to taste", ("salt and pepper", None, None, "to taste")),
    ("fresh parsley, for serving", ("fresh parsley", None, None, "for serving")),
]
LAYOUTS = {
    "paragraph": "Quux Tacos. Serves 4. 1 can chickpeas, drained; {line}; 2 tbsp olive oil. Steps: Warm the tortillas. Fill them.",
    "titled list": "Quux Tacos\n1 can chickpeas, drained\n{line}\n2 tbsp olive oil\n1. Warm the tortillas.\n2. Fill them.",
    "steps heading only": "Quux Tacos\nServes 4\n1 can chickpeas\n{line}\n2 tbsp olive oil\nMethod\nWarm the tortillas.\nFill them.",
    "last before the steps": "Quux Tacos\n1 can chickpeas, drained\n2 tbsp olive oil\n{line}\n1. Warm the tortillas.\n2. Fill them.",
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize(("line", "parts"), INGREDIENT_LOOKING, ids=[line for line, _ in INGREDIENT_LOOKING])
def test_every_ingredient_looking_line_of_pasted_text_is_an_ingredient(
    layout: str, line: str, parts: tuple[str, float | None, str | None, str | None],
) -> None:
    """'juice of 1 lime', 'pinch of salt', '... to taste': an ingredient wherever it stands, never the description."""
    recipe = recipe_in_text(LAYOUTS[layout].format(line=line))
    assert recipe is not None and "description" not in recipe
    draft, warnings = draft_from_recipe(recipe, source_url=None)
    assert len(draft["ingredients"]) == 3 and warnings == []
    read = draft["ingredients"][1 if layout != "last before the steps" else 2]
    assert (read["name"], read.get("quantity"), read.get("unit"), read.get("notes")) == parts


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_a_line_among_the_ingredients_that_does_not_read_as_one_is_warned_about(layout: str) -> None:
    """Kept (in the description), and the draft's warnings name it: never dropped silently."""
    recipe = recipe_in_text(LAYOUTS[layout].format(line="freshly chopped dill"))
    assert recipe is not None
    draft, warnings = draft_from_recipe(recipe, source_url=None)
    assert draft["description"] == "freshly chopped dill" and len(draft["ingredients"]) == 2
    assert [w for w in warnings if "'freshly chopped dill'" in w and "not as an ingredient" in w]


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize(("line", "parts"), INGREDIENT_LOOKING[:3], ids=[line for line, _ in INGREDIENT_LOOKING[:3]])
def test_every_pasted_step_keeps_its_full_stop(layout: str, line: str, parts: object) -> None:
    """'Warm the tortillas.' stays a sentence whatever the layout (a paragraph's steps too), and 'Fill them.' too."""
    recipe = recipe_in_text(LAYOUTS[layout].format(line=line))
    assert recipe is not None
    draft, _ = draft_from_recipe(recipe, source_url=None)
    steps = draft["instructions"]
    assert steps and all(step.endswith(".") for step in steps), steps
