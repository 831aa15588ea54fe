"""shopping_list_show and shopping_list_check: the list as a checklist by store section, and ticking lines off.

A line says what to buy (quantity and unit as a cook writes them), where it came from (the recipes
shopping_list_from named, or the user's own note) and whether it is bought. Ticking sets
`is_purchased` and puts what the line said to buy in the pantry (`restocking`); unticking clears it and takes that
back (kitchen_undo takes a tick back whole too). Nothing else about the line changes. A db_update setting `is_purchased`
ticks only, and says so (`ticked_not_stocked`): a client ticking that way adds to the pantry itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.ingredient_kinds import unnamed_cuts
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import SHOPPING_LIST
from alfred_mcp.kitchen.sections import section_order, store_section
from alfred_mcp.kitchen.shopping_lines import own_notes, shopping_text, source_text
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.operations.conflicts import standing_constraints
from alfred_mcp.operations.cooked_lines import DoneUses, done_uses
from alfred_mcp.operations.crud import rows_to_refs
from alfred_mcp.operations.restocking import stock_bought, unstock_bought
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.note_facts import NoteFact, noted
from alfred_mcp.state.note_facts import nothing_stocked as nothing_stocked_fact
from alfred_mcp.state.note_facts import ticked_not_stocked as ticked_fact
from alfred_mcp.state.pantry import row_kind
from alfred_mcp.store.base import Row

MAX_LINES = 500


async def checklist(work: UnitOfWork, *, to_buy: bool = False) -> dict[str, Any]:
    """Every line of the list grouped by store section (in the order a shopper walks), with the whole list's open and
    bought counts; `to_buy`: only the lines not bought yet."""
    rows = await work.store.select(SHOPPING_LIST, Query(limit=MAX_LINES), user_id=work.user_id)
    total, bought = len(rows), sum(1 for row in rows if row.get("is_purchased"))
    lines = await _lines(work, [row for row in rows if not (to_buy and row.get("is_purchased"))], action="read")
    sections: dict[str, list[dict[str, Any]]] = {}
    for line in sorted(lines, key=lambda line: (line["name"].lower(), line["ref"])):
        sections.setdefault(line["section"], []).append(line)
    work.session.record_call(CallRecord(turn=work.session.turn, tool="shopping_list_show", table="shopping_list", action="read",
                                        refs=[line["ref"] for line in lines], count=len(lines)))
    return {
        "sections": [{"section": name, "lines": sections[name]} for name in sorted(sections, key=section_order)],
        "open": total - bought, "bought": bought, "truncated": len(rows) >= MAX_LINES,
    }


async def mark_bought(work: UnitOfWork, refs: Sequence[str], bought: bool, today: date) -> dict[str, Any]:
    """Tick (or untick) the lines `refs`; the lines as they are now, what ticking lines not bought before put in the
    pantry (`stocked`, bought on `today`) or unticking lines bought took back (`unstocked`), and the list's open and
    bought counts.

    Raises:
        InvalidRefError, UnknownRefError, DeletedRefError: an item that is not a known shopping line.
        InputError: a line deleted since it was shown (naming `items`); nothing is changed.
    """
    session = work.session
    ids = list(dict.fromkeys(session.registry.resolve(ref, expected_type=SHOPPING_LIST.entity_type, field="items")
                             for ref in refs))
    async with work.atomic():
        before = await work.store.select(SHOPPING_LIST, Query(where=Where(all_of=(Filter("id", "in", ids),))), user_id=work.user_id)
        rows = await work.store.update(SHOPPING_LIST, Where(all_of=(Filter("id", "in", ids),)), {"is_purchased": bought},
                                       user_id=work.user_id)
        if len(rows) != len(ids):
            gone = sorted({ref for ref in refs if session.registry.resolve(ref) not in {row["id"] for row in rows}})
            raise InputError(f"items: {', '.join(gone)} no longer on the shopping list (deleted elsewhere); nothing was changed.",
                             field="items", value=gone)
        lines = await _lines(work, rows, action="updated")
        newly = [row for row in before if bought and not row.get("is_purchased")]
        stocked = await stock_bought(work, newly, today) if newly else []
        unticked = [row for row in before if not bought and row.get("is_purchased")]
        unstocked = await unstock_bought(work, unticked, today) if unticked else []
        session.record_call(CallRecord(turn=session.turn, tool="shopping_list_check", table="shopping_list", action="updated",
                                       refs=[line["ref"] for line in lines], count=len(lines)))
    status = await work.store.select(SHOPPING_LIST, Query(columns=("is_purchased",), limit=MAX_LINES), user_id=work.user_id)
    done = sum(1 for row in status if row.get("is_purchased"))
    unknown = [str(entry["name"]) for entry in stocked if "ref" not in entry]  # a line with no amount: nothing stocked
    return {"lines": lines, **({"stocked": stocked} if bought else {"unstocked": unstocked}), "open": len(status) - done,
            "bought": done, **noted([nothing_stocked_fact(unknown)] if unknown else [])}


def ticked_not_stocked(data: Mapping[str, Any], lines: int) -> list[NoteFact]:
    """What a db_update ticking shopping lines bought says: it ticks them and leaves the pantry as it is (a client that
    ticks with db_update adds to the pantry itself, in its own words: stocking here too would count what was bought
    twice), and how the pantry gets what was bought. Nothing for an update that does not tick."""
    if data.get("is_purchased") is not True:
        return []
    return [ticked_fact(lines)]


async def _lines(work: UnitOfWork, rows: list[Row], *, action: str) -> list[dict[str, Any]]:
    taxonomy = default_taxonomy()
    views = await rows_to_refs(work, SHOPPING_LIST, rows, action=action)
    standing = await standing_constraints(work) if views else None
    done = await done_uses(work.store, work.user_id) if views else DoneUses()
    return [_line(view, store_section(view["name"], view.get("category"), taxonomy, view.get("unit")),
                  standing.disliked(str(view["name"])) if standing else None, for_cooked=done.done_with(row))
            for row, view in zip(rows, views)]


def _line(view: dict[str, Any], section: str, disliked: str | None = None, *, for_cooked: bool = False) -> dict[str, Any]:
    """A line as the checklist shows it; `disliked`: the user's dislike it is the thing of, marked as a recipe card
    marks it (a meal planned before the dislike, or a line a person added, can still list it); `for_cooked`: open, and
    listed only for meals already cooked (`cooked_lines`), marked so, never removed."""
    quantity = None if view.get("quantity") is None else float(view["quantity"])
    cut = unnamed_cuts(view["name"], row_kind(view))  # '2 lb bone-in, skin-on chicken thighs', as shopping_list_from says it
    line: dict[str, Any] = {"ref": view["id"], "name": view["name"], "quantity": quantity, "unit": view.get("unit"),
                            "text": shopping_text({**view, "name": f"{cut} {view['name']}"} if cut else view), "section": section,
                            "source": source_text(view.get("source")), "bought": bool(view.get("is_purchased"))}
    notes = own_notes(view.get("notes"))
    if notes and cut and notes == cut:
        notes = None  # the cut is said in the text
    if notes and disliked is not None:  # the 'disliked' mark says it: not again as a note (cook's QA 2 G11)
        notes = "; ".join(part for part in notes.split("; ") if part.strip() != f"you don't like {disliked}") or None
    if notes:
        line["notes"] = notes
    if disliked is not None:
        line["disliked"] = disliked
    if for_cooked:
        line["for_cooked"] = True
    return line
