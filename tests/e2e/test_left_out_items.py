"""Every line shopping_list_from leaves out for an allergen says what it is: its own `text` (name, meal, why), while the
result's message says the reason once for the lines of one meal and allergen."""

from __future__ import annotations

import pytest
from mcp import Client

from alfred_mcp.agent.act_tools import result_card

from .helpers import call

pytestmark = pytest.mark.anyio

CONSENT = {"allergens": ["peanuts"], "reason": "the user accepts peanuts for this test's recipes"}
PEANUT_LINES = ("peanut oil", "peanut butter", "roasted peanuts")


@pytest.mark.parametrize(("meals", "per_meal"), [(1, 3), (2, 2)], ids=["one-meal-three-lines", "two-meals-two-lines-each"])
async def test_every_line_left_out_says_what_it_is(client: Client, meals: int, per_meal: int) -> None:
    for day in range(meals):
        lines = [{"name": f"{name} {day + 1}", "quantity": 1, "unit": "tbsp"} for name in PEANUT_LINES[:per_meal]]
        lines.append({"name": f"quuxgreens {day + 1}", "quantity": 200, "unit": "g"})
        recipe = (await call(client, "db_create", table="recipes", allergy_override=CONSENT,
                             data={"name": f"Quux Bowl {day + 1}", "servings": 2, "instructions": ["Cook."]}))["rows"][0]["id"]
        await call(client, "db_create", table="recipe_ingredients", allergy_override=CONSENT,
                   data=[{"recipe_id": recipe, "position": i + 1, **line} for i, line in enumerate(lines)])
        await call(client, "db_create", table="meal_plans", allergy_override=CONSENT,
                   data={"date": f"2031-06-0{day + 2}", "meal_type": "dinner", "recipe_id": recipe, "servings": 2})
    result = await call(client, "shopping_list_from", meal_plans={"from": "2031-06-01", "to": "2031-06-07"}, preview=True)
    left = result["left_out"]
    assert len(left) == meals * per_meal
    for item in left:
        assert item["text"].startswith(f"Left out {item['name']}, for {item['for'][0]}: it contains peanuts"), item
    for day in range(meals):  # the reason once per meal, naming each of its lines once
        names = [f"{name} {day + 1}" for name in PEANUT_LINES[:per_meal]]
        said = f"Left out {', '.join(names[:-1])} and {names[-1]}, for Quux Bowl {day + 1}"
        assert result["message"].count(said) == 1 and result["message"].count("allergic") == meals
    card = result_card("shopping_list_from", {}, result)
    assert all(item["name"] in card for item in left)
