"""The user's recipes and pantry as search reads them, memoized per kitchen stamp.

Loading every recipe with its ingredients is what a search costs (10,000 recipes are 80,000
ingredient rows); matching is cheap once each distinct ingredient name has been matched once.
So per (store, user) this keeps the loaded candidates, the pantry, the verdicts per ingredient
name and the finished outcomes of queries, and reuses them while the user's kitchen stamp
(`KitchenStore.kitchen_stamp`, changed by every write to the user's kitchen) is unchanged. A
stamp never comes back, so a memo is never used for rows it was not built from. The stamp is
read before the rows, so a write landing in between only makes the memo stale at once.

Inside a call's open transaction nothing is memoized: its own uncommitted writes may differ from
what the stamp stands for on a backend whose stamp only moves at commit.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import INVENTORY, RECIPE_INGREDIENTS, RECIPES
from alfred_mcp.session import UnitOfWork
from alfred_mcp.store.base import KitchenStore, Row

T = TypeVar("T")
RECIPE_COLUMNS = (
    "id", "name", "cuisine", "difficulty", "prep_time_minutes", "cook_time_minutes", "servings", "equipment_tags",
    "flavor_tags",
)
PART_COLUMNS = ("id", "recipe_id", "ingredient_id", "position", "name", "is_optional")
USERS_KEPT = 8
"""Users whose index a store keeps (least recently used dropped first)."""
OUTCOMES_KEPT = 64
"""Finished query outcomes an index keeps."""
NAMES_KEPT = 200_000
"""Name verdicts a user's indexes keep (then they start over)."""


@dataclass
class RecipeIndex:
    """One user's recipes (store order, each with its ingredients in order) at one kitchen stamp."""

    stamp: int | None
    recipes: list[tuple[Row, list[Row]]]
    pantry: list[Row] | None = None
    names: dict[Hashable, Any] = field(default_factory=dict)
    """Answers about ingredient names alone ('does "cod fillets" match fish?'): they hold for every stamp,
    so a rebuilt index takes them over (up to NAMES_KEPT)."""
    stocked: dict[Hashable, Any] = field(default_factory=dict)
    """Answers that depend on this stamp's pantry ('is "spinach" stocked?')."""
    outcomes: OrderedDict[Hashable, Any] = field(default_factory=OrderedDict)

    def verdict(self, key: Hashable, compute: Callable[[], T], *, pantry: bool = False) -> T:
        """`compute()` once per `key`: for the life of the user's indexes, or of this one when it asks about the pantry."""
        memo = self.stocked if pantry else self.names
        if key in memo:
            return memo[key]  # type: ignore[no-any-return]
        found = memo[key] = compute()
        return found

    def outcome(self, key: Hashable, compute: Callable[[], T]) -> T:
        """A query's finished outcome, computed once per `key` (the last OUTCOMES_KEPT are kept)."""
        if key in self.outcomes:
            self.outcomes.move_to_end(key)
            return self.outcomes[key]  # type: ignore[no-any-return]
        found = self.outcomes[key] = compute()
        while len(self.outcomes) > OUTCOMES_KEPT:
            self.outcomes.popitem(last=False)
        return found


_MEMO: weakref.WeakKeyDictionary[Any, OrderedDict[str, RecipeIndex]] = weakref.WeakKeyDictionary()


async def recipe_index(work: UnitOfWork, *, pantry: bool = False) -> RecipeIndex:
    """The user's index, from the memo when the kitchen stamp still matches, else loaded (and kept)."""
    store, user_id = work.store, work.user_id
    if store.in_transaction():
        return await _load(store, user_id, None, pantry=pantry)
    stamp = await store.kitchen_stamp(user_id)
    users = _MEMO.setdefault(store, OrderedDict())
    index = users.get(user_id)
    if index is None or index.stamp != stamp:
        previous = index
        index = users[user_id] = await _load(store, user_id, stamp, pantry=pantry)
        if previous is not None and len(previous.names) < NAMES_KEPT:
            index.names = previous.names
    elif pantry and index.pantry is None:
        index.pantry = await _pantry(store, user_id)
    users.move_to_end(user_id)
    while len(users) > USERS_KEPT:
        users.popitem(last=False)
    return index


async def _load(store: KitchenStore, user_id: str, stamp: int | None, *, pantry: bool) -> RecipeIndex:
    recipes = await store.select(RECIPES, Query(columns=RECIPE_COLUMNS), user_id=user_id)
    parts = await store.select(RECIPE_INGREDIENTS, Query(columns=PART_COLUMNS), user_id=user_id)
    by_recipe: dict[str, list[Row]] = {}
    for part in sorted(parts, key=lambda p: p["position"]):
        by_recipe.setdefault(part["recipe_id"], []).append(part)
    index = RecipeIndex(stamp, [(row, by_recipe.get(row["id"], [])) for row in recipes])
    if pantry:
        index.pantry = await _pantry(store, user_id)
    return index


async def _pantry(store: KitchenStore, user_id: str) -> list[Row]:
    stocked = Where(all_of=(Filter("quantity", "gt", 0),))
    return await store.select(INVENTORY, Query(where=stocked, columns=("id", "name", "ingredient_id")), user_id=user_id)
