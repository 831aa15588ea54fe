"""A page whose schema.org data leaves out the ingredients or steps is read from the lists a cook sees on it
(issue 25, cook QA G14: 61 real pages of the held-out corpus had this shape)."""

from __future__ import annotations

import itertools

import pytest

from alfred_mcp.kitchen.recipe_sources import recipes_in_html
from alfred_mcp.kitchen.schema_org import draft_from_recipe

INGREDIENTS = ["800 g ripe tomatoes", "1 onion, chopped", "2 tbsp olive oil", "500 ml vegetable stock"]
STEPS = ["Soften the onion in the oil.", "Add the tomatoes and stock and simmer 20 minutes.", "Blend until smooth."]


def _list(tag: str, items: list[str], attributes: str = "") -> str:
    return f"<{tag}{attributes}>" + "".join(f"<li>{item}</li>" for item in items) + f"</{tag}>"


INGREDIENT_MARKUPS = {
    "heading-then-list": lambda: f"<h2>Ingredients</h2>{_list('ul', INGREDIENTS)}",
    "heading-with-colon": lambda: f"<h3>Ingredients:</h3><p>For 2 bowls</p>{_list('ul', INGREDIENTS)}",
    "wrapped-heading": lambda: f'<div class="head"><h2>What you\'ll need</h2></div>{_list("ul", INGREDIENTS)}',
    "strong-heading": lambda: f"<p><strong>Ingredients</strong></p>{_list('ul', INGREDIENTS)}",
    "class-marked": lambda: "<div>" + _list("ul", INGREDIENTS, ' class="wprm-recipe-ingredients"') + "</div>",
    "wiki-wrapped-heading": lambda: ('<div class="mw-heading"><h2 id="Ingredients">Ingredients</h2><span class="edit">[edit]</span>'
                                     f"</div>{_list('ul', INGREDIENTS)}"),
    "items-marked": lambda: "<ul>" + "".join(f'<li class="ingredient">{item}</li>' for item in INGREDIENTS) + "</ul>",
}
STEP_MARKUPS = {
    "heading-then-ordered-list": lambda: f"<h2>Method</h2>{_list('ol', STEPS)}",
    "directions-paragraphs": lambda: "<h2>Directions</h2>" + "".join(f"<p>{step}</p>" for step in STEPS) + "<h2>Notes</h2><p>Keeps 3 days.</p>",
    "instructions-class": lambda: _list("ol", STEPS, ' class="recipe-instructions"'),
    "wiki-procedure": lambda: ('<div class="mw-heading"><h2>Procedure</h2><span class="edit">[edit]</span></div>'
                               f"{_list('ol', STEPS)}"),
    "steps-heading": lambda: f"<h4>Steps</h4>{_list('ol', STEPS)}",
}
JSON_LD = ('<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Recipe", "name": "Tomato Soup", '
           '"recipeYield": "2", "totalTime": "PT30M"%s}</script>')


@pytest.mark.parametrize(("ingredients", "steps"), list(itertools.product(INGREDIENT_MARKUPS, STEP_MARKUPS)))
@pytest.mark.parametrize("url", [None, "https://www.small-food-blog.test/tomato-soup/"])
def test_ingredients_and_steps_missing_from_the_json_ld_are_read_from_the_page(ingredients: str, steps: str, url: str | None) -> None:
    page = (f"<html><head>{JSON_LD % ''}</head><body><h1>Tomato Soup</h1><p>A soup for cold days.</p>"
            f"{INGREDIENT_MARKUPS[ingredients]()}{STEP_MARKUPS[steps]()}<footer><ul><li>About</li></ul></footer></body></html>")
    (recipe,) = recipes_in_html(page, url)
    item, _ = draft_from_recipe(recipe, source_url=url)
    assert (item["name"], item["servings"], item["total_time_minutes"]) == ("Tomato Soup", 2, 30)
    assert [(i["quantity"], i.get("unit"), i["name"]) for i in item["ingredients"]] == [
        (800.0, "g", "ripe tomatoes"), (1.0, None, "onion"), (2.0, "tbsp", "olive oil"), (500.0, "ml", "vegetable stock")]
    assert item["instructions"] == STEPS


@pytest.mark.parametrize("steps", STEP_MARKUPS)
def test_steps_missing_from_the_json_ld_are_read_while_its_ingredients_are_kept(steps: str) -> None:
    ld = JSON_LD % ', "recipeIngredient": ["1 kg tomatoes", "1 onion"]'
    page = f"<html><head>{ld}</head><body><h1>Tomato Soup</h1>{INGREDIENT_MARKUPS['heading-then-list']()}{STEP_MARKUPS[steps]()}</body></html>"
    (recipe,) = recipes_in_html(page, None)
    assert recipe["recipeIngredient"] == ["1 kg tomatoes", "1 onion"] and recipe["recipeInstructions"] == STEPS


@pytest.mark.parametrize(("ingredients", "steps"), list(itertools.product(INGREDIENT_MARKUPS, STEP_MARKUPS)))
def test_a_page_without_schema_org_is_read_from_its_title_and_lists(ingredients: str, steps: str) -> None:
    page = (f"<html><head><title>Tomato Soup | A Small Blog</title></head><body><h1>Tomato Soup</h1>"
            f"{INGREDIENT_MARKUPS[ingredients]()}{STEP_MARKUPS[steps]()}</body></html>")
    (recipe,) = recipes_in_html(page, None)
    assert (recipe["name"], recipe["recipeIngredient"], recipe["recipeInstructions"]) == ("Tomato Soup", INGREDIENTS, STEPS)


@pytest.mark.parametrize("page", [
    "<html><body><h1>About us</h1><ul><li>Home</li><li>Contact</li></ul></body></html>",
    f"<html><body><h1>Shop</h1>{INGREDIENT_MARKUPS['heading-then-list']()}</body></html>",
    f"<html><body><h1>Blog</h1>{STEP_MARKUPS['heading-then-ordered-list']()}</body></html>",
], ids=["no-lists", "ingredients-only", "steps-only"])
def test_a_page_without_both_lists_is_still_not_a_recipe(page: str) -> None:
    assert recipes_in_html(page, None) == []
