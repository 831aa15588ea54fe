"""Open shopping lines whose every use is a meal already cooked: nothing left to buy them for.

What the state can know: shopping_list_from writes what each line was listed for in its source (`shopping_lines`:
'Miso-Glazed Salmon (Fri Nov 27 dinner, for 3)' for a planned meal, the recipe's name for a recipe). A line is done
with when each entry names a meal the cooking log says was cooked, or names the recipe alone and the recipe was
logged cooked after the line was written, with none of its planned meals left to cook. A line without a source (the
user's own) or with a source naming anything else is never one of them. Nothing is changed here: meal_cooked names
the lines its cook left with nothing to buy them for (`still_listed`), the shopping list marks them (`for_cooked`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from alfred_mcp.kitchen.query import MAX_IN_VALUES, Filter, Query, Where
from alfred_mcp.kitchen.schema import COOKING_LOG, MEAL_PLANS, RECIPES, SHOPPING_LIST
from alfred_mcp.kitchen.shopping_lines import listed_recipes, meal_entry, shopping_text, source_entries
from alfred_mcp.operations.crud import ref_of
from alfred_mcp.session import UnitOfWork
from alfred_mcp.store.base import KitchenStore

MAX_NAMED = 10
"""Lines meal_cooked names; past it, how many more."""
MAX_LOGGED = 2_000
"""Cooking log entries read (the newest first) to know which uses are done."""


@dataclass(frozen=True)
class DoneUses:
    """The uses a shopping line can be listed for that are cooked: meals, and recipes with no meal left to cook."""

    meals: frozenset[str] = frozenset()
    """Entry identities of meals logged cooked: 'Miso-Glazed Salmon (Fri Nov 27 dinner)'."""
    recipes: Mapping[str, Any] = field(default_factory=dict)
    """Recipe name -> when it was last logged cooked, for recipes none of whose planned meals is left to cook."""

    def done_with(self, line: Mapping[str, Any]) -> bool:
        """True for an open line listed only for cooked uses (see the module)."""
        entries = source_entries(line.get("source"))
        if line.get("is_purchased") or not entries:
            return False
        whole = " ".join(str(line.get("source") or "").split())
        return (whole in self.recipes and _after(self.recipes[whole], line)) or all(
            entry.identity in self.meals or (entry.identity in self.recipes and _after(self.recipes[entry.identity], line))
            for entry in entries)


def _after(cooked: Any, line: Mapping[str, Any]) -> bool:
    """The recipe was logged cooked after the line was written (a line listed later is for a cook to come)."""
    written = line.get("created_at")
    if written is None:
        return True
    return bool(cooked >= written) if type(cooked) is type(written) else str(cooked) >= str(written)


async def done_uses(store: KitchenStore, user_id: str) -> DoneUses:
    """What the cooking log says is cooked, as the entries of a line's source name it."""
    logged = await store.select(COOKING_LOG, Query(columns=("recipe_id", "from_meal_plan_id", "created_at"), limit=MAX_LOGGED,
                                                   where=Where(all_of=(Filter("recipe_id", "is_null", False),))), user_id=user_id)
    recipe_ids = list(dict.fromkeys(row["recipe_id"] for row in logged))[:MAX_IN_VALUES]
    if not recipe_ids:
        return DoneUses()
    names = {row["id"]: str(row["name"]) for row in await store.select(
        RECIPES, Query(where=Where(all_of=(Filter("id", "in", recipe_ids),)), columns=("id", "name")), user_id=user_id)}
    meals = await store.select(MEAL_PLANS, Query(where=Where(all_of=(Filter("recipe_id", "in", recipe_ids),)),
                                                 columns=("id", "recipe_id", "date", "meal_type", "servings"), limit=5_000),
                               user_id=user_id)
    cooked_meals = {row["from_meal_plan_id"] for row in logged if row.get("from_meal_plan_id") is not None}
    identities = frozenset(meal_entry(names[meal["recipe_id"]], _day(meal["date"]), str(meal["meal_type"]), 1).identity
                           for meal in meals if meal["id"] in cooked_meals and meal["recipe_id"] in names)
    left_to_cook = {meal["recipe_id"] for meal in meals if meal["id"] not in cooked_meals}
    last: dict[str, Any] = {}
    for row in logged:
        name = names.get(row["recipe_id"])
        if name is not None and row["recipe_id"] not in left_to_cook and (name not in last or _later(row["created_at"], last[name])):
            last[name] = row["created_at"]
    return DoneUses(identities, last)


def _later(a: Any, b: Any) -> bool:
    return bool(a > b) if type(a) is type(b) else str(a) > str(b)


def _day(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])


async def still_listed(work: UnitOfWork, recipe: str) -> list[str]:
    """'shop_19 2 heads baby bok choy' for each open line listed for the recipe named `recipe` and, now, only for
    cooked uses; past MAX_NAMED, '+N more'."""
    done = await done_uses(work.store, work.user_id)
    rows = await work.store.select(SHOPPING_LIST, Query(where=Where(all_of=(Filter("is_purchased", "eq", False),)), limit=1_000),
                                   user_id=work.user_id)
    lines = [row for row in rows if recipe in listed_recipes(row.get("source")) and done.done_with(row)]
    named = [f"{ref_of(work, SHOPPING_LIST, row)} {shopping_text(row)}" for row in lines[:MAX_NAMED]]
    return named + ([f"+{len(lines) - MAX_NAMED} more"] if len(lines) > MAX_NAMED else [])
