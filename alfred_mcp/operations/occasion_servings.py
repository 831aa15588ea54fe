"""A meal planned on the occasion's day for another number than the occasion's is warned about, never refused.

'6 guests on Saturday' holds the occasion's days and servings (`state/occasion.py`); every write that plans a meal
(db_create or db_update on meal_plans, draft_create, draft_revise and draft_save of meal drafts) answers with one
warning per meal on one of those days that makes other servings than the occasion is for: the ones it names, else
the household's (`meal_servings`). A meal for fewer may be meant (lunch for the two hosts); the cook decides, having been told.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from alfred_mcp.kitchen.schema import MEAL_PLANS, row_label
from alfred_mcp.operations.double_booking import Slot
from alfred_mcp.operations.meal_servings import household
from alfred_mcp.operations.recipe_rows import saved_recipe_row
from alfred_mcp.operations.understanding import constraints_of
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.occasion import occasion_meals


async def occasion_warnings(work: UnitOfWork, slots: Sequence[Slot]) -> list[str]:
    """One warning per meal on the occasion's days that makes other servings than the occasion is for."""
    occasion = occasion_meals(constraints_of(work.session))
    if occasion is None:
        return []
    warnings = []
    for slot in slots:
        try:
            day = date.fromisoformat(slot.date)
        except ValueError:
            continue
        if not occasion.covers(day):
            continue
        made = slot.servings if slot.servings is not None else await _recipe_servings(work, slot.recipe)
        if made is not None and made != occasion.servings:
            label = row_label(MEAL_PLANS, {"date": slot.date, "meal_type": slot.meal_type})
            warnings.append(f"{slot.where}: {label} makes {made} servings; the occasion ({occasion.description}) is for "
                            f"{occasion.servings}")
    return warnings


async def _recipe_servings(work: UnitOfWork, ref: str | None) -> int | None:
    """The servings a meal planned without its own will make: the household's (`meal_servings`), else its saved
    recipe's (None for no recipe, or a draft not saved)."""
    found = await household(work)
    if found is not None:
        return found.servings
    row = await saved_recipe_row(work, ref, ("servings",)) if ref is not None else None
    servings = row.get("servings") if row else None
    return servings if isinstance(servings, int) else None
