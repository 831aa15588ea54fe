"""A saved recipe and its ingredient rows, by ref: what export, scale, shopping and cooking read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from alfred_mcp.errors import AlfredError, InputError, PendingDraftError
from alfred_mcp.kitchen.query import Filter, OrderBy, Query, Where
from alfred_mcp.kitchen.schema import RECIPE_INGREDIENTS, RECIPES
from alfred_mcp.operations.crud import rows_to_refs
from alfred_mcp.session import UnitOfWork
from alfred_mcp.session.documents import DRAFTS
from alfred_mcp.state.compiler import compile_draft
from alfred_mcp.store.base import Row

MAX_INGREDIENT_ROWS = 500


@dataclass(frozen=True)
class RecipeRows:
    """A recipe row and its ingredients in order, as stored (ids), plus its ref."""

    ref: str
    recipe: Row
    ingredients: list[Row]

    @property
    def name(self) -> str:
        return str(self.recipe["name"])


async def load_recipes(work: UnitOfWork, refs: Sequence[str], *, field: str) -> list[RecipeRows]:
    """The recipes named by `refs` (saved recipe refs, or gen refs of saved drafts), each with its ingredients.

    Raises:
        InvalidRefError, UnknownRefError, DeletedRefError, PendingDraftError: a ref that names no saved
            recipe, naming `field`.
    """
    session = work.session
    ids = [session.registry.resolve(ref, expected_type="recipe", field=field) for ref in refs]
    unique = list(dict.fromkeys(ids))
    recipes = await work.store.select(RECIPES, Query(where=Where(all_of=(Filter("id", "in", unique),))), user_id=work.user_id)
    by_id = {row["id"]: row for row in recipes}
    for ref, row_id in zip(refs, ids):
        if row_id not in by_id:
            raise InputError(f"{field}: {ref} no longer exists (it was deleted elsewhere).", field=field, value=ref)
    rows = [by_id[i] for i in unique]
    ref_of = {row["id"]: view["id"] for row, view in zip(rows, await rows_to_refs(work, RECIPES, rows, action="read"))}
    query = Query(
        where=Where(all_of=(Filter("recipe_id", "in", unique),)),
        order_by=(OrderBy("recipe_id"), OrderBy("position")), limit=MAX_INGREDIENT_ROWS * len(unique),
    )
    ingredients: dict[str, list[Row]] = {}
    for row in await work.store.select(RECIPE_INGREDIENTS, query, user_id=work.user_id):
        ingredients.setdefault(row["recipe_id"], []).append(row)
    return [RecipeRows(ref_of[i], by_id[i], ingredients.get(i, [])) for i in unique]


async def recipe_or_draft(work: UnitOfWork, ref: str, *, field: str) -> RecipeRows:
    """The saved recipe `ref`, or the pending recipe draft it names as the rows that would save it (what a card
    and scaling read: a draft can be looked at before it is saved).

    Raises:
        InvalidRefError, UnknownRefError, DeletedRefError: a ref that names no recipe, naming `field`.
    """
    try:
        (loaded,) = await load_recipes(work, [ref], field=field)
        return loaded
    except PendingDraftError:
        draft = work.session.read(DRAFTS.at(ref))
        if draft is None or draft.entity_type != "recipe":
            raise
    (root,) = compile_draft(draft).rows
    parts = [dict(child.data) for child in root.children if child.table == RECIPE_INGREDIENTS.name]
    return RecipeRows(ref, dict(root.data), sorted(parts, key=lambda part: int(part.get("position") or 0)))


async def saved_recipe_row(work: UnitOfWork, ref: str, columns: Sequence[str]) -> Row | None:
    """The `columns` (and id) of the saved recipe `ref` names, as stored; None when it names none (a draft not saved
    yet, a deleted row, another table's ref: a write naming it refuses it itself)."""
    try:
        row_id = work.session.registry.resolve(ref, expected_type="recipe")
    except AlfredError:
        return None
    one = Query(where=Where(all_of=(Filter("id", "eq", row_id),)), columns=("id", *columns), limit=1)
    rows = await work.store.select(RECIPES, one, user_id=work.user_id)
    return rows[0] if rows else None
