"""The import benchmark judges a page's times on what the saved recipe reports (its stored total, else prep + cook),
and scores apart the pages whose total is not their prep + cook: a total the importer drops, or one it invents from
prep + cook, is counted wrong there."""

from __future__ import annotations

import json
from typing import Any

import pytest

from benchmarks.imports import score_page


def _page(**times: str) -> str:
    recipe = {"@context": "https://schema.org", "@type": "Recipe", "name": "Overnight Loaf", "recipeYield": "8",
              "recipeIngredient": ["500 g bread flour", "2 tsp salt"], "recipeInstructions": ["Mix.", "Rise.", "Bake."], **times}
    return f'<html><head><script type="application/ld+json">{json.dumps(recipe)}</script></head><body></body></html>'


EXPECTED: dict[str, Any] = {"title": "Overnight Loaf", "ingredients": ["500 g bread flour", "2 tsp salt"], "yields": "8 servings",
                            "prep_time": 20, "cook_time": 35, "total_time": 175}


@pytest.mark.parametrize(
    ("times", "right"),
    [pytest.param({"prepTime": "PT20M", "cookTime": "PT35M", "totalTime": "PT2H55M"}, True, id="total-kept"),
     pytest.param({"prepTime": "PT20M", "cookTime": "PT35M"}, False, id="total-missing-reads-prep-plus-cook"),
     pytest.param({"prepTime": "PT20M", "cookTime": "PT35M", "totalTime": "PT55M"}, False, id="page-total-differs")],
)
def test_a_total_beyond_prep_and_cook_is_right_only_when_the_recipe_reports_it(times: dict[str, str], right: bool) -> None:
    scored = score_page(_page(**times), EXPECTED)
    assert scored["drafted"] and scored["lines"] == scored["lines_right"] == 2 and scored["servings_right"]
    assert scored["prep_cook_right"] is True
    assert scored["total_time_right"] is right and scored["beyond_right"] is right


def test_a_page_whose_total_is_prep_plus_cook_is_not_scored_apart() -> None:
    scored = score_page(_page(prepTime="PT20M", cookTime="PT35M"), {**EXPECTED, "total_time": 55})
    assert scored["total_time_right"] is True and scored["beyond_right"] is None
