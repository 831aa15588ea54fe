"""Everything a role's context is built from, read from the session and the store as plain values.

The context builders (`state/context.py`) are pure; this gathers their `ContextInputs`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from typing import Any

from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPES, meal_note, row_label
from alfred_mcp.operations.dashboard import build_dashboard
from alfred_mcp.operations.drafting import pending_draft_views
from alfred_mcp.operations.entities import read_references
from alfred_mcp.operations.history import conversation_of, recent_narratives, summarize_current
from alfred_mcp.operations.understanding import curation_of, preferences_row, with_permanent
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.constraints import compile_constraints
from alfred_mcp.state.context import ContextInputs
from alfred_mcp.state.entity_resolver import Candidate, Mention
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.base import Row

_PROFILE_HIDDEN = ("id", "user_id", "created_at", "updated_at")


def profile_of(row: Row | None) -> dict[str, Any] | None:
    """The preferences row as the roles see it: no ids, no timestamps."""
    return None if row is None else {key: value for key, value in row.items() if key not in _PROFILE_HIDDEN}


async def context_inputs(
    work: UnitOfWork, *, today: date, with_dashboard: bool = True, user_message: str | None = None,
    with_background: bool = False,
) -> ContextInputs:
    """Read the session and the store into the plain values the context builders take.

    `with_background` adds the kitchen's background entities and the resolver's reading of the message (Understand).
    """
    session = work.session
    row = await preferences_row(work.store, work.user_id)
    compiled = compile_constraints(with_permanent(session, row))
    dashboard = await build_dashboard(work, today=today) if with_dashboard else None
    narratives, digest = recent_narratives(session)
    current = summarize_current(session)
    message = user_message or current.user_message
    background: list[Candidate] = []
    mentions: list[Mention] = []
    if with_background:
        reading = await read_references(work, message, today=today)
        background, mentions = reading.background, reading.mentions
    return ContextInputs(
        background=background,
        mentions=[m for m in mentions if m.resolution != "unresolved"],
        turn=session.turn,
        user_message=message,
        entries=await with_meal_recipes(work, session.registry.entries()),
        curation=curation_of(session),
        constraints=compiled,
        drafts=pending_draft_views(session),
        narratives=narratives,
        narrative_digest=digest,
        current=current,
        conversation=conversation_of(session),
        profile=profile_of(row),
        dashboard=dashboard,
        today=today.isoformat(),
    )


async def with_meal_recipes(work: UnitOfWork, entries: Sequence[RefEntry]) -> list[RefEntry]:
    """The entries with each meal's label naming its recipe ('Sat Nov 28 [dinner] → recipe_3 Salmon') or saying it
    has none, so a role can act on "the recipe planned for Saturday" (the registry's own labels are unchanged)."""
    meals = {entry.row_id: entry for entry in entries
             if entry.entity_type == MEAL_PLANS.entity_type and entry.row_id and entry.deleted_turn is None}
    if not meals:
        return list(entries)
    rows = await work.store.select(MEAL_PLANS, Query(where=Where(all_of=(Filter("id", "in", sorted(meals)),)),
                                                     columns=("id", "recipe_id", "notes")), user_id=work.user_id)
    recipe_ids = sorted({row["recipe_id"] for row in rows if row.get("recipe_id")})
    recipes = await work.store.select(RECIPES, Query(where=Where(all_of=(Filter("id", "in", recipe_ids),)),
                                                     columns=("id", "name")), user_id=work.user_id) if recipe_ids else []
    registry, turn = work.session.registry, work.session.turn
    named: dict[str, str] = {}
    for recipe in recipes:
        ref, _ = registry.register_link(RECIPES.entity_type, recipe["id"], turn=turn)
        if registry.entry(ref).label is None:
            registry.set_label(ref, row_label(RECIPES, recipe))
        named[recipe["id"]] = f"{ref} {registry.entry(ref).label}"
    planned = {row["id"]: named.get(row.get("recipe_id") or "") for row in rows}
    notes = {row["id"]: meal_note(row) for row in rows}
    return [replace(entry, label=_meal_label(entry.label, planned[entry.row_id], notes[entry.row_id]))
            if entry.row_id in planned and entry.row_id is not None else entry for entry in entries]


def _meal_label(label: str | None, recipe: str | None, note: str | None) -> str:
    """'Sat Nov 28 [dinner] → recipe_3 Salmon', 'Mon Nov 30 [lunch] (no recipe, planned as "leftover chicken")'."""
    if recipe:
        return f"{label or 'meal'} → {recipe}"
    return f'{label or "meal"} (no recipe, planned as "{note}")' if note else f"{label or 'meal'} (no recipe)"
