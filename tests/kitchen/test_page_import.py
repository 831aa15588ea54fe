"""Pages, pasted paragraphs and ingredient lines read as a cook reads them (issue 25's import classes)."""

from __future__ import annotations

import itertools

import pytest

from alfred_mcp.kitchen.ingredient_lines import parse_ingredient_line
from alfred_mcp.kitchen.recipe_sources import recipe_in_text, recipes_in_html
from alfred_mcp.kitchen.schema_org import draft_from_recipe
from alfred_mcp.kitchen.units import normalize_unit

LINES = [("300 g", 300.0, "g"), ("2 tbsp", 2.0, "tbsp"), ("1 1/2 cups", 1.5, "cup"), ("½ tsp", 0.5, "tsp"), ("4", 4.0, None)]
NAMES = ["chicken breast", "olive oil", "flour", "shallots"]


def microdata_page(lines: list[str]) -> str:
    items = "".join(f'<li itemprop="recipeIngredient">{line}</li>' for line in lines)
    return f"""<html><body><div itemscope itemtype="http://schema.org/Recipe">
      <h1 itemprop="name">Weeknight Chicken</h1><span itemprop="recipeYield">Serves 4</span>
      <meta itemprop="totalTime" content="PT35M"><meta itemprop="prepTime" content="PT10M">
      <ul>{items}</ul>
      <ol><li itemprop="recipeInstructions">Brown the chicken.</li><li itemprop="recipeInstructions">Simmer.</li></ol>
    </div></body></html>"""


@pytest.mark.parametrize("url", [None, "https://www.example-kitchen.test/recipes/weeknight-chicken/"])
def test_a_microdata_only_page_keeps_every_quantity_and_unit(url: str | None) -> None:
    lines = [f"{amount} {name}" for (amount, _, _), name in zip(LINES, itertools.cycle(NAMES))]
    (recipe,) = recipes_in_html(microdata_page(lines), url)
    item, _ = draft_from_recipe(recipe, source_url=url)
    assert item["name"] == "Weeknight Chicken" and item["servings"] == 4
    assert (item["prep_time_minutes"], item["total_time_minutes"]) == (10, 35) and "cook_time_minutes" not in item
    got = [(ingredient.get("quantity"), normalize_unit(ingredient.get("unit"))) for ingredient in item["ingredients"]]
    assert got == [(quantity, unit) for _, quantity, unit in LINES]


def test_a_page_whose_json_ld_lacks_the_ingredients_takes_them_from_its_microdata() -> None:
    page = microdata_page(["2 tbsp olive oil", "300 g chicken breast"]).replace(
        "<body>", '<head><script type="application/ld+json">{"@type": "Recipe", "name": "Weeknight Chicken", '
                  '"recipeYield": "4"}</script></head><body>')
    (recipe,) = recipes_in_html(page, "https://www.example-kitchen.test/r/1")
    item, _ = draft_from_recipe(recipe, source_url=None)
    assert [(i["quantity"], i["unit"], i["name"]) for i in item["ingredients"]] == [(2.0, "tbsp", "olive oil"), (300.0, "g", "chicken breast")]


def test_a_page_with_two_whole_json_ld_recipes_keeps_both() -> None:
    recipe = '{"@type": "Recipe", "name": "%s", "recipeIngredient": ["1 egg"], "recipeInstructions": ["Cook."]}'
    page = f'<html><script type="application/ld+json">[{recipe % "One"}, {recipe % "Two"}]</script></html>'
    assert [found["name"] for found in recipes_in_html(page, "https://site.test/x")] == ["One", "Two"]


PARAGRAPH_INGREDIENTS = ["1 can (15 oz) chickpeas, drained", "2 tbsp olive oil", "1 tsp smoked paprika", "8 small corn tortillas"]
PARAGRAPH_STEPS = ["Roast the chickpeas with the oil at 425°F for 20 minutes", "Warm the tortillas", "Fill and serve"]


