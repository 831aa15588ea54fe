"""Read cards: the rows a read returned, compactly, with every cut marked."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.state.cards import CARD_BUDGET, MAX_ASKED_VALUE, MAX_VALUE, cards_within, read_card
from alfred_mcp.state.narrative import MAX_CARD


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


def ingredient(n: int, notes: str = "") -> dict[str, object]:
    return {"id": f"ri_{n}", "name": f"ingredient {n}", "quantity": n, "unit": "g", "is_optional": n % 2 == 0, "notes": notes}


@given(count=st.integers(min_value=1, max_value=200), notes=st.text(alphabet="abc ,.", max_size=80))
def test_rows_are_shown_within_the_budget_and_every_row_left_out_is_named_with_how_to_read_it(count: int, notes: str) -> None:
    rows = [ingredient(n, notes) for n in range(1, count + 1)]
    card = read_card("recipe_ingredients", rows, columns=["name", "quantity", "unit", "is_optional", "notes"])
    assert len(card) <= CARD_BUDGET
    lines = card.splitlines()
    shown = [line for line in lines if line.startswith("- ")]
    assert all("is_optional=" in line for line in shown), "an asked column is never dropped"
    if len(shown) < count:
        rest = next(line for line in lines if line.startswith(f"+{count - len(shown)} more not shown: "))
        named = re.findall(r"\bri_\d+\b", rest)
        assert (named[0], named[-1]) == (f"ri_{len(shown) + 1}", f"ri_{count}"), "the first and last left out, as a range or a list"
        assert rest.endswith("(db_read recipe_ingredients with filters id in those refs shows them)")


def test_a_stored_card_holds_a_whole_read_card_and_its_tools_name() -> None:
    assert CARD_BUDGET + len("recipes_makeable ") <= MAX_CARD


def test_text_a_read_asked_for_is_not_cut_short() -> None:
    step = "Whisk the eggs with the grated cheese and plenty of black pepper, then toss with the hot pasta off the heat."
    card = read_card("recipe_ingredients", [ingredient(1, step)], columns=["notes", "is_optional"])
    assert step in card and "is_optional=no" in card
    assert len(step) > MAX_VALUE and "cut" not in card


def test_a_value_cut_says_how_to_read_it_whole() -> None:
    card = read_card("recipe_ingredients", [ingredient(1, "x" * (MAX_ASKED_VALUE + 50))], columns=["notes"])
    assert "was cut: db_read its row by ref, with that column, for all of it" in card


def test_a_read_cut_by_its_limit_says_more_exist() -> None:
    assert "(more exist: narrow the filters or raise the limit)" in read_card("recipes", [recipe(1)], truncated=True)


def test_no_rows_is_said_plainly() -> None:
    assert read_card("inventory", []) == "inventory: no rows matched."


def test_several_reads_are_one_card_the_latest_whole_and_an_earlier_one_that_does_not_fit_by_its_head() -> None:
    first = read_card("recipe_ingredients", [ingredient(n, "x" * 60) for n in range(1, 15)], columns=["name", "notes"])
    second = read_card("recipes", [recipe(1), recipe(2)])
    assert cards_within([first, second], 5_000) == f"{first}\n{second}"
    joined = cards_within([first, second], len(second) + 200)
    assert joined is not None and joined.endswith(second) and len(joined) <= len(second) + 200
    assert joined.startswith("recipe_ingredients: 14 recipe ingredients (its rows left out here: read them again to see them)")
    assert cards_within([], 100) is None


@given(table=st.sampled_from(sorted(TABLES)), count=st.integers(1, 3))
def test_a_cards_head_counts_its_rows_in_the_tables_own_words(table: str, count: int) -> None:
    """'1 meal plan entry', '2 meal plan entries' (never 'entrys'), '3 preferences': for every table."""
    noun = TABLES[table].noun
    head = read_card(table, [{"id": f"x_{n}"} for n in range(1, count + 1)]).splitlines()[0]
    words = noun if count == 1 else (noun if noun.endswith("s") else noun[:-1] + "ies" if re.search(r"[^aeiou]y$", noun) else noun + "s")
    assert head == f"{table}: {count} {words}"


@given(sizes=st.lists(st.integers(1, 40), min_size=1, max_size=8), budget=st.integers(30, 400))
def test_reads_cut_from_a_joined_card_are_counted_with_how_to_get_them(sizes: list[int], budget: int) -> None:
    """Every read is in the joined card, whole or by its head line, or counted in a marker saying how to see it again."""
    cards = [read_card("recipes", [recipe(n) for n in range(1, size + 1)]) for size in sizes]
    joined = cards_within(cards, budget)
    if joined is None:
        return
    shown = sum(1 for card in cards if card.splitlines()[0] in joined.splitlines()
                or f"{card.splitlines()[0]} (its rows left out here" in joined)
    marker = re.match(r"\(\+(\d+) earlier reads? left out here: read again to see them\)", joined)
    assert shown + (int(marker.group(1)) if marker else 0) >= len(cards), joined
