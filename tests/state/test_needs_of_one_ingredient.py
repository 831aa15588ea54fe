"""needs_of: rows of one ingredient, whether or not each carries its catalog id, make one need per dimension."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.measures import convert
from alfred_mcp.state.pantry import needs_of

ROW = st.tuples(st.sampled_from(["soy sauce", "Soy Sauce", "soy sauces"]), st.booleans(), st.integers(1, 8), st.sampled_from(["tsp", "tbsp", "cup"]))


@given(st.lists(ROW, min_size=1, max_size=8))
def test_the_same_name_with_and_without_a_catalog_id_is_one_need(rows: list[tuple[str, bool, int, str]]) -> None:
    uses = [(f"use {n}", {"name": name, "quantity": quantity, "unit": unit, **({"ingredient_id": "id-soy"} if linked else {})}, 1.0)
            for n, (name, linked, quantity, unit) in enumerate(rows)]
    (need,) = needs_of(uses)
    assert need.quantity is not None
    assert abs(need.quantity - sum(convert(q, unit, "ml") for _, _, q, unit in rows)) < 1e-6
    assert need.recipes == [label for label, _, _ in uses]
    assert need.ingredient_id == ("id-soy" if any(linked for _, linked, _, _ in rows) else None)


def test_two_catalog_ingredients_of_one_name_stay_apart() -> None:
    uses = [("a", {"name": "stock", "quantity": 1, "unit": "cup", "ingredient_id": "chicken"}, 1.0),
            ("b", {"name": "stock", "quantity": 1, "unit": "cup", "ingredient_id": "beef"}, 1.0)]
    assert [need.ingredient_id for need in needs_of(uses)] == ["chicken", "beef"]
