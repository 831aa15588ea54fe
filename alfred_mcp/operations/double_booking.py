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
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPES, row_label
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.drafts import Draft

SINGLE_MEALS = frozenset({"breakfast", "lunch", "dinner"})
"""Meal types a day has one of; a second is a double booking."""


@dataclass(frozen=True)
class Slot:
    """A meal being planned: where it is in the call (data[1], gen_meal_2), its day and meal, and its own ref."""

    where: str
    date: str
    meal_type: str
    ref: str | None = None


def slots_of_rows(rows: Sequence[Mapping[str, Any]]) -> list[Slot]:
    """The slots of meal_plans rows a write returned (each its own ref)."""
    return [Slot(str(row.get("id")), str(row.get("date")), str(row.get("meal_type")), str(row.get("id"))) for row in rows]


def slots_of_drafts(drafts: Sequence[Draft]) -> list[Slot]:
    """The slots of the meal drafts among `drafts` (a saved one named by its saved ref)."""
    slots = []
    for draft in drafts:
        if draft.entity_type == "meal":
            content = draft.parsed()
            when, meal = getattr(content, "date", None), getattr(content, "meal_type", None)
            slots.append(Slot(draft.ref, str(when), str(meal), draft.saved_as))
    return slots


async def booking_warnings(work: UnitOfWork, slots: Sequence[Slot]) -> list[str]:
    """One warning per slot whose day already has that meal (breakfast, lunch or dinner) planned by another row."""
    warnings = []
    for slot in slots:
        if slot.meal_type not in SINGLE_MEALS:
            continue
        where = Where(all_of=(Filter("date", "eq", slot.date), Filter("meal_type", "eq", slot.meal_type)))
        rows = await work.store.select(MEAL_PLANS, Query(where=where, limit=20), user_id=work.user_id)
        taken = [meal for row in rows if (meal := await _named(work, row, slot.ref)) is not None]
        if taken:
            warnings.append(f"{slot.where}: {row_label(MEAL_PLANS, {'date': slot.date, 'meal_type': slot.meal_type})} "
                            f"already has {', '.join(taken)}; this plans a second {slot.meal_type} that day")
    return warnings


async def _named(work: UnitOfWork, row: Mapping[str, Any], own_ref: str | None) -> str | None:
    """'meal_3 (Salmon Tacos, recipe_2)' for a meal other than `own_ref`; only the meal gets a ref if it had none (the
    recipe is named, and its ref given when it has one), so naming it renumbers nothing else."""
    registry, turn = work.session.registry, work.session.turn
    ref = registry.ref_for_row(str(row["id"])) or registry.register_row(
        MEAL_PLANS.entity_type, str(row["id"]), row_label(MEAL_PLANS, dict(row)), turn=turn, action="read")
    if ref == own_ref:
        return None
    if not row.get("recipe_id"):
        return f"{ref} (no recipe)"
    found = await work.store.select(RECIPES, Query(where=Where(all_of=(Filter("id", "eq", row["recipe_id"]),)), limit=1),
                                    user_id=work.user_id)
    recipe_ref = registry.ref_for_row(str(row["recipe_id"]))
    names = [str(found[0]["name"])] if found else []
    return f"{ref} ({', '.join([*names, *([recipe_ref] if recipe_ref else [])]) or 'a recipe'})"
