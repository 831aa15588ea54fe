"""meal_cooked: take what a cooked recipe used out of the pantry, unit-converted, and log the meal.

Each ingredient is taken from the matching pantry rows, soonest expiry first (rows past their use-by date last); a row that runs out stays
at 0 (used up, not deleted). A row in a unit that does not convert is counted as the shop sells it, full, as
shopping_list_from counts it (a bottle of olive oil is about 2 cups: 2 tbsp leave 'about 1 3/4 cups of the bottle'), and
what is left is said as a cook writes it (`measures.held`: '1 head and 7 cloves', never '0.938 bottle').
What cannot be taken is reported with the reason: not in the pantry, a unit that does not convert even so
(cans of an unknown size against grams; what it holds said as a cook writes it, `pantry.held_apart`), not enough, or
no quantity in the recipe.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.measures import Amount, held, sensible
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import COOKING_LOG, INVENTORY, MEAL_PLANS
from alfred_mcp.operations.crud import rows_to_refs
from alfred_mcp.operations.meal_servings import household
from alfred_mcp.operations.recipe_rows import RecipeRows, load_recipes
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.pantry import EPSILON, DeductPlan, Need, Stock, about_in_need_unit, needs_of, plan_deduction
from alfred_mcp.store.base import Row


@dataclass
class Cooked:
    recipe: str
    name: str
    servings: int | None
    log: str
    servings_from: str | None = None
    """Whose number `servings` is when none was given: "meal_3's plan", "the household: 2 adults, 1 kid", "recipe_2 as written"."""
    deducted: list[dict[str, Any]] = field(default_factory=list)
    not_deducted: list[dict[str, Any]] = field(default_factory=list)


async def cook(
    work: UnitOfWork, *, recipe: str | None, meal: str | None, servings: int | None, rating: int | None = None, notes: str | None = None,
    today: date | None = None,
) -> Cooked:
    """Deduct the recipe's ingredients (scaled to `servings`, else the meal's, the household's or the recipe's: said in
    `servings_from`) and write a cooking log entry (with the
    `rating` and `notes` given). Given `today`, rows past their use-by date are taken from last."""
    meal_row = await _meal(work, meal) if meal else None
    recipe_ref = recipe or (meal_row or {}).get("recipe_ref")
    if recipe_ref is None:
        raise InputError(f"meal: {meal} has no recipe planned; name the recipe instead.", field="meal", value=meal)
    (loaded,) = await load_recipes(work, [recipe_ref], field="recipe" if recipe else "meal")
    servings_from = None if servings else await _default_servings(work, meal, meal_row, loaded)
    servings = servings or (servings_from[0] if servings_from else None)
    factor = servings / loaded.recipe["servings"] if servings and loaded.recipe.get("servings") else 1.0
    pantry = Stock(await work.store.select(INVENTORY, Query(limit=5_000), user_id=work.user_id))
    outcome = Cooked(loaded.ref, str(loaded.recipe["name"]), servings, log="", servings_from=servings_from[1] if servings_from else None)
    changes: dict[str, tuple[Row, float]] = {}
    for need in needs_of((loaded.ref, row, factor) for row in loaded.ingredients):
        _take(need, pantry, changes, outcome, None if today is None else today.isoformat())
    async with work.atomic():
        for row, left in changes.values():
            await work.store.update(INVENTORY, Where(all_of=(Filter("id", "eq", row["id"]),)), {"quantity": round(left, 4)},
                                    user_id=work.user_id)
        await _name_rows(work, outcome, [row for row, _ in changes.values()])
        outcome.log = await _log(work, loaded, servings, meal_row, {"rating": rating, "notes": notes})
    work.session.record_call(CallRecord(turn=work.session.turn, tool="meal_cooked", table="inventory", action="updated",
                                        refs=[line["ref"] for line in outcome.deducted], count=len(outcome.deducted)))
    # the cook itself is a fact of the turn too: a reply saying it was logged is backed by it
    work.session.record_call(CallRecord(turn=work.session.turn, tool="meal_cooked", table=COOKING_LOG.name, action="created",
                                        refs=[outcome.log], count=1))
    return outcome


async def _default_servings(work: UnitOfWork, meal: str | None, meal_row: Row | None, loaded: RecipeRows) -> tuple[int, str] | None:
    """The servings a cook logged without a number was for, and whose: the meal's planned servings, else the
    household's (as a meal planned without servings is), else the recipe's as written; None: none of them says."""
    if meal_row is not None and meal_row.get("servings"):
        return int(meal_row["servings"]), f"{meal}'s plan"
    if (found := await household(work)) is not None:
        return found.servings, f"the household: {found.described}"
    return (int(loaded.recipe["servings"]), f"{loaded.ref} as written") if loaded.recipe.get("servings") else None


def _take(need: Need, pantry: Stock, changes: dict[str, tuple[Row, float]], outcome: Cooked, today: str | None) -> None:
    """Plan one ingredient's deduction against the rows as already reduced by earlier ingredients."""
    needed = need.text()
    if need.quantity is None:
        outcome.not_deducted.append({"name": need.name, "needed": needed, "reason": "the recipe gives no quantity"})
        return
    rows = [{**row, "quantity": changes[row["id"]][1]} if row["id"] in changes else row
            for row in pantry.matching(need.name, need.ingredient_id, need.kind)]
    if not rows:
        outcome.not_deducted.append({"name": need.name, "needed": needed, "reason": "not in the pantry"})
        return
    plan = plan_deduction(need, rows, today)
    for step in plan.deductions:
        changes[step.row["id"]] = (step.row, step.left)
        used = about_in_need_unit(need, step.used, step.row.get("unit"))[0] or 0.0
        left = held(Amount(step.left, step.row.get("unit")), step.row["name"])
        if step.estimated and not left.startswith("about") and " about " not in left:
            about, _ = about_in_need_unit(need, step.left, step.row.get("unit"))
            left = f"{left} (about {sensible(need.amount(about or 0.0), need.name).text})"
        outcome.deducted.append({"row_id": step.row["id"], "name": step.row["name"], "used": sensible(need.amount(used), need.name).text,
                                 "left": left})
    if plan.shortfall > EPSILON:
        outcome.not_deducted.append({"name": need.name, "needed": needed, "reason": _why_short(need, plan)})


