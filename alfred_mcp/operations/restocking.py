"""What a shopping line ticked as bought puts in the pantry: what the line told the shopper to take ('1 bottle mirin
(need 1 1/2 tbsp)' stocks 1 bottle, '1 lemon' one lemon; `shopping_lines.bought_amounts`), added to the pantry row of
the same ingredient in that row's unit when they convert (a carton onto cartons, 1 lemon onto 3 lemons; a row with no
use-by date of its own first), else as a new row bought today, kept where the ingredient's other rows are, else where
its store section is kept (`storage_places`: fresh produce by its name, onions and tomatoes on the counter).

A line without an amount stocks nothing and says so; a line already bought is not stocked twice. Unticking a line
takes back what ticking it stocked, from the row it went to (never below zero).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from alfred_mcp.kitchen.measures import Amount, held
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import INVENTORY
from alfred_mcp.kitchen.sections import store_section
from alfred_mcp.kitchen.shopping_lines import bought_amounts
from alfred_mcp.kitchen.storage_places import kept_in
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.operations.crud import rows_to_refs
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.pantry import Stock, in_unit, row_kind
from alfred_mcp.store.base import Row


def into_row(line: Row, amount: Amount, pantry: Stock, today: date) -> tuple[Row | None, float]:
    """The pantry row `amount` of a bought line adds to and the amount in that row's unit; (None, the amount) for a
    new row. A row with no use-by date comes first; a row past its use-by date takes nothing (it is not kept)."""
    name = str(line["name"])
    rows = pantry.matching(name, line.get("ingredient_id"), row_kind(line))
    for row in sorted(rows, key=lambda row: row.get("expiry_date") is not None):
        if row.get("quantity") is not None and str(row.get("expiry_date") or "9999") >= today.isoformat():
            added = in_unit(name, amount.quantity, amount.unit, row.get("unit"))
            if added is not None:
                return row, added
    return None, amount.quantity


def location_for(line: Row, pantry: Stock) -> str | None:
    """Where a new row of the line's ingredient is kept: where its other rows are, else where its store section is."""
    rows = pantry.matching(str(line["name"]), line.get("ingredient_id"), row_kind(line))
    known = next((row["location"] for row in rows if row.get("location")), None)
    name = str(line["name"])
    return known or kept_in(store_section(name, line.get("category"), default_taxonomy(), line.get("unit")), name, line.get("unit"),
                          line.get("notes"))


async def stock_bought(work: UnitOfWork, lines: list[Row], today: date) -> list[dict[str, Any]]:
    """Put the bought `lines` in the pantry (inside the caller's transaction); each amount as the result reports it:
    the pantry row's ref, what was added and what it holds now, or why nothing was stocked."""
    pantry = Stock(await work.store.select(INVENTORY, Query(limit=5_000), user_id=work.user_id))
    stocked: list[tuple[dict[str, Any], Row]] = []
    said: list[dict[str, Any]] = []
    for line in lines:
        name = str(line["name"])
        amounts = bought_amounts(line)
        if not amounts:
            said.append({"name": name, "note": "the line has no amount: nothing stocked"})
        for amount in amounts:
            row, added = into_row(line, amount, pantry, today)
            if row is None:
                location = location_for(line, pantry)
                (written,) = await work.store.insert(INVENTORY, [{
                    "name": name, "quantity": added, "unit": amount.unit or "piece", "purchase_date": today.isoformat(),
                    **({"location": location} if location else {}),
                    **{key: line[key] for key in ("ingredient_id", "category") if line.get(key) is not None}}],
                    user_id=work.user_id)
                pantry = Stock([*pantry.rows, written])
            else:
                now = float(row["quantity"]) + added
                (written,) = await work.store.update(INVENTORY, Where(all_of=(Filter("id", "eq", row["id"]),)),
                                                     {"quantity": round(now, 4), "purchase_date": today.isoformat()},
                                                     user_id=work.user_id)
                pantry = Stock([written if other["id"] == row["id"] else other for other in pantry.rows])
            item = {"name": name, "added": held(Amount(added, written.get("unit")), name),
                    "now": held(Amount(float(written["quantity"]), written.get("unit")), name), "new": row is None}
            stocked.append((item, written))
    views = await rows_to_refs(work, INVENTORY, [row for _, row in stocked], action="updated") if stocked else []
    for action, new in (("created", True), ("updated", False)):  # what a reply says it stocked is backed by the call
        refs = [view["id"] for (item, _), view in zip(stocked, views) if item["new"] is new]
        if refs:
            work.session.record_call(CallRecord(turn=work.session.turn, tool="shopping_list_check", table="inventory",
                                                action=action, refs=list(dict.fromkeys(refs)), count=len(set(refs))))
    return [{"ref": view["id"], **item} for (item, _), view in zip(stocked, views)] + said


async def unstock_bought(work: UnitOfWork, lines: list[Row], today: date) -> list[dict[str, Any]]:
    """Take back from the pantry what ticking the `lines` stocked (inside the caller's transaction): each amount from
    the row ticking put it in, never below zero; a row bought today that this empties was the tick's own and goes.
    Each as the result reports it: the row's ref, what was taken and what it holds now (`gone` when deleted)."""
    pantry = Stock(await work.store.select(INVENTORY, Query(limit=5_000), user_id=work.user_id))
    taken: list[tuple[dict[str, Any], Row]] = []
    for line in lines:
        name = str(line["name"])
        for amount in bought_amounts(line):
            row, added = into_row(line, amount, pantry, today)
            if row is None:
                continue
            left = max(0.0, float(row["quantity"]) - added)
            where = Where(all_of=(Filter("id", "eq", row["id"]),))
            gone = left < 1e-9 and row.get("purchase_date") == today.isoformat()
            if gone:
                await work.store.delete(INVENTORY, where, user_id=work.user_id)
                pantry = Stock([other for other in pantry.rows if other["id"] != row["id"]])
                written = row
            else:
                (written,) = await work.store.update(INVENTORY, where, {"quantity": round(left, 4)}, user_id=work.user_id)
                pantry = Stock([written if other["id"] == row["id"] else other for other in pantry.rows])
            taken.append(({"name": name, "taken": held(Amount(float(row["quantity"]) - left, row.get("unit")), name),
                           "now": held(Amount(left, row.get("unit")), name), **({"gone": True} if gone else {})}, written))
    views = await rows_to_refs(work, INVENTORY, [row for _, row in taken], action="updated") if taken else []
    if views:
        refs = list(dict.fromkeys(view["id"] for view in views))
        work.session.record_call(CallRecord(turn=work.session.turn, tool="shopping_list_check", table="inventory",
                                            action="updated", refs=refs, count=len(refs)))
    return [{"ref": view["id"], **item} for (item, _), view in zip(taken, views)]
