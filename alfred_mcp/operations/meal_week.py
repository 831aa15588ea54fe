"""meal_plan_show: the planned meals of a date range as a grid of days and meal types (read-only).

Each meal names its recipe (ref and name) and the conflicts of that recipe with the user's standing
constraints, with the optional ingredients to leave out last ('leave out the optional Kalamata olives (you don't like
olives)'), as its recipe card says them, so a person sees at a glance which night needs another dish; a meal meal_cooked logged reads as cooked
(`cooked`), done, with nothing left to shop for (shopping_list_from leaves it out).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.card_lines import proper_names
from alfred_mcp.kitchen.dates import span_text
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import COOKING_LOG, MEAL_PLANS, MEAL_TYPES
from alfred_mcp.operations.conflicts import Conflicts, recipe_conflicts, standing_constraints
from alfred_mcp.operations.crud import rows_to_refs
from alfred_mcp.operations.recipe_rows import load_recipes
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.store.base import KitchenStore

DEFAULT_DAYS = 7
MAX_DAYS = 28
MAX_MEALS = 500


def plan_range(start: date | None, end: date | None, *, today: date) -> tuple[date, date]:
    """The range to show: from `start` (default today) to `end` (default a week on), at most MAX_DAYS days.

    Raises:
        InputError: `to` before `from`, or a range longer than MAX_DAYS (naming `to`).
    """
    first = start or today
    last = end or first + timedelta(days=DEFAULT_DAYS - 1)
    if last < first:
        raise InputError(f"to: {last} is before from ({first}); give a range that ends on or after it starts.", field="to")
    if (last - first).days >= MAX_DAYS:
        raise InputError(f"to: a plan shows at most {MAX_DAYS} days; {span_text(first, last)} is {(last - first).days + 1} days.", field="to")
    return first, last


async def meal_plan(work: UnitOfWork, first: date, last: date) -> dict[str, Any]:
    """The days, the meal types that occur, and each meal with its recipe and conflicts, in date and meal order."""
    where = Where(all_of=(Filter("date", "gte", first.isoformat()), Filter("date", "lte", last.isoformat())))
    rows = await work.store.select(MEAL_PLANS, Query(where=where, limit=MAX_MEALS), user_id=work.user_id)
    views = await rows_to_refs(work, MEAL_PLANS, rows, action="read")
    recipe_refs = list(dict.fromkeys(view["recipe_id"] for view in views if view.get("recipe_id")))
    loaded = {rows.ref: rows for rows in await load_recipes(work, recipe_refs, field="recipe_id")} if recipe_refs else {}
    conflicts: dict[str, Conflicts] = {}
    if loaded:
        standing = await standing_constraints(work)
        conflicts = {ref: recipe_conflicts(standing, r.recipe, r.ingredients) for ref, r in loaded.items()}
    cooked = await cooked_meal_ids(work.store, work.user_id, [row["id"] for row in rows])
    meals = sorted((_meal(view, loaded, conflicts, row["id"] in cooked) for row, view in zip(rows, views)), key=_meal_order)
    work.session.record_call(CallRecord(turn=work.session.turn, tool="meal_plan_show", table="meal_plans", action="read",
                                        refs=[meal["ref"] for meal in meals], count=len(meals)))
    present = {meal["meal_type"] for meal in meals}
    plan: dict[str, Any] = {
        "from": first.isoformat(), "to": last.isoformat(),
        "days": [(first + timedelta(days=n)).isoformat() for n in range((last - first).days + 1)],
        "meal_types": [kind for kind in MEAL_TYPES if kind in present], "meals": meals,
    }
    later = await work.store.count(MEAL_PLANS, Where(all_of=(Filter("date", "gt", last.isoformat()),)), user_id=work.user_id)
    if later:  # a range is a cut of the plan: say what lies past it, and how to see it
        plan["planned_after"] = later
    return plan


async def cooked_meal_ids(store: KitchenStore, user_id: str, ids: list[Any]) -> set[Any]:
    """Of the meals `ids`, those the cooking log says were cooked (meal_cooked of the meal): done, nothing left to buy
    for them."""
    if not ids:
        return set()
    where = Where(all_of=(Filter("from_meal_plan_id", "in", ids),))
    logged = await store.select(COOKING_LOG, Query(where=where, columns=("from_meal_plan_id",)), user_id=user_id)
    return {row["from_meal_plan_id"] for row in logged}


def _meal(view: dict[str, Any], loaded: dict[str, Any], conflicts: dict[str, Conflicts], cooked: bool) -> dict[str, Any]:
    recipe = view.get("recipe_id")
    found = conflicts.get(recipe) if recipe else None
    meal: dict[str, Any] = {"ref": view["id"], "date": view["date"], "meal_type": view["meal_type"], "recipe": recipe,
                            "name": loaded[recipe].name if recipe in loaded else None, "servings": view.get("servings"),
                            "conflicts": [proper_names(text) for text in found.conflicts() + found.notes] if found else []}
    if found is not None and found.allergens:  # said apart so a view marks an allergy as a danger, a dislike as a warning
        meal["allergy_conflicts"] = len(found.allergens)
    if view.get("notes"):
        meal["notes"] = view["notes"]
    if cooked:  # done: the text and the view say so, and "Add to shopping list" does not count it
        meal["cooked"] = True
    return meal


def _meal_order(meal: dict[str, Any]) -> tuple[str, int, str]:
    kind = meal["meal_type"]
    return meal["date"], MEAL_TYPES.index(kind) if kind in MEAL_TYPES else len(MEAL_TYPES), meal["ref"]
