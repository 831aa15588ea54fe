"""recipes_import through the real client on the cook QA's refused inputs (issue 25: G1, G13, G14, G15): each drafts, and a
pasted page claims no source address."""

from __future__ import annotations

import pytest
from mcp import Client

from .helpers import call

pytestmark = pytest.mark.anyio

UNHEADED = ("Lemon Garlic Shrimp Pasta\nserves 2\n8 oz linguine\n12 oz large shrimp, peeled and deveined\n3 cloves garlic, thinly "
            "sliced\n2 tbsp butter\n1 lemon, zested and juiced\n1/4 tsp red pepper flakes\n2 shallots, finely chopped\n1-2 tbsp "
            "chopped parsley\nsalt and pepper to taste\n\nCook the linguine in salted water until al dente.\nMelt the butter and "
            "soften the shallots and garlic, then add the shrimp and cook 3 minutes.\nToss in the pasta, lemon and parsley, and season.")
PROSE = ("Grandma's Banana Bread (makes 1 loaf, about 10 slices). You need 3 ripe bananas, mashed, 1/3 cup melted butter, 3/4 cup "
         "sugar, 1 egg, beaten, 1 tsp vanilla, 1 tsp baking soda, a pinch of salt and 1 1/2 cups all-purpose flour. Heat the oven to "
         "350F. Mix the butter into the bananas, then stir in the sugar, egg and vanilla. Sprinkle over the soda and salt, then mix in "
         "the flour. Bake in a buttered loaf pan for 60 minutes.")
LISTS_ONLY = ('<html><head><script type="application/ld+json">{"@type":"Recipe","name":"Tomato Soup","recipeYield":"2",'
              '"totalTime":"PT30M"}</script></head><body><h1>Tomato Soup</h1><h2>Ingredients</h2><ul class="ingredients">'
              "<li>800 g ripe tomatoes</li><li>1 onion, chopped</li><li>2 tbsp olive oil</li></ul><h2>Method</h2><ol>"
              "<li>Soften the onion in the oil.</li><li>Add the tomatoes and simmer 20 minutes.</li><li>Blend.</li></ol></body></html>")
MICRODATA = ('<div itemscope itemtype="http://schema.org/Recipe"><h1 itemprop="name">Chicken Rice</h1><span itemprop="recipeYield">4'
             '</span><ul><li itemprop="recipeIngredient">300 g chicken breast</li><li itemprop="recipeIngredient">200 g basmati rice'
             '</li></ul><div itemprop="recipeInstructions">Cook the rice. Fry the chicken.</div></div>')


@pytest.mark.parametrize(("source", "kind", "name", "ingredients", "steps", "first"), [
    (UNHEADED, "text", "Lemon Garlic Shrimp Pasta", 9, 3, ("linguine", 8, "oz")),
    (PROSE, "text", "Grandma's Banana Bread", 8, 4, ("bananas", 3, None)),
    (LISTS_ONLY, "html", "Tomato Soup", 3, 3, ("ripe tomatoes", 800, "g")),
    (MICRODATA, "html", "Chicken Rice", 2, 1, ("chicken breast", 300, "g")),
], ids=["unheaded-plain-steps", "prose-paragraph", "json-ld-without-lists", "pasted-microdata"])
async def test_what_a_cook_reads_as_a_recipe_drafts_with_no_made_up_source(
    client: Client, source: str, kind: str, name: str, ingredients: int, steps: int, first: tuple[str, float, str | None],
) -> None:
    result = await call(client, "recipes_import", source=source)
    assert result["count"] == 1 and result["source"] == {"kind": kind}
    content = result["drafts"][0]["content"]
    assert (content["name"], len(content["ingredients"]), len(content["instructions"])) == (name, ingredients, steps)
    line = content["ingredients"][0]
    assert (line["name"], line["quantity"], line.get("unit")) == first
    assert content.get("source_url") is None


async def test_preparation_words_are_notes_on_an_imported_draft(client: Client) -> None:
    text = "Slaw Tacos\n1 cup shredded red cabbage\n1/2 cup crumbled feta\n1-2 tbsp chopped parsley\nFill the tacos and serve."
    content = (await call(client, "recipes_import", source=text))["drafts"][0]["content"]
    assert [(i["name"], i["notes"]) for i in content["ingredients"]] == [("red cabbage", "shredded"), ("feta", "crumbled"),
                                                                          ("parsley", "chopped")]
