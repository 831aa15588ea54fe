"""Think's dashboard says which of the next meals are cooked already (done), so 'what's for dinner' is not answered
with a meal that was eaten."""

from __future__ import annotations

import pytest

from alfred_mcp.state.context import build_context
from tests.state.test_context import inputs


@pytest.mark.parametrize("cooked", [(), (1,), (1, 3), (1, 2, 3)])
def test_a_cooked_next_meal_is_said_cooked_and_no_other(cooked: tuple[int, ...]) -> None:
    meals = [{"ref": f"meal_{n}", "label": f"day {n} [dinner]", "recipe": f"recipe_{n}", "recipe_label": f"Dish {n}",
              **({"cooked": True} if n in cooked else {})} for n in (1, 2, 3)]
    text = build_context("think", inputs(dashboard={"counts": {}, "next_meals": meals, "next_meals_total": 3})).section("dashboard")
    for n in (1, 2, 3):
        said = f"meal_{n} day {n} [dinner] → recipe_{n} Dish {n}"
        assert (f"{said} (cooked)" in text) == (n in cooked) and said in text, text
