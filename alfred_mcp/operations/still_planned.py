"""A recipe logged cooked that other meals still plan is pointed out: the meal cooked tonight may have been one of
them, or the one planned tomorrow may no longer be wanted. meal_cooked's result names them by ref and day ('still
planned: meal_3 Sat Dec 5 [dinner]'), so the model can ask; nothing is changed. A meal already logged cooked (a
cooking log entry fulfilled it) is not named, nor the meal this call cooked.
"""

from __future__ import annotations

from datetime import date

from alfred_mcp.kitchen.query import MAX_IN_VALUES, Filter, OrderBy, Query, Where
from alfred_mcp.kitchen.schema import COOKING_LOG, MEAL_PLANS, row_label
from alfred_mcp.operations.crud import ref_of
from alfred_mcp.session import UnitOfWork

MAX_NAMED = 5
"""Meals named; past it, how many more."""


async def still_planned(work: UnitOfWork, recipe_ref: str, *, cooked_meal: str | None, today: date) -> list[str]:
    """'meal_3 Sat Dec 5 [dinner]' for each meal of the recipe not yet logged cooked, other than `cooked_meal`, by
    date; past MAX_NAMED, '+N more'."""
    registry = work.session.registry
    recipe_id = registry.resolve(recipe_ref, expected_type="recipe", field="recipe")
    meals = await work.store.select(MEAL_PLANS, Query(where=Where(all_of=(Filter("recipe_id", "eq", recipe_id),)),
                                                      columns=("id", "date", "meal_type"), order_by=(OrderBy("date"),)),
                                    user_id=work.user_id)
    skipped = {registry.resolve(cooked_meal, expected_type="meal", field="meal")} if cooked_meal else set()
    if meals:
        logged = Query(where=Where(all_of=(Filter("from_meal_plan_id", "in", [row["id"] for row in meals[:MAX_IN_VALUES]]),)),
                       columns=("from_meal_plan_id",))
        skipped |= {row["from_meal_plan_id"] for row in await work.store.select(COOKING_LOG, logged, user_id=work.user_id)}
    open_meals = [row for row in meals if row["id"] not in skipped]
    named = [f"{ref_of(work, MEAL_PLANS, row)} {row_label(MEAL_PLANS, row, today=today)}" for row in open_meals[:MAX_NAMED]]
    return named + ([f"+{len(open_meals) - MAX_NAMED} more"] if len(open_meals) > MAX_NAMED else [])
