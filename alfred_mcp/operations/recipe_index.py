"""The user's recipes and pantry as search reads them, memoized per table stamp.

Loading every recipe with its ingredients is what a search costs (10,000 recipes are 80,000
ingredient rows); matching is cheap once each distinct ingredient name has been matched once.
So per (store, user) this keeps the loaded candidates, the pantry, the verdicts per ingredient
name and the finished outcomes of queries, and reuses them while the stamps of the tables they
were read from (`KitchenStore.table_stamps`: recipes and their ingredient lines; the pantry's
inventory apart) are unchanged. A write elsewhere (a shopping line, a meal plan) keeps it all; a
pantry write reloads only the pantry and what was worked out from it. A stamp never comes back,
so a memo is never used for rows it was not built from. The stamps are read before the rows, so
a write landing in between only makes the memo stale at once.

Inside a call's open transaction nothing is memoized: its own uncommitted writes may differ from
what the stamps stand for on a backend whose stamps only move at commit.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, TypeVar

from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import INVENTORY, RECIPE_INGREDIENTS, RECIPES
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.pantry import in_date
from alfred_mcp.store.base import KitchenStore, Row

T = TypeVar("T")
RECIPE_COLUMNS = (
    "id", "name", "cuisine", "difficulty", "prep_time_minutes", "cook_time_minutes", "total_time_minutes", "servings",
    "equipment_tags", "flavor_tags",
)
PART_COLUMNS = ("id", "recipe_id", "ingredient_id", "position", "name", "unit", "notes", "is_optional")
USERS_KEPT = 8
"""Users whose index a store keeps (least recently used dropped first)."""
OUTCOMES_KEPT = 64
"""Finished query outcomes an index keeps."""
NAMES_KEPT = 200_000
"""Name verdicts a user's indexes keep (then they start over)."""
RECIPE_TABLES = (RECIPES.name, RECIPE_INGREDIENTS.name)
PANTRY_TABLES = (INVENTORY.name,)


@dataclass
class RecipeIndex:
    """One user's recipes (store order, each with its ingredients in order) at one stamp of their tables."""

    stamp: tuple[int, ...] | None
    recipes: list[tuple[Row, list[Row]]]
    pantry_stamp: tuple[int, ...] | None = None
    pantry: list[Row] | None = None
    names: dict[Hashable, Any] = field(default_factory=dict)
    """Answers about ingredient names alone ('does "cod fillets" match fish?'): they hold for every stamp,
    so a rebuilt index takes them over (up to NAMES_KEPT)."""
    stocked: dict[Hashable, Any] = field(default_factory=dict)
    """Answers that depend on this stamp's pantry ('is "spinach" stocked?')."""
    outcomes: OrderedDict[Hashable, Any] = field(default_factory=OrderedDict)
    pantry_outcomes: OrderedDict[Hashable, Any] = field(default_factory=OrderedDict)
    """Finished outcomes that depend on the pantry too (makeable)."""

    def verdict(self, key: Hashable, compute: Callable[[], T], *, pantry: bool = False) -> T:
        """`compute()` once per `key`: for the life of the user's indexes, or of this one when it asks about the pantry."""
        memo = self.stocked if pantry else self.names
        if key in memo:
            return memo[key]  # type: ignore[no-any-return]
        found = memo[key] = compute()
        return found

    def outcome(self, key: Hashable, compute: Callable[[], T], *, pantry: bool = False) -> T:
        """A query's finished outcome, computed once per `key` (the last OUTCOMES_KEPT are kept): for the life
        of these recipes, or of this pantry too when it reads the pantry."""
        outcomes = self.pantry_outcomes if pantry else self.outcomes
        if key in outcomes:
            outcomes.move_to_end(key)
            return outcomes[key]  # type: ignore[no-any-return]
        found = outcomes[key] = compute()
        while len(outcomes) > OUTCOMES_KEPT:
            outcomes.popitem(last=False)
        return found

    def with_pantry_stamp(self, stamp: tuple[int, ...]) -> RecipeIndex:
        """The same recipes and what was worked out from them alone, for another pantry (not loaded yet)."""
        return RecipeIndex(self.stamp, self.recipes, stamp, names=self.names, outcomes=self.outcomes)


_MEMO: weakref.WeakKeyDictionary[Any, OrderedDict[str, RecipeIndex]] = weakref.WeakKeyDictionary()


async def recipe_index(work: UnitOfWork, *, pantry: bool = False, today: date | None = None) -> RecipeIndex:
    """The user's index, from the memo while the stamps of the tables it holds still match, else loaded (and kept).
    Given `today`, the pantry holds only what is not past its use-by date then (the day is part of its stamp)."""
    store, user_id = work.store, work.user_id
    if store.in_transaction():
        return await _load(store, user_id, None, None, pantry=pantry, today=today)
    stamps = await store.table_stamps(user_id, (*RECIPE_TABLES, *PANTRY_TABLES))
    recipes_stamp, pantry_stamp = stamps[:len(RECIPE_TABLES)], stamps[len(RECIPE_TABLES):]
    if today is not None:
        pantry_stamp = (*pantry_stamp, today.toordinal())
    users = _MEMO.setdefault(store, OrderedDict())
    index = users.get(user_id)
    if index is None or index.stamp != recipes_stamp:
        previous = index
        index = users[user_id] = await _load(store, user_id, recipes_stamp, pantry_stamp, pantry=pantry, today=today)
        if previous is not None and len(previous.names) < NAMES_KEPT:
            index.names = previous.names
    elif index.pantry_stamp != pantry_stamp:
        index = users[user_id] = index.with_pantry_stamp(pantry_stamp)
    if pantry and index.pantry is None:
        index.pantry = await _pantry(store, user_id, today)
    users.move_to_end(user_id)
    while len(users) > USERS_KEPT:
        users.popitem(last=False)
    return index


async def _load(
    store: KitchenStore, user_id: str, stamp: tuple[int, ...] | None, pantry_stamp: tuple[int, ...] | None, *, pantry: bool,
    today: date | None = None,
) -> RecipeIndex:
    recipes = await store.select(RECIPES, Query(columns=RECIPE_COLUMNS), user_id=user_id)
    parts = await store.select(RECIPE_INGREDIENTS, Query(columns=PART_COLUMNS), user_id=user_id)
    by_recipe: dict[str, list[Row]] = {}
    for part in sorted(parts, key=lambda p: p["position"]):
        by_recipe.setdefault(part["recipe_id"], []).append(part)
    index = RecipeIndex(stamp, [(row, by_recipe.get(row["id"], [])) for row in recipes], pantry_stamp)
    if pantry:
        index.pantry = await _pantry(store, user_id, today)
    return index


async def _pantry(store: KitchenStore, user_id: str, today: date | None) -> list[Row]:
    """The rows holding something (and, given `today`, not past their use-by date)."""
    stocked = Where(all_of=(Filter("quantity", "gt", 0),))
    rows = await store.select(INVENTORY, Query(where=stocked, columns=("id", "name", "ingredient_id", "unit", "notes", "expiry_date")),
                              user_id=user_id)
    return rows if today is None else in_date(rows, today.isoformat())[0]
