"""shopping_list_from: what recipes (or the meal plans of a date range) need, less the pantry, onto the list.

One line per ingredient and dimension: amounts merged with units converted (g + kg), kept apart when
they cannot be (cups and grams of flour). What the pantry holds is subtracted; an open line of the same
ingredient already on the list is topped up instead of duplicated. Every line names its recipes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.measures import amount_text, convert, convertible, sensible
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import INVENTORY, MEAL_PLANS, SHOPPING_LIST
from alfred_mcp.operations import allergies
from alfred_mcp.operations.allergies import AllergyOverride
from alfred_mcp.operations.crud import rows_to_refs
from alfred_mcp.operations.recipe_rows import RecipeRows, load_recipes

__all__ = ["ShoppingOutcome", "add_to_list", "load_recipes", "recipes_of_meals"]
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.pantry import EPSILON, Need, Stock, in_need_unit, needs_of, on_hand
from alfred_mcp.store.base import Row

MAX_MEALS = 200
TRACE_UNITS = frozenset({"pinch", "dash", "drop", "splash"})
"""A pinch of salt is covered by any salt in the pantry, whatever its unit."""
# A pantry row in a unit that does not compare (a bottle of olive oil against 2 tbsp, 5 lb of flour against
# 2 cups) counts as covering the need: it is listed under `covered` with a note to check, not bought again.
MAX_SOURCE = 200


@dataclass
class ShoppingOutcome:
    lines: list[dict[str, Any]] = field(default_factory=list)
    covered: list[dict[str, Any]] = field(default_factory=list)
    meals: int = 0


async def recipes_of_meals(work: UnitOfWork, start: date, end: date) -> tuple[list[tuple[RecipeRows, float]], int]:
    """(recipe, servings factor) for each planned meal with a recipe from `start` to `end`, and the meal count."""
    if end < start:
        raise InputError("meal_plans.to: the range ends before it starts.", field="meal_plans.to")
    where = Where(all_of=(Filter("date", "gte", start.isoformat()), Filter("date", "lte", end.isoformat()),
                          Filter("recipe_id", "is_null", False)))
    meals = await work.store.select(MEAL_PLANS, Query(where=where, limit=MAX_MEALS), user_id=work.user_id)
    if not meals:
        raise InputError(f"meal_plans: no planned meal with a recipe from {start} to {end}.", field="meal_plans")
    views = await rows_to_refs(work, MEAL_PLANS, meals, action="read")
    refs = [view["recipe_id"] for view in views]
    loaded = {rows.ref: rows for rows in await load_recipes(work, refs, field="meal_plans")}
    uses = []
    for meal, ref in zip(meals, refs):
        recipe = loaded[ref]
        base = recipe.recipe.get("servings")
        uses.append((recipe, meal["servings"] / base if base and meal.get("servings") else 1.0))
    return uses, len(meals)


async def add_to_list(
    work: UnitOfWork, uses: list[tuple[RecipeRows, float]], allergy_override: AllergyOverride | None = None,
) -> ShoppingOutcome:
    """Add what the recipes need and the pantry lacks; top up open lines of the same ingredient.

    Raises:
        AllergenError: a line would hold one of the user's allergens and `allergy_override` does not
            cover it (nothing is written).
    """
    needs = needs_of((recipe.ref, row, factor) for recipe, factor in uses for row in recipe.ingredients)
    names = {recipe.ref: recipe.name for recipe, _ in uses}
    pantry = Stock(await work.store.select(INVENTORY, Query(limit=5_000), user_id=work.user_id))
    open_lines = Stock(await work.store.select(
        SHOPPING_LIST, Query(where=Where(all_of=(Filter("is_purchased", "eq", False),)), limit=5_000), user_id=work.user_id))
    outcome = ShoppingOutcome()
    inserts: list[tuple[Need, Row, str | None]] = []
    updates: list[tuple[Need, Row, Row, str | None]] = []
    for need in needs:
        siblings = [other for other in needs if other is not need and (other.ingredient_id or other.key) == (need.ingredient_id or need.key)]
        stock = [row for row in pantry.matching(need.name, need.ingredient_id)
                 if not any(in_need_unit(other, 1.0, row.get("unit")) is not None for other in siblings)]
        missing, note = _missing(need, stock)
        if missing is not None and missing <= EPSILON:
            outcome.covered.append({"name": need.name, "recipes": need.recipes, "note": note})
            continue
        source = _source(need, names)
        existing = _open_line(need, open_lines.matching(need.name, need.ingredient_id))
        if existing is not None:
            updates.append((need, existing, _topped_up(existing, need, missing, source), note))
        else:
            inserts.append((need, _new_line(need, missing, source), note))
    written = [row for _, row, _ in inserts] + [{**existing, **values} for _, existing, values, _ in updates]
    override_note = await allergies.check_rows(work, SHOPPING_LIST, written, allergy_override)
    async with work.atomic():
        if inserts:
            rows = await work.store.insert(SHOPPING_LIST, [row for _, row, _ in inserts], user_id=work.user_id)
            await _report(work, outcome, [(need, row, note) for (need, _, note), row in zip(inserts, rows)], "added")
        for need, existing, values, note in updates:
            (row,) = await work.store.update(SHOPPING_LIST, Where(all_of=(Filter("id", "eq", existing["id"]),)), values,
                                             user_id=work.user_id)
            await _report(work, outcome, [(need, row, note)], "updated")
    refs = [line["ref"] for line in outcome.lines]
    work.session.record_call(CallRecord(turn=work.session.turn, tool="shopping_list_from", table="shopping_list",
                                        action="created", refs=refs, count=len(refs), note=override_note))
    return outcome


def _missing(need: Need, stock: list[Row]) -> tuple[float | None, str | None]:
    """What is still needed after the pantry (None: an unmeasured need), and a note on what could not count."""
    have, apart = on_hand(need, stock)
    if need.quantity is None or need.shown_in in TRACE_UNITS:
        return (0.0 if have > 0 or apart else None), None
    missing = need.quantity - have
    if missing > EPSILON and apart:
        wanted = sensible(need.amount(missing)).text
        return 0.0, f"the pantry has {', '.join(apart)}: not comparable with {wanted}; check there is enough"
    return missing, None


def _open_line(need: Need, lines: list[Row]) -> Row | None:
    return next((row for row in lines if convertible(row.get("unit"), need.unit)), None)


def _new_line(need: Need, missing: float | None, source: str) -> Row:
    row: Row = {"name": need.name, "source": source}
    if need.ingredient_id:
        row["ingredient_id"] = need.ingredient_id
    if missing is not None:
        shown = sensible(need.amount(missing))
        row.update(quantity=shown.quantity, unit=shown.unit)
    return row


def _topped_up(existing: Row, need: Need, missing: float | None, source: str) -> Row:
    values: Row = {"source": _joined(existing.get("source"), source)}
    if missing is not None:
        added = convert(missing, need.unit, existing.get("unit"))
        total = float(existing.get("quantity") or 0) + added
        values["quantity"] = round(total, 4)
    return values


def _source(need: Need, names: dict[str, str]) -> str:
    return _joined(None, ", ".join(names[ref] for ref in need.recipes))


def _joined(old: Any, new: str) -> str:
    parts = [part.strip() for part in f"{old or ''}, {new}".split(",") if part.strip()]
    return ", ".join(dict.fromkeys(parts))[:MAX_SOURCE]


async def _report(work: UnitOfWork, outcome: ShoppingOutcome, written: list[tuple[Need, Row, str | None]], action: str) -> None:
    views = await rows_to_refs(work, SHOPPING_LIST, [row for _, row, _ in written], action="created" if action == "added" else "updated")
    for (need, row, note), view in zip(written, views):
        line = {"ref": view["id"], "name": row["name"], "quantity": row.get("quantity"), "unit": row.get("unit"),
                "text": amount_text(row.get("quantity"), row.get("unit")) or "some", "recipes": need.recipes, "action": action}
        if note:
            line["note"] = note
        outcome.lines.append(line)