def _why_short(need: Need, plan: DeductPlan) -> str:
    """Why part of `need` was not taken: what the pantry lacked, and what it holds that does not compare."""
    apart = ", ".join(plan.apart)
    unit = need.shown_in or "pieces"
    unknown = f"{apart}, which does not convert to {unit} (how much one holds is not known)"
    if plan.apart and not plan.deductions:
        return f"the pantry has it only as {unknown}"
    short = f"{sensible(need.amount(plan.shortfall), need.name).text} more than the pantry had"
    return f"{short}; it also has {unknown}" if plan.apart else short


async def _meal(work: UnitOfWork, ref: str) -> dict[str, Any]:
    row_id = work.session.registry.resolve(ref, expected_type="meal", field="meal")
    rows = await work.store.select(MEAL_PLANS, Query(where=Where(all_of=(Filter("id", "eq", row_id),))), user_id=work.user_id)
    if not rows:
        raise InputError(f"meal: {ref} no longer exists.", field="meal", value=ref)
    (view,) = await rows_to_refs(work, MEAL_PLANS, rows, action="read")
    return {**rows[0], "ref": view["id"], "recipe_ref": view.get("recipe_id")}


async def _name_rows(work: UnitOfWork, outcome: Cooked, rows: list[Row]) -> None:
    views = await rows_to_refs(work, INVENTORY, rows, action="updated")
    ref_of = {row["id"]: view["id"] for row, view in zip(rows, views)}
    for line in outcome.deducted:
        line["ref"] = ref_of[line.pop("row_id")]


async def _log(
    work: UnitOfWork, recipe: RecipeRows, servings: int | None, meal: dict[str, Any] | None, how_it_went: dict[str, Any]
) -> str:
    row: Row = {"recipe_id": recipe.recipe["id"], "servings": servings, **{k: v for k, v in how_it_went.items() if v is not None}}
    if meal is not None:
        row["from_meal_plan_id"] = meal["id"]
    inserted = await work.store.insert(COOKING_LOG, [row], user_id=work.user_id)
    (view,) = await rows_to_refs(work, COOKING_LOG, inserted, action="created")
    return str(view["id"])
