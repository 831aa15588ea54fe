"""A meal whose recipe an update replaced keeps its notes, written for the recipe before: warned, naming both.

'double the potatoes for lunch leftovers' was written for Greek Lemon Chicken and Potatoes; a db_update that sets the
meal's recipe to Chicken Tikka Masala leaves the note as it was (the update did not ask to change it), so the result
says whose note it is, and the client tells the user or changes it. The rows before and after come from the unit's
journal of what it wrote.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPES, row_label
from alfred_mcp.session import UnitOfWork
from alfred_mcp.store.base import Row


async def replaced_recipe_notes(work: UnitOfWork) -> list[str]:
    """One warning per meal this unit's updates gave another recipe while its notes stayed as they were."""
    stale = [(before, after) for before, after in _updated_meals(work)
             if before.get("notes") and after.get("notes") == before.get("notes")
             and after.get("recipe_id") and after.get("recipe_id") != before.get("recipe_id")]
    if not stale:
        return []
    ids = sorted({str(row["recipe_id"]) for pair in stale for row in pair if row.get("recipe_id")})
    found = await work.store.select(RECIPES, Query(where=Where(all_of=(Filter("id", "in", ids),)), columns=("id", "name")),
                                    user_id=work.user_id)
    names = {row["id"]: str(row["name"]) for row in found}
    return [_warning(work, before, after, names) for before, after in stale]


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
