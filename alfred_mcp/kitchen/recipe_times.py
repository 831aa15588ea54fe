"""How long a recipe takes, read the same way everywhere (search, cards, exports, views, quick answers), and written
as a cook writes it ('1 hr 20 min'); the data keeps whole minutes."""

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


def duration_text(minutes: int) -> str:
    """'45 min', '1 hr', '1 hr 20 min', '2 hr 5 min': minutes as a person reads a time."""
    hours, rest = divmod(max(0, int(minutes)), 60)
    if not hours:
        return f"{rest} min"
    return f"{hours} hr" + (f" {rest} min" if rest else "")
