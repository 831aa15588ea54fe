"""Draft and batch tools: hold generated content as gen_* drafts, save them under a manifest."""

from __future__ import annotations

from datetime import date
from typing import Any

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.day_words import row_days
from alfred_mcp.kitchen.schema import INVENTORY, SHOPPING_LIST, TABLE_BY_ENTITY_TYPE
from alfred_mcp.operations import drafting
from alfred_mcp.operations.allergies import parse_override
from alfred_mcp.operations.constraint_warnings import draft_warnings
from alfred_mcp.operations.double_booking import Slot, booking_warnings, slots_of_drafts
from alfred_mcp.operations.listed_twice import already_there
from alfred_mcp.operations.meal_servings import household, household_note
from alfred_mcp.operations.occasion_servings import occasion_warnings
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult, work_on
from alfred_mcp.server.tools.common import session_context as _context
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.batch import BatchManifest
from alfred_mcp.state.drafts import Draft
from alfred_mcp.state.note_facts import noted
from alfred_mcp.state.shortfalls import shortfall_warnings


def draft_view(draft: Draft) -> dict[str, Any]:
    """A draft as a client sees it: whole content, refs only."""
    return {
        "ref": draft.ref, "entity_type": draft.entity_type, "label": draft.label, "status": draft.status,
        "saved_as": draft.saved_as, "turn_created": draft.turn_created, "turn_updated": draft.turn_updated,
        "content": draft.content,
    }


def manifest_view(manifest: BatchManifest) -> dict[str, Any]:
    return {
        "batch": str(manifest.step), "subdomain": manifest.subdomain, "policy": manifest.policy,
        "outcome": manifest.outcome, "items": [item.to_dict() for item in manifest.items],
        "progress": manifest.progress(), "summary": manifest.summary(),
    }


async def meal_warnings(work: UnitOfWork, slots: list[Slot]) -> list[str]:
    """Meal drafts planned where that day has a meal, or on the occasion's day for other servings than it is for."""
    return await booking_warnings(work, slots) + await occasion_warnings(work, slots)


async def warnings_of(work: UnitOfWork, drafts: list[Draft]) -> dict[str, list[str]]:
    """{"warnings": [...]} when the drafts hold an allergen, a disliked or an excluded ingredient, or plan a meal where
    that day has one, else nothing."""
    warnings = await draft_warnings(work, drafts) + await meal_warnings(work, slots_of_drafts(drafts))
    return {"warnings": warnings} if warnings else {}


SERVINGS_KEYS = ("servings", "serves")
"""How a recipe item gives its servings (`state/drafts.py`: RecipeDraft)."""


async def _recipes_for_the_household(work: UnitOfWork, entity_type: str, items: list[Any]) -> list[Any]:
    """Recipe items that give no servings made for the household (when its profile names one): a draft sent ahead of a
    session's first answer, before its model saw the household, is then for them, as a meal planned without servings is."""
    bare = [item for item in items if isinstance(item, dict) and all(item.get(key) is None for key in SERVINGS_KEYS)]
    found = await household(work) if entity_type == "recipe" and bare else None
    if found is None:
        return items
    return [{**item, "servings": found.servings} if any(item is given for given in bare) else item for item in items]


def _days_said(entity_type: str, items: list[Any]) -> list[Any]:
    """Items with a day word ('friday', 'tomorrow') in a date column of their table written as YYYY-MM-DD, on the
    server's clock (`kitchen/day_words.py`), as the table tools take them."""
    table = TABLE_BY_ENTITY_TYPE.get(entity_type)
    today = date.today()
    return items if table is None else [row_days(table, item, today) if isinstance(item, dict) else item for item in items]


async def draft_create(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "draft_create", args) as work:
        session = work.session
        items = await _recipes_for_the_household(work, args["entity_type"], _days_said(args["entity_type"], args["items"]))
        drafts = drafting.create_drafts(session, args["entity_type"], items)
        await drafting.check_rows_exist(work, drafts)
        warned = await warnings_of(work, drafts)
        return {"drafts": [draft_view(d) for d in drafts], "count": len(drafts), **warned, **_context(session)}


