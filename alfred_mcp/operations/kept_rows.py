"""What the user said stays ('leave the chicken for now'), refused when a write would remove it.

A `keep` constraint (`state/constraints.py`) about a ref keeps that row (a draft's: the recipe it was saved as) and
the meals planning it when it is a recipe; one about nothing keeps every row whose name holds its words (a meal by
its recipe's name). A delete of a kept row is refused whole, naming the rows and the user's words, and changes
nothing; the user releases it as any constraint, by dropping it (`constraint_snapshot.drop`) or a reset.
"""

from __future__ import annotations

from collections.abc import Sequence

from alfred_mcp.errors import KeptRowError
from alfred_mcp.kitchen.query import MAX_IN_VALUES, Filter, Query, Where
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPES, Table, row_label
from alfred_mcp.operations.understanding import constraints_of
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.constraints import Constraint, constraint_values, describe_constraint, held_constraints, holds_phrase
from alfred_mcp.state.registry import SessionIdRegistry
from alfred_mcp.store.base import Row

MAX_NAMED = 5


def names_same(registry: SessionIdRegistry, about: str, ref: str | None) -> bool:
    """Whether the ref a constraint is about names `ref`'s row: the same ref, or a draft saved as it."""
    if ref is None:
        return False
    if about == ref:
        return True
    entry = registry.get(about)
    return entry is not None and entry.saved_as == ref


async def refuse_kept(work: UnitOfWork, table: Table, row_ids: Sequence[str]) -> None:
    """Raises KeptRowError when a row of `row_ids` (about to be deleted) is one the user said stays.

    Raises:
        KeptRowError: naming each kept row (its ref and name), what the user said and how to release it.
    """
    keeps = [c for c in held_constraints(constraints_of(work.session)) if c.type == "keep"]
    if not keeps or not row_ids:
        return
    rows = await _rows(work, table, row_ids)
    recipes = await _recipe_names(work, rows) if table.name == MEAL_PLANS.name else {}
    registry = work.session.registry
    kept: list[tuple[str, Constraint]] = []
    for row in rows:
        ref = registry.ref_for_row(str(row["id"]))
        recipe_id = str(row.get("recipe_id") or "")
        recipe_ref = registry.ref_for_row(recipe_id) if recipe_id else None
        names = [row_label(table, row), *([recipes[recipe_id]] if recipe_id in recipes else [])]
        for keep in keeps:
            if _keeps(keep, registry, ref, recipe_ref, names):
                kept.append((f"{ref or 'a row'} ({', '.join(names)})", keep))
                break
    if kept:
        shown = "; ".join(f"{what} stays: the user said {describe_constraint(keep)}"
                          + (f" (turn {keep.source_turn})" if keep.source_turn else "") for what, keep in kept[:MAX_NAMED])
        more = f" (+{len(kept) - MAX_NAMED} more)" if len(kept) > MAX_NAMED else ""
        drops = sorted({describe_constraint(keep) for _, keep in kept})
        raise KeptRowError(
            f"Refused: {shown}{more}. Nothing was deleted. Only if the user now asks for it to go, drop it first "
            f"(the turn's constraint_snapshot.drop: {drops}), then delete.", table=table.name, kept=len(kept))


def _keeps(keep: Constraint, registry: SessionIdRegistry, ref: str | None, recipe_ref: str | None, names: list[str]) -> bool:
    """Whether `keep` keeps a row: about its ref (or the recipe a meal plans), or, about nothing, named by its words."""
    if keep.about is not None:
        return names_same(registry, keep.about, ref) or names_same(registry, keep.about, recipe_ref)
    return any(holds_phrase(name, value) for name in names for value in constraint_values(keep))


async def _rows(work: UnitOfWork, table: Table, row_ids: Sequence[str]) -> list[Row]:
    columns = ("id", *table.label_columns, *(("recipe_id",) if table.name == MEAL_PLANS.name else ()))
    ids = list(row_ids)
    chunks = [Where(all_of=(Filter("id", "in", ids[i:i + MAX_IN_VALUES]),)) for i in range(0, len(ids), MAX_IN_VALUES)]
    return [row for chunk in chunks for row in await work.store.select(table, Query(where=chunk, columns=columns), user_id=work.user_id)]


async def _recipe_names(work: UnitOfWork, meals: Sequence[Row]) -> dict[str, str]:
    """Recipe row id -> name, for the recipes `meals` plan."""
    ids = sorted({str(row["recipe_id"]) for row in meals if row.get("recipe_id")})
    return {str(row["id"]): str(row.get("name") or "") for row in await _rows(work, RECIPES, ids)}
