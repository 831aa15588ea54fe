"""What a call did less than asked, read from each tool's own result fields, and said as its warnings."""

from __future__ import annotations

from typing import Any

import pytest

from alfred_mcp.state.shortfalls import DRAFT_AGAIN, Shortfall, shortfall_warnings, shortfalls

RESULTS: dict[str, tuple[str, dict[str, Any], list[Shortfall]]] = {
    "meal_cooked, an ingredient not in the pantry": (
        "meal_cooked", {"not_deducted": [{"name": "panko breadcrumbs", "needed": "1/4 cup", "reason": "not in the pantry"}]},
        [Shortfall("panko breadcrumbs", "not taken out of the pantry (not in the pantry)")]),
    "meal_cooked, salt to taste asks for no amount": (
        "meal_cooked", {"not_deducted": [{"name": "salt", "needed": "to taste", "reason": "the recipe gives no quantity"}]}, []),
    "shopping_list_from, a line left off for an allergen": (
        "shopping_list_from", {"left_out": [{"name": "peanuts", "text": "left off: you are allergic to peanuts"}]},
        [Shortfall("peanuts", "left off: you are allergic to peanuts")]),
    "draft_save, a draft not saved": (
        "draft_save", {"items": [{"ref": "gen_recipe_1", "label": "Cod", "status": "completed"},
                                 {"ref": "gen_recipe_2", "label": "Herb Salmon", "status": "failed", "reason": "poison"}]},
        [Shortfall("Herb Salmon", "not saved (poison)", "gen_recipe_2")]),
    "kitchen_undo, a draft open again": (
        "kitchen_undo", {"drafts_reopened": ["gen_recipe_3"]}, [Shortfall("Smoky Bean Dip", DRAFT_AGAIN, "gen_recipe_3")]),
    "a call that did all it was asked": ("db_create", {"rows": [{"id": "shop_1"}]}, []),
}


@pytest.mark.parametrize("case", RESULTS.values(), ids=RESULTS.keys())
def test_each_tools_shortfalls_are_read_from_its_results_own_fields_and_warned_of(
        case: tuple[str, dict[str, Any], list[Shortfall]]) -> None:
    tool, result, expected = case
    labels = {"gen_recipe_3": "Smoky Bean Dip"}
    assert shortfalls(tool, result, labels) == expected
    warned = shortfall_warnings(tool, {**result, "warnings": ["a dislike"]}, labels)["warnings"]
    assert warned == ["a dislike", *(found.warning() for found in expected)]
    assert all(found.label in line for found, line in zip(expected, warned[1:], strict=True))
    assert shortfall_warnings(tool, result, labels) == ({"warnings": warned[1:]} if expected else {})
