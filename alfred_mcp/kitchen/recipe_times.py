"""How long a recipe takes, read the same way everywhere (search, cards, exports, views, quick answers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def total_minutes(recipe: Mapping[str, Any]) -> int | None:
    """The recipe's total time: `total_time_minutes` when stored (a page's total with resting or rising),
    else prep + cook of those known, else None (nothing known)."""
    total = recipe.get("total_time_minutes")
    if isinstance(total, int) and not isinstance(total, bool):
        return total
    known = [part for part in (recipe.get("prep_time_minutes"), recipe.get("cook_time_minutes")) if isinstance(part, int)]
    return sum(known) if known else None
