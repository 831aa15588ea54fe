"""What a removal leaves behind, as its result names it: the rows deleted with it (`cascaded`) and the rows
left pointing at nothing (`unlinked`): a meal left without its recipe, a task without its meal (their
reference set to null), an open shopping line whose source names a removed recipe, a meal to come whose notes
name it ('leftover Greek chicken and potatoes': the notes may be stale).

`reach_of_delete` reads them before the delete runs (every backend answers the same reads);
`unlinked_entries` names them after it, when the removed rows have their refs.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from alfred_mcp.kitchen.query import MAX_IN_VALUES, Filter, Query, Where
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPES, SHOPPING_LIST, Table, get_table, row_label
from alfred_mcp.kitchen.shopping_lines import listed_recipes
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.constraints import fold_words
from alfred_mcp.state.registry import Action
from alfred_mcp.store.base import Row
from alfred_mcp.store.reach import DeleteReach, Unlinking, delete_reach

MAX_OPEN_LINES = 5_000
"""Open shopping lines read to find those naming a removed recipe (the list's own read bound)."""
MAX_NOTED_MEALS = 1_000
"""Meals to come read to find those whose notes name a removed recipe."""
NAMING_COLUMNS = frozenset({"source", "notes"})
"""Columns whose text names a removed recipe: the row is not changed, only told about."""
_NOT_NAME_WORDS = frozenset({"and", "with", "the", "a", "an", "of", "in", "on", "style", "easy", "quick", "my", "best"})


async def reach_of_delete(work: UnitOfWork, table: Table, ids: Sequence[str]) -> DeleteReach:
    """What deleting `ids` will cascade to and unlink; known refs of the cascaded rows become deleted."""
    reach = await delete_reach(work.store, table, ids, user_id=work.user_id)
    registry, turn = work.session.registry, work.session.turn
    cascaded_ids = [row["id"] for rows in reach.cascaded.values() for row in rows]
    registry.prefetch_rows(cascaded_ids)
    for row_id in cascaded_ids:
        ref = registry.ref_for_row(row_id)
        if ref is not None:
            registry.mark_deleted(ref, turn=turn)
    return reach


def cascaded_counts(reach: DeleteReach) -> list[dict[str, Any]]:
    """`cascaded` as a result shows it: rows deleted with the removal, counted per table."""
    return [{"table": name, "count": len(rows)} for name, rows in reach.cascaded.items() if rows]


async def unlinked_entries(
    work: UnitOfWork, table: Table, reach: DeleteReach, removed: Sequence[Row]
) -> list[dict[str, Any]]:
    """The rows the removal left pointing at nothing, each {table, ref, label, column, was}: `column` is the
    reference now null (or `source` for a shopping line that still names a removed recipe), `was` the removed
    row's ref. Each gets a ref, so the reply can name it."""
    unlinked = await left_pointing(work, table, reach, removed)
    if table.name == RECIPES.name:
        unlinked += await _meals_noting(work, removed, {u.row["id"] for u, _ in unlinked})
    registry, turn = work.session.registry, work.session.turn
    registry.prefetch_rows([u.row["id"] for u, _ in unlinked] + [target for _, target in unlinked])
    entries = []
    for u, target in unlinked:
        child = get_table(u.table)
        label = row_label(child, u.row)
        # a cleared reference changed the row; a line whose source or a meal whose notes name the recipe was only looked at
        action: Action = "read" if u.column in NAMING_COLUMNS else "updated"
        ref = registry.register_row(child.entity_type, u.row["id"], label, turn=turn, action=action)
        was = registry.ref_for_row(target)
        entries.append({"table": u.table, "ref": ref, "label": label, "column": u.column, **({"was": was} if was else {})})
    return entries


async def left_pointing(
    work: UnitOfWork, table: Table, reach: DeleteReach, removed: Sequence[Row]
) -> list[tuple[Unlinking, str]]:
    """The rows a removal of `removed` leaves pointing at nothing, each with the id of the removed row it pointed at
    (reads only: a confirmation previews them)."""
    unlinked = [(u, str(u.row.get(u.column))) for u in reach.unlinked]
    if table.name == RECIPES.name:
        unlinked += await _lines_naming(work, removed)
    return unlinked


async def _lines_naming(work: UnitOfWork, removed: Sequence[Row]) -> list[tuple[Unlinking, str]]:
    """Open shopping lines whose source names a removed recipe that no recipe of the same name is left to stand
    for, each with the removed recipe's id."""
    names = {_words(row.get("name")): row["id"] for row in removed if _words(row.get("name"))}
    if not names:
        return []
    open_lines = Where(all_of=(Filter("is_purchased", "eq", False), Filter("source", "is_null", False)))
    lines = await work.store.select(SHOPPING_LIST, Query(where=open_lines, limit=MAX_OPEN_LINES), user_id=work.user_id)
    named = [(line, name) for line in lines for name in names
             if name in {_words(listed) for listed in listed_recipes(line.get("source"))}]
    if not named:
        return []
    still_there = await _recipe_names(work, sorted({str(row["name"]) for row in removed if row.get("name")}))
    return [(Unlinking(SHOPPING_LIST.name, "source", line), names[name]) for line, name in named if name not in still_there]


async def _recipe_names(work: UnitOfWork, names: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(names), MAX_IN_VALUES):
        where = Where(all_of=(Filter("name", "in", names[start:start + MAX_IN_VALUES]),))
        rows = await work.store.select(RECIPES, Query(where=where, columns=("id", "name")), user_id=work.user_id)
        found |= {_words(row.get("name")) for row in rows}
    return found


def _words(text: Any) -> str:
    """A name or source as comma-separated parts, trimmed and case-folded ('Pasta,  Curry' -> 'pasta, curry')."""
    return ", ".join(part.strip() for part in str(text or "").casefold().split(",") if part.strip())


async def _meals_noting(work: UnitOfWork, removed: Sequence[Row], already: set[str]) -> list[tuple[Unlinking, str]]:
    """Meals from today on (not already listed) whose notes name a removed recipe by the words of its name, each with
    the removed recipe's id."""
    names = {row["id"]: words for row in removed if (words := name_words(row.get("name")))}
    if not names:
        return []
    upcoming = Where(all_of=(Filter("notes", "is_null", False), Filter("date", "gte", date.today().isoformat())))
    meals = await work.store.select(MEAL_PLANS, Query(where=upcoming, limit=MAX_NOTED_MEALS), user_id=work.user_id)
    noted = [(meal, next((rid for rid, words in names.items() if names_it(meal.get("notes"), words)), None))
             for meal in meals if meal["id"] not in already]
    return [(Unlinking(MEAL_PLANS.name, "notes", meal), recipe) for meal, recipe in noted if recipe is not None]


def names_it(text: Any, recipe_words: frozenset[str]) -> bool:
    """`text` names a recipe whose name has `recipe_words` when it holds at least half of them, and two when the name
    has two or more ('leftover Greek chicken and potatoes' names 'Greek Lemon Chicken and Potatoes'; 'leftover
    chicken' does not name 'Chicken Fajitas')."""
    held = recipe_words & name_words(text)
    return len(held) * 2 >= len(recipe_words) and len(held) >= min(2, len(recipe_words))


def name_words(text: Any) -> frozenset[str]:
    """The words of a name that tell it apart, plurals folded ('Greek Lemon Chicken and Potatoes' -> greek, lemon,
    chicken, potato)."""
    return frozenset(word for word in fold_words(str(text or "")) if word not in _NOT_NAME_WORDS and not word.isdigit())
