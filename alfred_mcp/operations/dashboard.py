"""The kitchen dashboard: counts by type, what expires soon, the next meals; refs only.

Think reads it as a snapshot of the kitchen (seed 001) and clients read it as the resource
`alfred://kitchen/dashboard`. Rows it names get refs in the session without being touched:
they are registered like foreign-key targets ('linked'), so looking at the dashboard does not
pull them into the working set.
"""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta
from typing import Any, TypedDict

from alfred_mcp.kitchen.query import Filter, OrderBy, Query, Where
from alfred_mcp.kitchen.schema import (
    COOKING_LOG,
    INVENTORY,
    MEAL_PLANS,
    MEAL_TYPES,
    RECIPES,
    SHOPPING_LIST,
    TASKS,
    Table,
    meal_note,
    row_label,
)
from alfred_mcp.operations.meal_week import cooked_meal_ids
from alfred_mcp.session import Session, UnitOfWork
from alfred_mcp.store.base import KitchenStore, Row


class DatedItem(TypedDict):
    """A pantry item with its expiry date and the days left (negative: past it)."""

    ref: str
    label: str | None
    expiry_date: str
    days_left: int
    location: str | None


class _Cooked(TypedDict, total=False):
    cooked: bool
    """True for a meal meal_cooked logged (done); left out otherwise."""
    note: str
    """The meal's note ('leftover Greek chicken'), as `schema.meal_note` cuts it; left out when it has none. A meal with a note
    and no recipe is planned all the same: a summary that left the note out would show it as a free slot."""


class NextMeal(_Cooked):
    ref: str
    label: str | None
    date: str
    meal_type: str
    recipe: str | None
    recipe_label: str | None


class Dashboard(TypedDict):
    """The kitchen at a glance, refs only (what Think reads and the dashboard resource shows)."""

    today: str
    horizon_days: int
    counts: dict[str, int]
    recipes_by_cuisine: dict[str, int]
    inventory_by_location: dict[str, int]
    shopping_to_buy: int
    tasks_open: int
    expiring_soon: list[DatedItem]
    expiring_soon_total: int
    expired: list[DatedItem]
    expired_total: int
    next_meals: list[NextMeal]
    next_meals_total: int
    """How many meals are planned from today on (next_meals shows the first few): lists say what they leave out."""


HORIZON_DAYS = 3
NEXT_MEALS = 7
MAX_LISTED = 15


async def build_dashboard(
    work: UnitOfWork, *, today: date, horizon_days: int = HORIZON_DAYS, meals: int = NEXT_MEALS
) -> Dashboard:
    """The dashboard of the session's user as of `today` (JSON-ready)."""
    store, session, user = work.store, work.session, work.user_id
    recipes = await store.select(RECIPES, Query(columns=("id", "cuisine")), user_id=user)
    pantry = await store.select(INVENTORY, Query(columns=("id", "name", "location", "expiry_date")), user_id=user)
    soon, expired = _by_expiry(pantry, today=today, horizon_days=horizon_days)
    upcoming, upcoming_total = await _next_meals(store, user, today=today, limit=meals)
    cooked = await cooked_meal_ids(store, user, [meal["id"] for meal, _ in upcoming])
    dashboard: Dashboard = {
        "today": today.isoformat(),
        "horizon_days": horizon_days,
        "counts": {
            "recipes": len(recipes),
            "inventory": len(pantry),
            "shopping_list": await store.count(SHOPPING_LIST, Where(), user_id=user),
            "meal_plans": await store.count(MEAL_PLANS, Where(), user_id=user),
            "tasks": await store.count(TASKS, Where(), user_id=user),
            "cooking_log": await store.count(COOKING_LOG, Where(), user_id=user),
        },
        "recipes_by_cuisine": _counts(row.get("cuisine") or "unset" for row in recipes),
        "inventory_by_location": _counts(row.get("location") or "unset" for row in pantry),
        "shopping_to_buy": await store.count(SHOPPING_LIST, _eq("is_purchased", False), user_id=user),
        "tasks_open": await store.count(TASKS, _eq("completed", False), user_id=user),
        "expiring_soon": [_dated(session, row, today) for row in soon[:MAX_LISTED]],
        "expiring_soon_total": len(soon),
        "expired": [_dated(session, row, today) for row in expired[:MAX_LISTED]],
        "expired_total": len(expired),
        "next_meals": [_meal(session, meal, recipe, meal["id"] in cooked) for meal, recipe in upcoming],
        "next_meals_total": upcoming_total,
    }
    return dashboard


