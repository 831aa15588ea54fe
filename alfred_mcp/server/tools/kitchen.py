"""Kitchen tools over several tables: shopping_list_from, meal_cooked, kitchen_undo."""

from __future__ import annotations

from datetime import date
from typing import Any

from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import InputError, require_one_of
from alfred_mcp.kitchen.plurals import counted
from alfred_mcp.operations import cooking, drafting, shopping, undo
from alfred_mcp.operations.allergies import parse_override
from alfred_mcp.operations.cooked_lines import still_listed
from alfred_mcp.operations.still_planned import still_planned
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult, iso_date, work_on
from alfred_mcp.server.tools.common import session_context as _context
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.pantry import name_key
from alfred_mcp.state.shortfalls import shortfall_warnings


async def shopping_list_from(app: AlfredApp, args: ToolArgs) -> ToolResult:
    require_one_of(args, {"recipes": "refs", "meal_plans": "{from, to}"})
    if args.get("servings") and args.get("recipes") is None:
        raise InputError("servings: give it with recipes (meal plans are listed at their own servings).", field="servings")
    async with work_on(app, "shopping_list_from", args) as work:
        if args.get("recipes") is not None:
            uses, meals, cooked = await shopping.recipe_uses(work, args["recipes"], args.get("servings") or {}), 0, 0
        else:
            span = args["meal_plans"]
            uses, meals, cooked = await shopping.recipes_of_meals(work, iso_date(span["from"], "meal_plans.from"), iso_date(span["to"], "meal_plans.to", end=True))
        preview = bool(args.get("preview"))
        outcome = await shopping.add_to_list(work, uses, parse_override(args.get("allergy_override")), preview=preview,
                                             today=date.today())
        outcome.optional = _optional_not_told(outcome)
        message = " ".join([*outcome.left_out_said, *([_nothing_added(outcome, preview)] if not outcome.lines else []),
                            *([f"{counted(cooked, 'meal')} cooked already, left out."] if cooked else []),
                            *([said] if (said := outcome.optional_said()) and not _listed_before(outcome, preview) else [])])
        result = {
            **({"left_out": outcome.left_out} if outcome.left_out else {}), **({"message": message} if message else {}),
            "lines": outcome.lines, **_counts(outcome.lines), "covered": outcome.covered, "already_listed": outcome.already,
            "recipes": list(dict.fromkeys(use.recipe.ref for use in uses)), "meals": meals,
            **({"preview": True} if preview else {}), **_context(work.session),
        }
        return {**result, **shortfall_warnings("shopping_list_from", result)}


def _optional_not_told(outcome: shopping.ShoppingOutcome) -> dict[str, list[str]]:
    """The optional ingredients not added, without those the result tells already (listed, covered by the pantry or on
    the list for another recipe that needs them): each thing said once."""
    told = {name_key(str(row.get("name") or "")) for rows in (outcome.lines, outcome.covered, outcome.already) for row in rows}
    kept = {recipe: [name for name in names if name_key(name) not in told] for recipe, names in outcome.optional.items()}
    return {recipe: names for recipe, names in kept.items() if names}


def _listed_before(outcome: shopping.ShoppingOutcome, preview: bool) -> bool:
    """A list made again: nothing added and what is needed already on it (its first listing named the optional ones)."""
    return not preview and not outcome.lines and bool(outcome.already)


def _counts(lines: list[dict[str, Any]]) -> dict[str, int]:
    """How many lines are new and how many topped up a line already on the list (said apart, never all 'added')."""
    topped = sum(1 for line in lines if line.get("action") == "updated")
    return {"added": len(lines) - topped, "topped_up": topped}


def _nothing_added(outcome: shopping.ShoppingOutcome, preview: bool) -> str:
    nothing = "Nothing to add" if preview else "Nothing added"
    if outcome.left_out:
        return "Nothing else to add." if preview else "Nothing else added."
    if outcome.already:
        return f"{nothing}: everything these need is already on the list (or in the pantry)."
    return f"{nothing}: the pantry already has everything these need."


async def meal_cooked(app: AlfredApp, args: ToolArgs) -> ToolResult:
    require_one_of(args, {"recipe": "a recipe ref", "meal": "a meal plan ref"})
    async with work_on(app, "meal_cooked", args) as work:
        cooked = await cooking.cook(work, recipe=args.get("recipe"), meal=args.get("meal"), servings=args.get("servings"),
                                    rating=args.get("rating"), notes=args.get("notes"), today=date.today())
        result = {
            "recipe": cooked.recipe, **({"meal": args["meal"]} if args.get("meal") else {}), "servings": cooked.servings,
            **({"servings_from": cooked.servings_from} if cooked.servings_from else {}), "log": cooked.log,
            **{key: args[key] for key in ("rating", "notes") if args.get(key) is not None}, "deducted": cooked.deducted,
            "not_deducted": cooked.not_deducted, **await _still_planned(work, cooked.recipe, args.get("meal")),
            **({"still_listed": listed} if (listed := await still_listed(work, cooked.name)) else {}), **_context(work.session),
        }
        return {**result, **shortfall_warnings("meal_cooked", result)}


async def _still_planned(work: UnitOfWork, recipe: str, meal: str | None) -> dict[str, list[str]]:
    """{"still_planned": [...]}: the recipe's other meals not logged cooked (`operations/still_planned.py`), else nothing."""
    meals = await still_planned(work, recipe, cooked_meal=meal, today=date.today())
    return {"still_planned": meals} if meals else {}


async def kitchen_undo(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "kitchen_undo", args) as work:
        undone = await undo.undo_last(work, turn=args.get("turn"))
        result = {
            "undone": {"tool": undone.entry.tool, "turn": undone.entry.turn}, "removed": undone.removed,
            "restored": undone.restored, "reverted": undone.reverted, "drafts_reopened": undone.drafts_reopened,
            "unlinked": undone.unlinked, "relinked": undone.relinked, "changed": undone.rows, "remaining": undone.remaining, **_context(work.session),
        }
        labels = {draft.ref: draft.label for draft in drafting.load_drafts(work.session, undone.drafts_reopened)}
        return {**result, **shortfall_warnings("kitchen_undo", result, labels)}


HANDLERS: dict[str, Handler] = {
    "shopping_list_from": shopping_list_from,
    "meal_cooked": meal_cooked,
    "kitchen_undo": kitchen_undo,
}