async def draft_read(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "draft_read", args) as work:
        session = work.session
        if args.get("refs"):
            drafts = drafting.load_drafts(session, args["refs"])
            for draft in drafts:
                session.registry.touch(draft.ref, turn=session.turn)
        else:
            drafts = drafting.list_drafts(session, include_done=bool(args.get("include_done")))
        return {"drafts": [draft_view(d) for d in drafts], "count": len(drafts), **_context(session)}


async def draft_revise(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "draft_revise", args) as work:
        session = work.session
        kind = args["ref"].removeprefix("gen_").rpartition("_")[0]
        patch, content = (_days_said(kind, [given])[0] if isinstance(given, dict) else given for given in (args.get("patch"), args.get("content")))
        draft = drafting.revise(session, args["ref"], patch=patch, content=content)
        await drafting.check_rows_exist(work, [draft])
        return {"draft": draft_view(draft), **await warnings_of(work, [draft]), **_context(session)}


async def draft_discard(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "draft_discard", args) as work:
        session = work.session
        drafts = drafting.discard(session, args["refs"])
        return {"drafts": [draft_view(d) for d in drafts], "count": len(drafts), **_context(session)}


async def draft_save(app: AlfredApp, args: ToolArgs) -> ToolResult:
    override = parse_override(args.get("allergy_override"))
    async with work_on(app, "draft_save", args) as work:
        session = work.session
        manifest, items = await drafting.save_drafts(work, args["refs"], batch=args.get("batch"), policy=args.get("policy"),
                                                     allergy_override=override)
        result = {
            "batch": manifest_view(manifest),
            "items": [vars(item) for item in items],
            "saved": sum(item.status == "completed" for item in items),
            "failed": sum(item.status != "completed" for item in items),
            **await _saved_bookings(work, [item.ref for item in items if item.saved_as],
                                    await _listed_twice(work, [item.saved_as for item in items if item.saved_as])),
            **await _household_servings(work, [item.ref for item in items if item.saved_as]),
            **_context(session),
        }
        return {**result, **shortfall_warnings("draft_save", result)}


async def _saved_bookings(work: UnitOfWork, refs: list[str], more: list[str]) -> dict[str, list[str]]:
    """{"warnings": [...]} when a saved meal draft planned a meal where that day already has one, or `more` has
    some, else nothing."""
    warnings = await meal_warnings(work, slots_of_drafts(drafting.load_drafts(work.session, refs))) + more
    return {"warnings": warnings} if warnings else {}


async def _household_servings(work: UnitOfWork, refs: list[str]) -> dict[str, list[Any]]:
    """{"notes": [...], "note_facts": [...]} naming the saved meals made for the household because their drafts gave no
    servings (`note_facts.noted`)."""
    defaulted = [slot.ref for slot in slots_of_drafts(drafting.load_drafts(work.session, refs)) if slot.servings is None and slot.ref]
    notes = household_note(await household(work), defaulted) if defaulted else []
    return noted(notes)


async def _listed_twice(work: UnitOfWork, saved: list[str]) -> list[str]:
    """A saved shopping line for what the list holds unbought, or a pantry row where the item is kept already
    (`listed_twice`)."""
    warnings: list[str] = []
    for table in (SHOPPING_LIST, INVENTORY):
        warnings += await already_there(work, table, [ref for ref in saved if ref.startswith(f"{table.entity_type}_")])
    return warnings


async def batch_open(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "batch_open", args) as work:
        session = work.session
        manifest = drafting.open_batch(session, args["refs"], args.get("policy"))
        return {"batch": manifest_view(manifest), **_context(session)}


async def batch_status(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "batch_status", args) as work:
        session = work.session
        return {"batch": manifest_view(drafting.load_manifest(session, args.get("batch"))), **_context(session)}


async def batch_skip(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "batch_skip", args) as work:
        session = work.session
        manifest = drafting.skip_items(session, args["batch"], args["refs"], args["reason"])
        return {"batch": manifest_view(manifest), **_context(session)}


async def batch_complete(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "batch_complete", args) as work:
        session = work.session
        manifest = drafting.complete_batch(session, args["batch"])
        return {"batch": manifest_view(manifest), **_context(session)}


HANDLERS: dict[str, Handler] = {
    "draft_create": draft_create,
    "draft_read": draft_read,
    "draft_revise": draft_revise,
    "draft_discard": draft_discard,
    "draft_save": draft_save,
    "batch_open": batch_open,
    "batch_status": batch_status,
    "batch_skip": batch_skip,
    "batch_complete": batch_complete,
}