@pytest.mark.parametrize(("ingredients_heading", "steps_heading", "separator"), list(itertools.product(
    ["", "Ingredients: "], ["Steps: ", "Method: ", "Instructions: ", "Directions: "], ["; ", ". "])))
def test_a_recipe_pasted_as_one_paragraph_is_read(ingredients_heading: str, steps_heading: str, separator: str) -> None:
    text = (f"Crispy Chickpea Tacos. Serves 4. {ingredients_heading}{separator.join(PARAGRAPH_INGREDIENTS)}. "
            f"{steps_heading}{'. '.join(PARAGRAPH_STEPS)}.")
    recipe = recipe_in_text(text)
    assert recipe is not None, text
    assert recipe["name"] == "Crispy Chickpea Tacos" and recipe["recipeYield"] == "4"
    assert recipe["recipeIngredient"] == PARAGRAPH_INGREDIENTS
    assert recipe["recipeInstructions"] == [f"{step}." for step in PARAGRAPH_STEPS]  # each step a sentence


SIZES = ["small", "medium", "large", "extra-large", "jumbo"]


@pytest.mark.parametrize(("size", "name"), list(itertools.product(SIZES, ["eggs", "shallots", "corn tortillas", "sweet onion"])))
def test_a_size_is_a_note_not_part_of_the_name(size: str, name: str) -> None:
    line = parse_ingredient_line(f"2 {size} {name}")
    assert (line.quantity, line.name, line.notes) == (2.0, name, size)


@pytest.mark.parametrize(("name", "note"), list(itertools.product(["chicken thighs", "cod fillets", "fresh basil"],
                                                             ["skin-on", "finely sliced", "about 5 oz"])))
def test_a_closing_parenthesis_is_a_note(name: str, note: str) -> None:
    line = parse_ingredient_line(f"4 {name} ({note})")
    assert (line.quantity, line.name, line.notes) == (4.0, name, note)


@pytest.mark.parametrize("unit", ["slice", "pinch", "clove", "can", "cup", "tbsp", "tsp", "sprig", "bunch", "head"])
@pytest.mark.parametrize("mark", ["(s)", "(es)"])
def test_a_unit_written_for_one_or_many_is_the_unit(unit: str, mark: str) -> None:
    line = parse_ingredient_line(f"2 {unit}{mark} Cooked bacon")
    assert (line.quantity, normalize_unit(line.unit), line.name) == (2.0, normalize_unit(unit), "Cooked bacon")


@pytest.mark.parametrize(("written", "value"), [("1,5", 1.5), ("0,5", 0.5), ("2,25", 2.25), ("1,500", 1500.0), ("12,000", 12000.0)])
def test_decimal_commas_and_thousands_separators_are_read(written: str, value: float) -> None:
    assert parse_ingredient_line(f"{written} g Mehl").quantity == value


def test_of_after_a_measure_is_not_part_of_the_name() -> None:
    line = parse_ingredient_line("a handful of fresh coriander")
    assert (line.quantity, line.unit, line.name) == (1.0, "handful", "fresh coriander")


def test_without_recipe_scrapers_a_page_is_read_from_its_json_ld(monkeypatch: pytest.MonkeyPatch) -> None:
    """On Python 3.10 recipe-scrapers is not installed: pages are read from their JSON-LD and microdata alone."""
    from alfred_mcp.kitchen import page_scrapers

    monkeypatch.setattr(page_scrapers, "available", lambda: False)
    recipe = '{"@type": "Recipe", "name": "Soup", "recipeIngredient": ["2 cups stock"], "recipeInstructions": ["Heat."]}'
    page = f'<html><script type="application/ld+json">{recipe}</script></html>'
    (found,) = recipes_in_html(page, "https://www.seriouseats.com/soup")
    assert found["recipeIngredient"] == ["2 cups stock"]
    assert page_scrapers.scraped_recipe(page, "https://www.seriouseats.com/soup") is None
    assert not page_scrapers.has_site_scraper("https://www.seriouseats.com/soup")
