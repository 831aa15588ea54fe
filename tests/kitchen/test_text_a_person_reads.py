"""A recipe that a person can read is a recipe the tool can read (issue 25; cook QA G1, G13): lines with or without
headings, steps numbered, bulleted or plain sentences, one paragraph, a prose sentence listing the ingredients."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alfred_mcp.kitchen.recipe_sources import recipe_in_text
from alfred_mcp.kitchen.schema_org import draft_from_recipe

INGREDIENTS = [  # (as written, name read, quantity read, unit read)
    ("2 tbsp olive oil", "olive oil", 2.0, "tbsp"),
    ("1 1/2 cups all-purpose flour", "all-purpose flour", 1.5, "cup"),
    ("3 cloves garlic, minced", "garlic", 3.0, "clove"),
    ("1 can (15 oz) chickpeas, drained", "chickpeas", 1.0, "can"),
    ("a pinch of salt", "salt", 1.0, "pinch"),
    ("2 large eggs", "eggs", 2.0, None),
    ("1/2 cup crumbled feta", "feta", 0.5, "cup"),
    ("200 g spaghetti", "spaghetti", 200.0, "g"),
    ("1 lb ground beef", "ground beef", 1.0, "lb"),
    ("4 slices bacon", "bacon", 4.0, "slice"),
    ("1 bunch parsley, chopped", "parsley", 1.0, "bunch"),
    ("2 sprigs thyme", "thyme", 2.0, "sprig"),
    ("1 tsp smoked paprika", "smoked paprika", 1.0, "tsp"),
    ("1 lemon, zested and juiced", "lemon", 1.0, None),
    ("juice of 1 lime", "lime", 1.0, None),
    ("500 ml vegetable stock", "vegetable stock", 500.0, "ml"),
    ("1 head broccoli", "broccoli", 1.0, "head"),
    ("2 medium onions, finely chopped", "onions", 2.0, None),
    ("1-2 tbsp chopped parsley", "parsley", "1-2", "tbsp"),
    ("1 cup shredded red cabbage", "red cabbage", 1.0, "cup"),
    ("3 ripe bananas, mashed", "bananas", 3.0, None),
    ("8 oz linguine", "linguine", 8.0, "oz"),
]
STEPS = ["Heat the oven to 200C.", "Fry the onions in the oil until soft, then add the garlic.",
         "Stir in everything else and simmer for 10 minutes.", "Season and serve."]
TITLE = "Weeknight Skillet Supper"
STEP_STYLES = {
    "plain": lambda steps: steps,
    "numbered": lambda steps: [f"{at}. {step}" for at, step in enumerate(steps, start=1)],
    "bulleted": lambda steps: [f"- {step}" for step in steps],
    "step-words": lambda steps: [f"Step {at}: {step}" for at, step in enumerate(steps, start=1)],
}
SERVINGS = {"none": [], "serves": ["serves 4"], "Servings": ["Servings: 4"], "makes": ["Makes 4"]}
HEADINGS = {"none": ("", ""), "both": ("Ingredients", "Method"), "steps only": ("", "Directions"), "ingredients only": ("Ingredients:", ""),
            "you will need": ("You will need:", "Instructions:")}
picked = st.lists(st.sampled_from(INGREDIENTS), min_size=2, max_size=9, unique=True)


def _assert_read(recipe: dict[str, object] | None, chosen: list[tuple[str, str, float | str, str | None]], steps: list[str]) -> None:
    assert recipe is not None
    draft, warnings = draft_from_recipe(recipe, source_url=None)
    assert draft["name"] == TITLE and warnings == []
    assert [(i["name"], i.get("quantity"), i.get("unit")) for i in draft["ingredients"]] == [(n, q, u) for _, n, q, u in chosen]
    assert draft["instructions"] == steps


@pytest.mark.parametrize(("style", "servings", "headings", "blank"), list(itertools.product(STEP_STYLES, SERVINGS, HEADINGS, [False, True])))
@settings(max_examples=8, deadline=None)
@given(chosen=picked)
def test_a_recipe_written_as_lines_is_read_whatever_its_headings_and_steps(
    style: str, servings: str, headings: str, blank: bool, chosen: list[tuple[str, str, float | str, str | None]],
) -> None:
    ingredients_heading, steps_heading = HEADINGS[headings]
    lines = [TITLE, *SERVINGS[servings], *([ingredients_heading] if ingredients_heading else []), *(line for line, *_ in chosen),
             *([""] if blank else []), *([steps_heading] if steps_heading else []), *STEP_STYLES[style](STEPS)]
    recipe = recipe_in_text("\n".join(lines))
    _assert_read(recipe, chosen, STEPS)
    assert recipe is not None and recipe.get("recipeYield") == ("4" if servings != "none" else None)


LEAD_INS = ["You need ", "You'll need ", "For this you will need ", "Take ", ""]
TITLES = {"plain": (TITLE, None), "serves": (f"{TITLE} (serves 4)", "4"), "makes": (f"{TITLE} (makes 1 loaf, about 10 slices)", "1 loaf")}


@pytest.mark.parametrize(("lead_in", "title", "last_joint", "after_title"),
                         list(itertools.product(LEAD_INS, TITLES, [" and ", ", and ", ", "], [". ", ": "])))
@settings(max_examples=5, deadline=None)
@given(chosen=picked)
def test_a_recipe_written_as_prose_is_read(lead_in: str, title: str, last_joint: str, after_title: str,
                                           chosen: list[tuple[str, str, float | str, str | None]]) -> None:
    """'Banana Bread (makes 1 loaf). You need 3 ripe bananas, mashed, 1 egg, beaten, a pinch of salt and 1 1/2 cups
    flour. Heat the oven ...' (or 'Tomato Toast (serves 2): 2 slices bread, ...'): the sentence's list is the
    ingredients, the sentences after it the steps."""
    written = [line for line, *_ in chosen]
    listed = ", ".join(written[:-1]) + last_joint + written[-1]
    sentence = f"{lead_in}{listed}"
    text = f"{TITLES[title][0]}{after_title}{sentence[:1].upper()}{sentence[1:]}. {' '.join(STEPS)}"
    recipe = recipe_in_text(text)
    _assert_read(recipe, chosen, STEPS)
    if TITLES[title][1]:
        assert recipe is not None and TITLES[title][1] in str(recipe["recipeYield"])


@pytest.mark.parametrize("steps_heading", ["", "Steps: ", "Method: "])
@settings(max_examples=10, deadline=None)
@given(chosen=picked)
def test_a_paragraph_of_semicolon_separated_ingredients_is_read(steps_heading: str, chosen: list[tuple[str, str, float | str, str | None]]) -> None:
    listed = "; ".join(line for line, *_ in chosen)
    text = f"{TITLE}. Serves 4. {listed[:1].upper()}{listed[1:]}. {steps_heading}{' '.join(STEPS)}"
    _assert_read(recipe_in_text(text), chosen, STEPS)


def test_the_cook_qa_shrimp_pasta_without_headings_is_read() -> None:
    """Cook QA G1, exactly as it was refused: no headings, steps as plain sentences."""
    text = ("Lemon Garlic Shrimp Pasta\nserves 2\n8 oz linguine\n12 oz large shrimp, peeled and deveined\n3 cloves garlic, thinly "
            "sliced\n2 tbsp butter\n1 lemon, zested and juiced\n1/4 tsp red pepper flakes\n2 shallots, finely chopped\n1-2 tbsp "
            "chopped parsley\nsalt and pepper to taste\nCook the linguine in salted water until al dente.\nMelt the butter and soften "
            "the shallots and garlic, then add the shrimp and cook 3 minutes.\nToss in the pasta, lemon and parsley, and season.")
    draft, warnings = draft_from_recipe(recipe_in_text(text) or {}, source_url=None)
    assert (draft["servings"], len(draft["ingredients"]), len(draft["instructions"]), warnings) == (2, 9, 3, [])
    assert [i["name"] for i in draft["ingredients"]][-2:] == ["parsley", "salt and pepper"]


def test_the_cook_qa_banana_bread_paragraph_is_read() -> None:
    """Cook QA G13, exactly as it was refused: 8 ingredients and 4 steps in prose."""
    text = ("Grandma's Banana Bread (makes 1 loaf, about 10 slices). You need 3 ripe bananas, mashed, 1/3 cup melted butter, 3/4 cup "
            "sugar, 1 egg, beaten, 1 tsp vanilla, 1 tsp baking soda, a pinch of salt and 1 1/2 cups all-purpose flour. Heat the oven "
            "to 350F. Mix the butter into the bananas, then stir in the sugar, egg and vanilla. Sprinkle over the soda and salt, then "
            "mix in the flour. Bake in a buttered loaf pan for 60 minutes.")
    draft, warnings = draft_from_recipe(recipe_in_text(text) or {}, source_url=None)
    assert draft["name"] == "Grandma's Banana Bread" and warnings == []
    assert [(i["name"], i.get("notes")) for i in draft["ingredients"]] == [
        ("bananas", "ripe; mashed"), ("butter", "melted"), ("sugar", None), ("egg", "beaten"), ("vanilla", None),
        ("baking soda", None), ("salt", None), ("all-purpose flour", None)]
    assert draft["instructions"][0] == "Heat the oven to 350F." and len(draft["instructions"]) == 4


@pytest.mark.parametrize("text", [
    "Shopping\n2 tbsp olive oil\n1 onion\nmilk",
    "Dear Sam, thanks for dinner. It was lovely to see you.",
    "Notes\n1 cup flour\n2 eggs",
], ids=["a list with no steps", "a letter", "ingredients only"])
def test_text_that_is_no_recipe_is_still_refused(text: str) -> None:
    assert recipe_in_text(text) is None
