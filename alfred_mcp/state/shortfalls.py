"""What a tool call did less than asked, read from its result's own structured fields: an ingredient meal_cooked could
not take out of the pantry, a line shopping_list_from left off the list, a draft draft_save did not save, a draft an
undo left open again. Each is a `Shortfall` (the thing, why); `warning` says it in one line for the result's `warnings`,
so a reply sent ahead is held back until its model has read it, and the reply check refuses a reply that leaves it out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

NO_QUANTITY = "the recipe gives no quantity"
"""meal_cooked's reason for an ingredient it took nothing of because the recipe asks for no amount ('salt, to taste')."""
DRAFT_AGAIN = "is a draft again, not saved"
"""Why an undone save leaves a draft: the reply must say it is not saved."""


@dataclass(frozen=True)
class Shortfall:
    """One part of a call's work not done: the thing (its ref when it has one, its label) and why."""

    label: str
    reason: str
    ref: str = ""

    @property
    def is_draft(self) -> bool:
        """A draft left open (not saved), rather than a part not done."""
        return self.reason == DRAFT_AGAIN

    def warning(self) -> str:
        return f"{self.label} {self.reason}" if self.is_draft else f"{self.label}: {self.reason}"


def shortfalls(tool: str, result: Mapping[str, Any], labels: Mapping[str, str] | None = None) -> list[Shortfall]:
    """The parts of `tool`'s work its `result` reports not done, in the result's order (`labels`: a reopened draft's
    label by its ref, where the result names it by ref only)."""
    found: list[Shortfall] = []
    for entry in _dicts(result.get("not_deducted")):  # meal_cooked ('salt, to taste' asks for no amount: nothing short)
        if entry.get("reason") != NO_QUANTITY:
            found.append(Shortfall(str(entry.get("name", "")), f"not taken out of the pantry ({entry.get('reason', 'not found')})"))
    for entry in _dicts(result.get("left_out")):  # shopping_list_from
        found.append(Shortfall(str(entry.get("name", "")), str(entry.get("text") or "left off the shopping list")))
    if tool == "draft_save":
        for entry in _dicts(result.get("items")):
            if entry.get("status") not in (None, "completed"):
                found.append(Shortfall(str(entry.get("label") or entry.get("ref", "")), f"not saved ({entry.get('reason') or 'failed'})",
                                       str(entry.get("ref", ""))))
    reopened = result.get("drafts_reopened")
    for entry in reopened if isinstance(reopened, list) else ():  # kitchen_undo
        ref, label = (entry, "") if isinstance(entry, str) else (str(entry.get("ref", "")), str(entry.get("label", "")))
        found.append(Shortfall(label or (labels or {}).get(ref) or ref, DRAFT_AGAIN, ref))
    return [shortfall for shortfall in found if shortfall.label]


def shortfall_warnings(tool: str, result: Mapping[str, Any], labels: Mapping[str, str] | None = None) -> dict[str, list[str]]:
    """{"warnings": [...]}: the result's own warnings and one line per shortfall (none when neither)."""
    own = result.get("warnings")
    warnings = [*(w for w in own if isinstance(w, str))] if isinstance(own, list) else []
    warnings += [shortfall.warning() for shortfall in shortfalls(tool, result, labels)]
    return {"warnings": warnings} if warnings else {}


def _dicts(value: Any) -> list[Mapping[str, Any]]:
    return [entry for entry in value if isinstance(entry, Mapping)] if isinstance(value, list) else []
