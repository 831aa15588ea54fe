"""Shopping lines whose notes say what a pantry row held follow that row when it is deleted or changed.

shopping_list_from lists the shortfall of what the pantry holds and says so ('1 1/2 lb spaghetti (the pantry has
1 lb)'). That note and that amount are derived from the pantry row: when a db_delete removes the row, the open line
gets back what the row was counted for (the note's amount, in the line's unit) and no longer says the pantry has it;
when a db_update changes what the row holds, the line takes the difference and says what it holds now. A note whose
amount does not compare with the line is kept as the person's note, saying the row is gone or changed, so nothing
reads as if the pantry still held it. The lines are written in the same unit of work as the pantry write, so
kitchen_undo of it puts both back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from alfred_mcp.kitchen.measures import Amount, convert_for, held, to_buy
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import INVENTORY, SHOPPING_LIST
from alfred_mcp.kitchen.shopping_lines import PANTRY, SEPARATOR, pantry_held, parsed_amount, shopping_text
from alfred_mcp.operations.crud import rows_to_refs
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.note_facts import NoteFact, pantry_followed
from alfred_mcp.state.pantry import Stock, row_kind
from alfred_mcp.store.base import Row

EPSILON = 1e-9


async def follow_pantry(work: UnitOfWork) -> list[NoteFact]:
    """Rewrite the open shopping lines whose pantry note names a pantry row this unit deleted or changed; one fact per
    line rewritten, naming it and what it says now."""
    changes = list(_pantry_changes(work))
    if not changes:
        return []
    lines = Stock(await work.store.select(SHOPPING_LIST, Query(limit=5_000), user_id=work.user_id))
    said: list[NoteFact] = []
    done: set[Any] = set()
    for before, after in changes:
        for line in lines.matching(str(before.get("name") or ""), before.get("ingredient_id"), row_kind(before)):
            if line["id"] in done or line.get("is_purchased") or pantry_held(line.get("notes")) is None:
                continue
            values = followed(line, before, after)
            if values is None:
                continue
            one = Where(all_of=(Filter("id", "eq", line["id"]),))
            (written,) = await work.store.update(SHOPPING_LIST, one, values, user_id=work.user_id)
            done.add(line["id"])
            (shown,) = await rows_to_refs(work, SHOPPING_LIST, [written], action="updated")
            said.append(pantry_followed(str(shown["id"]), str(written["name"]), str(before["name"]), after is None,
                                        shopping_text(written)))
    return said


def followed(line: Row, before: Row, after: Row | None) -> Row | None:
    """The values a shopping line takes when the pantry row its note counted (`before`) is deleted (`after` None) or
    holds `after` now; None when the line need not change."""
    name = str(line["name"])
    was_text = pantry_held(line.get("notes")) or ""
    now_text = None if after is None or after.get("quantity") is None else \
        held(Amount(float(after["quantity"]), after.get("unit")), name)
    if after is not None and (after.get("quantity"), after.get("unit")) == (before.get("quantity"), before.get("unit")):
        return None  # the row changed, not what it holds
    was = _in_line_unit(name, was_text, line, before)
    empty = after is None or (after.get("quantity") is not None and float(after["quantity"]) <= EPSILON)  # gone, used up
    now: float | None = 0.0
    if not empty and after is not None:
        now = _in_line_unit(name, now_text, line, after) if now_text else None
    segments = [part.strip() for part in str(line.get("notes") or "").split(SEPARATOR) if part.strip()]
    if was is None or now is None or line.get("quantity") is None:  # what it held does not compare: said, not counted
        state = "deleted since" if after is None else f"holds {now_text} now"
        note = f"the pantry had {was_text} when listed ({state}): check the amount"
        return {"notes": SEPARATOR.join(note if part.startswith(PANTRY) else part for part in segments)}
    quantity = float(line["quantity"]) + was - now
    shown = to_buy(Amount(max(quantity, EPSILON), line.get("unit")), name)
    keep = [part for part in segments if not part.startswith(PANTRY)]
    if after is not None and now > EPSILON:
        keep.append(PANTRY + (now_text or ""))
    values: Row = {"notes": SEPARATOR.join(keep) or None}
    if quantity > EPSILON:
        values.update(quantity=shown.quantity, unit=shown.unit)
    else:
        values["notes"] = SEPARATOR.join([*keep, "the pantry may cover this now: check before buying"])
    return values


def _in_line_unit(name: str, text: str, line: Row, row: Row) -> float | None:
    """The amount a pantry note says ('8 oz', '2' of the line's pieces, '1 lb'), in the line's unit; None when it does
    not read or compare (a container's part, 'about ...')."""
    read = parsed_amount(text)
    if read is None:
        return None
    quantity, unit = read
    if unit is None and row.get("unit") not in (None, "piece"):
        unit = row.get("unit")
    return convert_for(name, quantity, unit, line.get("unit"))


def _pantry_changes(work: UnitOfWork) -> Iterable[tuple[Row, Row | None]]:
    """Each pantry row this unit deleted (with None) or updated (with the row as the update left it)."""
    for step in work.journal.steps:
        if step.table != INVENTORY.name:
            continue
        if step.kind == "delete":
            yield from ((row, None) for row in step.before)
        elif step.kind == "update":
            before = {row["id"]: row for row in step.before}
            yield from ((before[row["id"]], row) for row in step.after if row["id"] in before)
