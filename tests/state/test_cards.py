"""Read cards: the rows a read returned, compactly, with every cut marked."""

from __future__ import annotations

from alfred_mcp.state.cards import MAX_CARD_ROWS, read_card


def recipe(n: int) -> dict[str, object]:
    return {"id": f"recipe_{n}", "name": f"Dish {n}", "cuisine": "thai", "prep_time_minutes": 10, "cook_time_minutes": 5,
            "servings": 2, "parent_recipe_id": None, "parent_recipe_id_label": None}


def test_a_card_shows_ref_label_and_the_useful_columns() -> None:
    card = read_card("recipes", [recipe(1)])
    assert card == "recipes: 1 recipe\n- recipe_1 Dish 1 (cuisine=thai; total_minutes=15 min; servings=2)"


def test_the_asked_columns_win_and_foreign_keys_carry_their_label() -> None:
    meal = {"id": "meal_1", "date": "2026-01-13", "meal_type": "dinner", "recipe_id": "recipe_4", "recipe_id_label": "Chicken Fajitas"}
    assert read_card("meal_plans", [meal], columns=["recipe_id"]) == (
        "meal_plans: 1 meal plan entry\n- meal_1 Tue Jan 13 [dinner] (recipe_id=recipe_4 Chicken Fajitas)"
    )


def test_rows_beyond_the_card_are_counted_and_named() -> None:
    card = read_card("recipes", [recipe(n) for n in range(1, 14)]).splitlines()
    assert len(card) == 1 + MAX_CARD_ROWS + 1
    assert card[-1] == "+3 more: recipe_11, recipe_12, recipe_13"


def test_a_read_cut_by_its_limit_says_more_exist() -> None:
    assert "(more exist: narrow the filters or raise the limit)" in read_card("recipes", [recipe(1)], truncated=True)


def test_no_rows_is_said_plainly() -> None:
    assert read_card("inventory", []) == "inventory: no rows matched."
