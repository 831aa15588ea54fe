"""Search matching without a store: word and category matches, constraints, pantry coverage."""

from __future__ import annotations

from typing import Any

import pytest

from alfred_mcp.kitchen.ingredient_match import heads_with, holds_words, term_matches
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.operations.search import (
    Candidate,
    Coverage,
    check_constraints,
    pantry_coverage,
    rank_by_coverage,
)
from alfred_mcp.state.constraints import (
    ActiveGoal,
    Constraint,
    PermanentConstraints,
    SessionConstraints,
    compile_constraints,
)

TAXONOMY = default_taxonomy()


def part(name: str, *, optional: bool = False, ingredient_id: str | None = None) -> dict[str, Any]:
    return {"name": name, "is_optional": optional, "ingredient_id": ingredient_id}


def recipe(name: str, *parts: dict[str, Any], **row: Any) -> Candidate:
    return Candidate({"id": f"row-{name}", "name": name, **row}, list(parts))


@pytest.mark.parametrize(
    ("name", "term", "holds", "heads"),
    [
        pytest.param("Cod Fillets", "cod", True, True, id="cod-fillets"),
        pytest.param("olive oil", "olives", True, False, id="olive-oil-is-not-olives"),
        pytest.param("kalamata olives", "olives", True, True, id="kalamata-olives"),
        pytest.param("eggplant", "egg", False, False, id="eggplant-is-not-egg"),
        pytest.param("crumbled blue cheese", "blue cheese", True, True, id="two-words"),
    ],
)
def test_word_matching(name: str, term: str, holds: bool, heads: bool) -> None:
    assert holds_words(name, term) is holds
    assert heads_with(name, term) is heads


def test_category_terms_match_through_the_taxonomy() -> None:
    assert term_matches("peanut butter", "peanuts", TAXONOMY)
    assert term_matches("salmon fillets", "fish", TAXONOMY, strict=True)
    assert not term_matches("butter beans", "dairy", TAXONOMY)


def compiled(goal: list[Constraint] | None = None, **permanent: Any) -> Any:
    active = ActiveGoal(description="x", started_turn=1, constraints=goal) if goal else None
    return compile_constraints(SessionConstraints(permanent=PermanentConstraints(**permanent), active_goal=active))


def test_allergens_exclude_broadly_and_dislikes_by_head_word() -> None:
    satay = recipe("Satay", part("chicken thighs"), part("peanut oil"))
    salad = recipe("Salad", part("olive oil"), part("kalamata olives", optional=True))
    rules = compiled(allergies=["peanuts"], dislikes=["olives"])
    for candidate in (satay, salad):
        check_constraints(candidate, rules, TAXONOMY)
    assert satay.reasons == ["contains peanut oil (peanuts: allergy)"]
    assert salad.reasons == [] and salad.notes == ["leave out the optional kalamata olives (you don't like olives)"]


def test_goal_and_diet_constraints_are_checked() -> None:
    rules = compiled(
        [Constraint(type="ingredient_required", field="protein", value="cod"),
         Constraint(type="difficulty", field="style", value="simple"),
         Constraint(type="time_limit", field="max_minutes", value=30),
         Constraint(type="equipment", field="appliance", value="air-fryer")],
        dietary_restrictions=["pescatarian"], equipment=["oven", "air-fryer"],
    )
    fine = recipe("Air Cod", part("cod fillets"), difficulty="easy", prep_time_minutes=10, cook_time_minutes=10,
                  equipment_tags=["air-fryer", "one-pan"])
    wrong = recipe("Slow Beef", part("beef chuck"), difficulty="hard", prep_time_minutes=20, cook_time_minutes=200,
                   equipment_tags=["slow-cooker"])
    for candidate in (fine, wrong):
        check_constraints(candidate, rules, TAXONOMY)
    assert fine.reasons == []
    assert wrong.reasons == [
        "not pescatarian: beef chuck",
        "has no cod (goal:protein)",
        "does not use the air-fryer",
        "needs equipment the kitchen lacks: slow-cooker",
        "difficulty is hard, not easy",
        "takes 3 hr 40 min (limit 30 min)",
    ]


def test_pantry_coverage_counts_required_ingredients_by_catalog_or_name() -> None:
    pantry = [{"name": "baby spinach", "ingredient_id": None}, {"name": "Lemons", "ingredient_id": None},
              {"name": "milk", "ingredient_id": "cat-milk"}]
    parts = [part("spinach"), part("lemon"), part("whole milk", ingredient_id="cat-milk"), part("coconut milk"),
             part("parsley", optional=True)]
    assert pantry_coverage(parts, pantry) == Coverage(have=3, need=4, missing=("coconut milk",))
    assert pantry_coverage([part("salt", optional=True)], pantry).share == 1.0


def test_ranking_is_by_coverage_then_missing_then_name() -> None:
    full = (recipe("Zucchini Bake"), Coverage(3, 3, ()))
    half_a = (recipe("Apple Pie"), Coverage(1, 2, ("flour",)))
    half_b = (recipe("Bread"), Coverage(2, 4, ("yeast", "salt")))
    assert [c.row["name"] for c, _ in rank_by_coverage([half_b, half_a, full])] == ["Zucchini Bake", "Apple Pie", "Bread"]
