"""What a draft or a write holds against the user's constraints, said the moment it is made.

`draft_save` refuses an allergen (`operations/allergies.py`); a disliked or an excluded ingredient is
never refused. Both are worth knowing before the save, so every tool that drafts (draft_create,
draft_revise, recipes_import) answers with one warning per line and rule: the draft, the line, and
the rule it meets. A direct write (db_create, db_update) has had its allergens refused already; it
answers with the disliked or excluded lines it wrote. Allergies match whatever holds the allergen,
dislikes and exclusions the thing itself (`kitchen/ingredient_match.py`), as search and the recipe
card judge them. A constraint about one draft ('make it dairy-free') holds for the recipe it was saved as, one about a
recipe for a new version drafted from it (and the recipe that version was saved as). A recipe
drafted, written or planned that takes longer than the goal's time limit is said too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from alfred_mcp.kitchen.allergens import allergen_hits
from alfred_mcp.kitchen.ingredient_match import term_matches
from alfred_mcp.kitchen.recipe_times import duration_text, total_minutes
from alfred_mcp.kitchen.schema import Table
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.operations import allergies
from alfred_mcp.operations.drafting import draft_texts
from alfred_mcp.operations.kept_rows import names_same
from alfred_mcp.operations.recipe_rows import saved_recipe_row
from alfred_mcp.operations.understanding import current_constraints
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.constraints import ALLERGY_REASONS, Constraint, SessionConstraints, compile_constraints, constraint_values
from alfred_mcp.state.drafts import Draft
from alfred_mcp.state.registry import SessionIdRegistry

MAX_WARNINGS = 20
TIME_COLUMNS = frozenset({"prep_time_minutes", "cook_time_minutes", "total_time_minutes"})
TIME_COLUMNS_READ = ("name", "prep_time_minutes", "cook_time_minutes", "total_time_minutes")


async def draft_warnings(work: UnitOfWork, drafts: Sequence[Draft]) -> list[str]:
    """One warning per draft line that holds an allergen (refused at save), or is a disliked or excluded ingredient;
    one per recipe draft that takes longer than the goal's time limit."""
    held = await allergies.write_allergies(work)
    constraints = await current_constraints(work)
    avoided = _avoided(constraints)
    in_call = {draft.ref for draft in drafts}
    limit = compile_constraints(constraints).max_minutes
    warnings: list[str] = []
    for draft in drafts:
        texts = await draft_texts(work, draft, in_call)
        for hit in allergen_hits(texts, held.all()):
            warnings.append(f"{hit.describe()}: {held.whose([hit.allergen])}; draft_save will refuse it unless the user "
                            "explicitly accepts it (allergy_override)")
        parent = getattr(draft.parsed(), "parent_recipe", None) if draft.entity_type == "recipe" else None
        about = _excluded_from(constraints, draft.ref, work.session.registry, parent if isinstance(parent, str) else None)
        rules = avoided + [(value, "the user excluded it from this draft" if of == draft.ref
                            else f"the user excluded it from {of}, which this draft is a version of") for value, of in about]
        warnings += _avoided_lines(texts, rules)
        if draft.entity_type == "recipe":
            warnings += _too_long(f"{draft.ref} ({draft.label})", draft.parsed().model_dump(), limit)
    return _bounded(warnings)


