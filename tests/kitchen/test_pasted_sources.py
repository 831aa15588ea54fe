"""Pasted pages: what the person gave is all the draft claims (issue 25, cook QA G15)."""

from __future__ import annotations

import pytest

from alfred_mcp.kitchen.recipe_sources import recipes_in_html
from alfred_mcp.kitchen.schema_org import draft_from_recipe

MICRODATA = """<div itemscope itemtype="http://schema.org/Recipe"><h1 itemprop="name">Chicken Rice</h1>
<span itemprop="recipeYield">4</span><ul><li itemprop="recipeIngredient">300 g chicken breast</li></ul>
<div itemprop="recipeInstructions">Cook the rice. Fry the chicken.</div></div>"""
JSON_LD_WITHOUT_URL = ('<html><script type="application/ld+json">{"@type": "Recipe", "name": "Soup", '
                       '"recipeIngredient": ["2 cups stock"], "recipeInstructions": ["Heat."]}</script></html>')
HTML_LISTS = ('<html><script type="application/ld+json">{"@type": "Recipe", "name": "Soup"}</script>'
              "<h2>Ingredients</h2><ul><li>2 cups stock</li></ul><h2>Method</h2><ol><li>Heat.</li></ol></html>")


@pytest.mark.parametrize("page", [MICRODATA, f"<html><body>{MICRODATA}</body></html>", JSON_LD_WITHOUT_URL, HTML_LISTS],
                         ids=["microdata", "microdata-in-body", "json-ld", "json-ld-without-lists"])
def test_a_pasted_page_without_an_address_has_no_source(page: str) -> None:
    (recipe,) = recipes_in_html(page, None)
    item, _ = draft_from_recipe(recipe, source_url=None)
    assert "source_url" not in item and "url" not in recipe


@pytest.mark.parametrize("address", ["https://www.example-kitchen.test/chicken-rice", "https://cook.test/r/7/"])
def test_a_pasted_page_keeps_the_address_it_names_itself(address: str) -> None:
    page = f'<html><head><link rel="canonical" href="{address}"></head><body>{MICRODATA}</body></html>'
    (recipe,) = recipes_in_html(page, None)
    item, _ = draft_from_recipe(recipe, source_url=None)
    assert item["source_url"] == address
