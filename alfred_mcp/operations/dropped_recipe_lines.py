"""Shopping lines listed for a recipe no meal plans any more are pointed out, never removed.

A meal's recipe swapped (db_update on meal_plans setting recipe_id) or the meal deleted leaves the lines a shopping
list made for the dropped recipe ('bok choy, for Miso-Glazed Salmon'); the write's result names them by ref in a note,
so the model can offer to take them off. A line also listed for a recipe still planned, one already bought, or one a
person wrote for no recipe is left unmentioned: it is still wanted or not this write's doing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from alfred_mcp.kitchen.query import MAX_IN_VALUES, Filter, Query, Where
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPES, SHOPPING_LIST, Table
from alfred_mcp.kitchen.shopping_lines import listed_recipes, source_entries
from alfred_mcp.operations.crud import ref_of
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.note_facts import NoteFact, lines_for_dropped_recipe

MAX_NAMED = 12
"""Lines a note names by ref; past it, how many more."""


async def planned_recipes(work: UnitOfWork, target: Where) -> dict[str, str]:
    """Meal row id -> recipe row id, for the meals `target` matches that plan a recipe (read before the write)."""
    rows = await work.store.select(MEAL_PLANS, Query(where=target, columns=("id", "recipe_id")), user_id=work.user_id)
    return {str(row["id"]): str(row["recipe_id"]) for row in rows if row.get("recipe_id")}


async def dropped_recipe_notes(work: UnitOfWork, before: Mapping[str, str]) -> list[NoteFact]:
    """One offer per recipe the write took off its meals and no meal plans any more, naming the unbought shopping lines
    listed only for it (its note: 'shopping_3 bok choy, shopping_5 miso paste were listed for Miso-Glazed Salmon with Bok
    Choy, no longer planned: offer to remove them')."""
    if not before:
        return []
    now = await _recipes_of(work, MEAL_PLANS, "recipe_id", sorted(before))
    dropped = {recipe for meal, recipe in before.items() if now.get(meal) != recipe}
    still = set((await _recipes_of(work, MEAL_PLANS, "recipe_id", sorted(dropped), by="recipe_id")).values()) if dropped else set()
    names = await _names(work, sorted(dropped - still))
    if not names:
        return []
    query = Query(where=Where(all_of=(Filter("is_purchased", "eq", False),)), columns=("id", "name", "source"))
    lines = await work.store.select(SHOPPING_LIST, query, user_id=work.user_id)
    notes = []
    for name in sorted(set(names.values())):
        only = [line for line in lines if _listed_only_for(line.get("source"), name)]
        if only:
            shown = only[:MAX_NAMED]
            notes.append(lines_for_dropped_recipe([ref_of(work, SHOPPING_LIST, line) for line in shown],
                                                  [str(line["name"]) for line in shown], max(0, len(only) - MAX_NAMED), name))
    return notes


def _listed_only_for(source: str | None, recipe: str) -> bool:
    """Whether every entry of a line's source is for `recipe` (its name, or a meal of it)."""
    entries = source_entries(source)
    per_entry = listed_recipes(source)[:len(entries)]
    wanted = recipe.casefold()
    return bool(per_entry) and all(name.casefold() == wanted for name in per_entry)


async def _recipes_of(work: UnitOfWork, table: Table, column: str, ids: Sequence[str], *, by: str = "id") -> dict[str, str]:
    """Row id -> `column`, for the rows whose `by` is in `ids` (one query per MAX_IN_VALUES of them)."""
    found: dict[str, str] = {}
    for start in range(0, len(ids), MAX_IN_VALUES):
        query = Query(where=Where(all_of=(Filter(by, "in", list(ids[start:start + MAX_IN_VALUES])),)), columns=("id", column))
        rows = await work.store.select(table, query, user_id=work.user_id)
        found.update((str(row["id"]), str(row[column])) for row in rows if row.get(column))
    return found


async def _names(work: UnitOfWork, ids: Sequence[str]) -> dict[str, str]:
    return await _recipes_of(work, RECIPES, "name", ids)