def _eq(column: str, value: Any) -> Where:
    return Where(all_of=(Filter(column, "eq", value),))


def _counts(values: Any) -> dict[str, int]:
    """Counts, largest first, ties by name."""
    return dict(sorted(Counter(values).items(), key=lambda item: (-item[1], item[0])))


def _by_expiry(rows: list[Row], *, today: date, horizon_days: int) -> tuple[list[Row], list[Row]]:
    dated = sorted((row for row in rows if row.get("expiry_date")), key=lambda r: (r["expiry_date"], r["name"]))
    limit = (today + timedelta(days=horizon_days)).isoformat()
    now = today.isoformat()
    return [r for r in dated if now <= r["expiry_date"] <= limit], [r for r in dated if r["expiry_date"] < now]


async def meals_on(work: UnitOfWork, day: date) -> list[NextMeal]:
    """The meals planned on `day`, breakfast to dinner, with their refs, recipes and notes (cooked ones marked)."""
    planned, _ = await _next_meals(work.store, work.user_id, today=day, limit=MAX_LISTED, until=day)
    cooked = await cooked_meal_ids(work.store, work.user_id, [meal["id"] for meal, _ in planned])
    return [_meal(work.session, meal, recipe, meal["id"] in cooked) for meal, recipe in planned]


async def _next_meals(
    store: KitchenStore, user_id: str, *, today: date, limit: int, until: date | None = None
) -> tuple[list[tuple[Row, Row | None]], int]:
    """The next `limit` planned meals with their recipes (up to `until`, when given), and how many are planned from
    today on (to `until`)."""
    where = Where(all_of=(Filter("date", "gte", today.isoformat()),
                          *((Filter("date", "lte", until.isoformat()),) if until is not None else ())))
    order = (OrderBy("date"),)
    rows = await store.select(MEAL_PLANS, Query(where=where, order_by=order, columns=("id", "date", "meal_type", "recipe_id", "notes")),
                              user_id=user_id)
    rows.sort(key=lambda r: (r["date"], MEAL_TYPES.index(r["meal_type"]) if r["meal_type"] in MEAL_TYPES else len(MEAL_TYPES)))
    total = len(rows)
    rows = rows[:limit]
    recipe_ids = sorted({r["recipe_id"] for r in rows if r.get("recipe_id")})
    recipes: dict[str, Row] = {}
    if recipe_ids:
        found = await store.select(RECIPES, Query(where=Where(all_of=(Filter("id", "in", recipe_ids),)), columns=("id", "name")),
                                   user_id=user_id)
        recipes = {row["id"]: row for row in found}
    return [(row, recipes.get(row.get("recipe_id") or "")) for row in rows], total


def _link(session: Session, table: Table, row: Row) -> tuple[str, str | None]:
    """The row's ref, registered as 'linked' if new (not touched), with its label."""
    ref, _ = session.registry.register_link(table.entity_type, row["id"], turn=session.turn)
    entry = session.registry.entry(ref)
    if entry.label is None:
        session.registry.set_label(ref, row_label(table, row))
    return ref, session.registry.entry(ref).label


def _dated(session: Session, row: Row, today: date) -> DatedItem:
    ref, label = _link(session, INVENTORY, row)
    days = (date.fromisoformat(row["expiry_date"]) - today).days
    return {"ref": ref, "label": label, "expiry_date": row["expiry_date"], "days_left": days, "location": row.get("location")}


def _meal(session: Session, meal: Row, recipe: Row | None, cooked: bool) -> NextMeal:
    ref, label = _link(session, MEAL_PLANS, meal)
    out: NextMeal = {"ref": ref, "label": label, "date": meal["date"], "meal_type": meal["meal_type"],
                     "recipe": None, "recipe_label": None}
    if cooked:
        out["cooked"] = True
    note = meal_note(meal)
    if note:
        out["note"] = note
    if recipe is not None:
        out["recipe"], out["recipe_label"] = _link(session, RECIPES, recipe)
    return out
