"""A meal whose recipe an update replaced keeps its notes, written for the recipe before: warned, naming both.

'double the potatoes for lunch leftovers' was written for Greek Lemon Chicken and Potatoes; a db_update that sets the
meal's recipe to Chicken Tikka Masala leaves the note as it was (the update did not ask to change it), so the result
says whose note it is, and the client tells the user or changes it. Every other meal to come whose notes name the
recipe replaced ('leftover Greek chicken' for Sunday lunch) is named too, each one (`unlinking.names_it`). The rows
before and after come from the unit's journal of what it wrote.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date

from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPES, row_label
from alfred_mcp.operations.unlinking import MAX_NOTED_MEALS, name_words, names_it
from alfred_mcp.session import UnitOfWork
from alfred_mcp.store.base import Row


async def replaced_recipe_notes(work: UnitOfWork) -> list[str]:
    """One warning per meal this unit's updates gave another recipe while its notes stayed as they were, and one per
    other meal to come whose notes name a recipe replaced."""
    swapped = [(before, after) for before, after in _updated_meals(work)
               if after.get("recipe_id") and after.get("recipe_id") != before.get("recipe_id")]
    if not swapped:
        return []
    stale = [(before, after) for before, after in swapped if before.get("notes") and after.get("notes") == before.get("notes")]
    ids = sorted({str(row["recipe_id"]) for pair in swapped for row in pair if row.get("recipe_id")})
    found = await work.store.select(RECIPES, Query(where=Where(all_of=(Filter("id", "in", ids),)), columns=("id", "name")),
                                    user_id=work.user_id)
    names = {row["id"]: str(row["name"]) for row in found}
    replaced = {str(before["recipe_id"]): after for before, after in swapped if before.get("recipe_id")}
    others = await _other_meals_noting(work, replaced, names, {str(after["id"]) for _, after in swapped})
    return [_warning(work, before, after, names) for before, after in stale] + others


async def _other_meals_noting(work: UnitOfWork, replaced: Mapping[str, Row], names: Mapping[str, str], updated: set[str]) -> list[str]:
    """'meal_9: Sun Jan 18 [lunch]'s note 'leftover Greek chicken' names Greek Lemon Chicken and Potatoes, replaced in
    meal_5: ...', for each meal to come (not one just updated) whose notes name a recipe replaced."""
    words = {rid: found for rid in replaced if (found := name_words(names.get(rid)))}
    if not words:
        return []
    upcoming = Where(all_of=(Filter("notes", "is_null", False), Filter("date", "gte", date.today().isoformat())))
    meals = await work.store.select(MEAL_PLANS, Query(where=upcoming, limit=MAX_NOTED_MEALS), user_id=work.user_id)
    out = []
    for meal in sorted(meals, key=lambda row: (str(row.get("date")), str(row["id"]))):
        rid = next((rid for rid, held in words.items() if names_it(meal.get("notes"), held)), None)
        if rid is None or str(meal["id"]) in updated:
            continue
        ref = work.session.registry.ref_for_row(str(meal["id"])) or row_label(MEAL_PLANS, meal)
        where = work.session.registry.ref_for_row(str(replaced[rid]["id"])) or row_label(MEAL_PLANS, replaced[rid])
        out.append(f"{ref}: {row_label(MEAL_PLANS, meal)}'s note '{meal['notes']}' names {names[rid]}, replaced in {where}: "
                   "tell the user, or change the note")
    return out


def _warning(work: UnitOfWork, before: Row, after: Row, names: Mapping[str, str]) -> str:
    ref = work.session.registry.ref_for_row(str(after["id"])) or row_label(MEAL_PLANS, after)
    now = names.get(str(after["recipe_id"]), "its new recipe")
    old = names.get(str(before.get("recipe_id")))
    written = f"for {old}, its recipe before, not {now}" if old else f"before {now} was its recipe"
    return (f"{ref}: {row_label(MEAL_PLANS, after)} keeps its note '{before['notes']}', written {written}: tell the "
            "user, or change the note")


def _updated_meals(work: UnitOfWork) -> Iterable[tuple[Row, Row]]:
    """Each meal_plans row this unit updated: as it was, and as the update left it."""
    for step in work.journal.steps:
        if step.kind == "update" and step.table == MEAL_PLANS.name:
            before = {row["id"]: row for row in step.before}
            yield from ((before[row["id"]], row) for row in step.after if row["id"] in before)
