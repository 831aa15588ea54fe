"""What a draft or a write holds against the user's constraints, said the moment it is made.

`draft_save` refuses an allergen (`operations/allergies.py`); a disliked or an excluded ingredient is
never refused. Both are worth knowing before the save, so every tool that drafts (draft_create,
draft_revise, recipes_import) answers with one warning per line and rule: the draft, the line, and
the rule it meets. A direct write (db_create, db_update) has had its allergens refused already; it
answers with the disliked or excluded lines it wrote. Allergies match whatever holds the allergen,
dislikes and exclusions the thing itself (`kitchen/ingredient_match.py`), as search and the recipe
card judge them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from alfred_mcp.kitchen.allergens import allergen_hits
from alfred_mcp.kitchen.ingredient_match import term_matches
from alfred_mcp.kitchen.schema import Table
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.operations import allergies
from alfred_mcp.operations.drafting import draft_texts
from alfred_mcp.operations.understanding import current_constraints
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.constraints import ALLERGY_REASONS, SessionConstraints, compile_constraints, constraint_values
from alfred_mcp.state.drafts import Draft
from alfred_mcp.state.registry import SessionIdRegistry

MAX_WARNINGS = 20


async def draft_warnings(work: UnitOfWork, drafts: Sequence[Draft]) -> list[str]:
    """One warning per draft line that holds an allergen (refused at save), or is a disliked or excluded ingredient."""
    held = await allergies.write_allergies(work)
    constraints = await current_constraints(work)
    avoided = _avoided(constraints)
    in_call = {draft.ref for draft in drafts}
    warnings: list[str] = []
    for draft in drafts:
        texts = await draft_texts(work, draft, in_call)
        for hit in allergen_hits(texts, held.all()):
            warnings.append(f"{hit.describe()}: {held.whose([hit.allergen])}; draft_save will refuse it unless the user "
                            "explicitly accepts it (allergy_override)")
        about = _excluded_from(constraints, draft.ref, work.session.registry)
        rules = avoided + [(value, "the user excluded it from this draft") for value in about]
        warnings += _avoided_lines(texts, rules)
    return _bounded(warnings)


async def write_warnings(work: UnitOfWork, table: Table, rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One warning per text a write puts in the kitchen (a recipe or shopping name, an ingredient, a planned
    recipe's lines) that is a disliked or excluded ingredient, an ingredient excluded from its own recipe included."""
    if table.name not in allergies.CHECKED_TABLES:
        return []
    constraints = await current_constraints(work)
    avoided = _avoided(constraints)
    warnings: list[str] = []
    for index, row in enumerate(rows):
        recipe = row.get("recipe_id") if table.name == "recipe_ingredients" else None
        about = _excluded_from(constraints, recipe, work.session.registry) if isinstance(recipe, str) else []
        rules = avoided + [(value, f"the user excluded it from {recipe}") for value in about]
        if rules:
            where = f"data[{index}]" if len(rows) > 1 else "data"
            warnings += _avoided_lines(await allergies.row_texts(work, table, row, where), rules)
    return _bounded(warnings)


async def update_warnings(work: UnitOfWork, table: Table, data: Mapping[str, Any], changed: Sequence[Mapping[str, Any]]) -> list[str]:
    """`write_warnings` of an update's `data` as the rows it changed (by refs) now hold it: an ingredient line renamed
    is judged by its own recipe's constraints too, though the update did not name the recipe."""
    if not changed:
        return []
    if table.name != "recipe_ingredients" or "recipe_id" in data:
        return await write_warnings(work, table, [data])
    recipes = dict.fromkeys(str(row["recipe_id"]) for row in changed if row.get("recipe_id"))
    return await write_warnings(work, table, [{**data, "recipe_id": recipe} for recipe in recipes] or [data])


def _avoided_lines(texts: Sequence[tuple[str, str]], rules: Sequence[tuple[str, str]]) -> list[str]:
    return [f"{where} '{text}' is {value}: {why}" for where, text in texts for value, why in rules
            if term_matches(text, value, default_taxonomy(), strict=True)]


def _bounded(warnings: list[str]) -> list[str]:
    unique = list(dict.fromkeys(warnings))
    return unique[:MAX_WARNINGS] + ([f"+{len(unique) - MAX_WARNINGS} more warnings"] if len(unique) > MAX_WARNINGS else [])


def _avoided(constraints: SessionConstraints) -> list[tuple[str, str]]:
    """(ingredient, why) of every goal-wide exclusion that is not an allergy: the user's dislikes, the goal's exclusions."""
    avoided = []
    for item in compile_constraints(constraints).must_exclude:
        reasons = [why for why in item.why if why not in ALLERGY_REASONS]
        if reasons and len(reasons) == len(item.why):
            avoided.append((item.value, "; ".join(_reason(why) for why in reasons)))
    return avoided


def _reason(why: str) -> str:
    return "the user dislikes it" if why == "dislike" else f"the goal excludes it ({why.removeprefix('goal:')})"


def _excluded_from(constraints: SessionConstraints, ref: str, registry: SessionIdRegistry) -> list[str]:
    """The ingredients a constraint about this one thing excludes ('make it dairy-free'): about `ref`, or about the
    draft `ref` was saved from (the constraint follows the draft into the recipe it became)."""
    held = [*(constraints.occasion.constraints if constraints.occasion else []),
            *(constraints.active_goal.constraints if constraints.active_goal else [])]
    return [value for c in held if c.about is not None and c.type == "ingredient_excluded" and _names_same(registry, c.about, ref)
            for value in constraint_values(c)]


def _names_same(registry: SessionIdRegistry, about: str, ref: str) -> bool:
    """Whether the ref a constraint is about names `ref`'s row: the same ref, or a draft saved as it."""
    if about == ref:
        return True
    entry = registry.get(about)
    return entry is not None and entry.saved_as == ref