async def write_warnings(work: UnitOfWork, table: Table, rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """One warning per text a write puts in the kitchen (a recipe or shopping name, an ingredient, a planned
    recipe's lines) that is a disliked or excluded ingredient, an ingredient excluded from its own recipe included;
    one per recipe written or planned that takes longer than the goal's time limit."""
    if table.name not in allergies.CHECKED_TABLES:
        return []
    constraints = await current_constraints(work)
    avoided = _avoided(constraints)
    limit = compile_constraints(constraints).max_minutes
    warnings: list[str] = []
    for index, row in enumerate(rows):
        where = f"data[{index}]" if len(rows) > 1 else "data"
        recipe = row.get("recipe_id") if table.name == "recipe_ingredients" else None
        about = await _excluded_from_recipe(work, constraints, recipe) if isinstance(recipe, str) else []
        rules = avoided + [(value, f"the user excluded it from {recipe}" if of == recipe
                            else f"the user excluded it from {of}, which {recipe} is a version of") for value, of in about]
        if rules:
            warnings += _avoided_lines(await allergies.row_texts(work, table, row, where), rules)
        if limit is not None and table.name in ("recipes", "meal_plans"):
            warnings += await _row_too_long(work, table, row, where, limit)
    return _bounded(warnings)


async def update_warnings(work: UnitOfWork, table: Table, data: Mapping[str, Any], changed: Sequence[Mapping[str, Any]]) -> list[str]:
    """`write_warnings` of an update's `data` as the rows it changed (by refs) now hold it: an ingredient line renamed
    is judged by its own recipe's constraints too, though the update did not name the recipe, and a recipe's new
    time by all of its times."""
    if not changed:
        return []
    if table.name == "recipes" and TIME_COLUMNS & set(data):
        return await write_warnings(work, table, [{"id": row.get("id"), **data, **{k: row.get(k) for k in TIME_COLUMNS}} for row in changed])
    if table.name != "recipe_ingredients" or "recipe_id" in data:
        return await write_warnings(work, table, [data])
    recipes = dict.fromkeys(str(row["recipe_id"]) for row in changed if row.get("recipe_id"))
    return await write_warnings(work, table, [{**data, "recipe_id": recipe} for recipe in recipes] or [data])


def _too_long(where: str, recipe: Mapping[str, Any], limit: int | float | None) -> list[str]:
    """'gen_recipe_1 (Lasagna) takes 2 hr 10 min: the goal's time limit is 30 min', or nothing."""
    minutes = total_minutes(recipe)
    if limit is None or minutes is None or minutes <= limit:
        return []
    return [f"{where} takes {duration_text(minutes)}: the goal's time limit is {duration_text(int(limit))}"]


async def _row_too_long(work: UnitOfWork, table: Table, row: Mapping[str, Any], where: str, limit: int | float) -> list[str]:
    """A recipe row written, or the saved recipe a meal plans, that takes longer than `limit` minutes."""
    if table.name == "recipes":
        return _too_long(f"{where} ({row.get('name') or row.get('id') or 'the recipe'})", row, limit)
    ref = row.get("recipe_id")
    found = await saved_recipe_row(work, ref, TIME_COLUMNS_READ) if isinstance(ref, str) else None
    return _too_long(f"{where}.recipe_id ({ref} {found['name']})", found, limit) if found else []


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


def _excluded_from(constraints: SessionConstraints, ref: str, registry: SessionIdRegistry,
                   parent: str | None = None) -> list[tuple[str, str]]:
    """(ingredient, the ref it was excluded from) of each constraint about this one thing ('make it dairy-free'): about
    `ref`, about the draft `ref` was saved from (the constraint follows the draft into the recipe it became), or about
    the recipe `ref` is a version of (`parent`: 'make it dairy-free' made a new version of it)."""
    found: list[tuple[str, str]] = []
    for c in _about_one_thing(constraints):
        about = str(c.about)
        of = ref if names_same(registry, about, ref) else parent if parent and names_same(registry, about, parent) else None
        found += [(value, of) for value in constraint_values(c)] if of else []
    return found


def _about_one_thing(constraints: SessionConstraints) -> list[Constraint]:
    """The exclusions held about one thing (a ref), the occasion's and the goal's."""
    held = [*(constraints.occasion.constraints if constraints.occasion else []),
            *(constraints.active_goal.constraints if constraints.active_goal else [])]
    return [c for c in held if c.about is not None and c.type == "ingredient_excluded"]


async def _excluded_from_recipe(work: UnitOfWork, constraints: SessionConstraints, recipe: str) -> list[tuple[str, str]]:
    """`_excluded_from` a saved recipe, its parent (the recipe it is a version of) read only when a constraint is about
    one thing."""
    if not _about_one_thing(constraints):
        return []
    registry = work.session.registry
    return _excluded_from(constraints, recipe, registry, await _parent_recipe(work, recipe))


async def _parent_recipe(work: UnitOfWork, recipe: str) -> str | None:
    """The ref of the recipe `recipe` is a version of, when it has one and the session has given it a ref."""
    row = await saved_recipe_row(work, recipe, ("parent_recipe_id",))
    parent = row.get("parent_recipe_id") if row else None
    return work.session.registry.ref_for_row(str(parent)) if parent else None
