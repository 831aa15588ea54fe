"""A meal planned where one is already planned (a second dinner on Friday) is warned about, never refused.

Every write that plans (db_create or db_update on meal_plans, draft_create, draft_revise and draft_save of meal
drafts) answers with one warning per meal it plans into a taken slot, naming the meal already there by ref and
its recipe, so the client (and Act's notice) can say so or move it. Snacks and 'other' meals may be many a day.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPES, meal_note, row_label
from alfred_mcp.operations.crud import ref_of
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.drafts import Draft

SINGLE_MEALS = frozenset({"breakfast", "lunch", "dinner"})
"""Meal types a day has one of; a second is a double booking."""


@dataclass(frozen=True)
class Slot:
    """A meal being planned: where it is in the call (data[1], gen_meal_2), its day and meal, and its own ref; the
    servings it makes and the recipe it plans (a ref), when given."""

    where: str
    date: str
    meal_type: str
    ref: str | None = None
    servings: int | None = None
    recipe: str | None = None


def slots_of_rows(rows: Sequence[Mapping[str, Any]]) -> list[Slot]:
    """The slots of meal_plans rows a write returned (each its own ref)."""
    return [Slot(str(row.get("id")), str(row.get("date")), str(row.get("meal_type")), str(row.get("id")),
                 _count(row.get("servings")), _text(row.get("recipe_id"))) for row in rows]


def slots_of_drafts(drafts: Sequence[Draft]) -> list[Slot]:
    """The slots of the meal drafts among `drafts` (a saved one named by its saved ref)."""
    slots = []
    for draft in drafts:
        if draft.entity_type == "meal":
            content = draft.parsed()
            when, meal = getattr(content, "date", None), getattr(content, "meal_type", None)
            servings, recipe = getattr(content, "servings", None), getattr(content, "recipe", None)
            slots.append(Slot(draft.ref, str(when), str(meal), draft.saved_as, _count(servings), _text(recipe)))
    return slots


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


async def booking_warnings(work: UnitOfWork, slots: Sequence[Slot]) -> list[str]:
    """One warning per slot whose day already has that meal (breakfast, lunch or dinner) planned by another row.

    However many meals the write plans, the meals already there are read in one query (every day and meal of the
    write, matched to their slots here) and the recipes they name in one more."""
    single = [slot for slot in slots if slot.meal_type in SINGLE_MEALS]
    if not single:
        return []
    planned = await _meals_on(work, single)
    recipes = await _recipe_names(work, [row for rows in planned.values() for row in rows])
    warnings = []
    for slot in single:
        named = (_named(work, row, slot.ref, recipes) for row in planned.get((slot.date, slot.meal_type), ()))
        taken = [meal for meal in named if meal is not None]
        if taken:
            warnings.append(f"{slot.where}: {row_label(MEAL_PLANS, {'date': slot.date, 'meal_type': slot.meal_type})} "
                            f"already has {', '.join(taken)}; this plans a second {slot.meal_type} that day")
    return warnings


async def _meals_on(work: UnitOfWork, slots: Sequence[Slot]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The meal_plans rows on the slots' days and meals, by (date, meal_type): one query for them all."""
    where = Where(all_of=(Filter("date", "in", sorted({slot.date for slot in slots})),
                          Filter("meal_type", "in", sorted({slot.meal_type for slot in slots}))))
    rows = await work.store.select(MEAL_PLANS, Query(where=where, columns=("date", "meal_type", "recipe_id", "notes")), user_id=work.user_id)
    planned: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        planned.setdefault((str(row["date"]), str(row["meal_type"])), []).append(row)
    return planned


async def _recipe_names(work: UnitOfWork, rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Recipe row id -> name, for the recipes `rows` name: one query, none when they name no recipe."""
    ids = sorted({str(row["recipe_id"]) for row in rows if row.get("recipe_id")})
    if not ids:
        return {}
    found = await work.store.select(RECIPES, Query(where=Where(all_of=(Filter("id", "in", ids),)), columns=("name",)),
                                    user_id=work.user_id)
    return {str(row["id"]): str(row["name"]) for row in found}


def _named(work: UnitOfWork, row: Mapping[str, Any], own_ref: str | None, recipes: Mapping[str, str]) -> str | None:
    """'meal_3 (Salmon Tacos, recipe_2)', 'meal_4 (no recipe, planned as "leftover chili")' for a meal other than `own_ref`; only the meal gets a ref if it had none (the
    recipe is named, and its ref given when it has one), so naming it renumbers nothing else."""
    registry, ref = work.session.registry, ref_of(work, MEAL_PLANS, row)
    if ref == own_ref:
        return None
    if not row.get("recipe_id"):
        note = meal_note(row)
        return f'{ref} (no recipe, planned as "{note}")' if note else f"{ref} (no recipe)"
    recipe_ref = registry.ref_for_row(str(row["recipe_id"]))
    name = recipes.get(str(row["recipe_id"]))
    return f"{ref} ({', '.join([*([name] if name else []), *([recipe_ref] if recipe_ref else [])]) or 'a recipe'})"
