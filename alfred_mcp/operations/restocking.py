"""What a shopping line ticked as bought puts in the pantry: its amount, added to the row of the same ingredient
that has no use-by date of its own and a unit it converts to (10 eggs and 12 bought are 22), else as a new row
bought today (a dated row is its own batch: 12 new eggs do not take the old ones' use-by date).

A line without an amount stocks nothing and says so; a line already bought is not stocked twice.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from alfred_mcp.kitchen.measures import Amount, convert_for, held
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import INVENTORY
from alfred_mcp.operations.crud import rows_to_refs
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.pantry import Stock, row_kind
from alfred_mcp.store.base import Row


def into_row(line: Row, pantry: Stock) -> tuple[Row | None, float]:
    """The pantry row a bought line adds to and its amount in that row's unit; (None, the line's amount) for a new row."""
    quantity = float(line["quantity"])
    for row in pantry.matching(str(line["name"]), line.get("ingredient_id"), row_kind(line)):
        if row.get("expiry_date") is None and row.get("quantity") is not None:
            added = convert_for(str(line["name"]), quantity, line.get("unit"), row.get("unit"))
            if added is not None:
                return row, added
    return None, quantity


async def stock_bought(work: UnitOfWork, lines: list[Row], today: date) -> list[dict[str, Any]]:
    """Put the bought `lines` in the pantry (inside the caller's transaction); each as the result reports it: the
    pantry row's ref, what was added and what it holds now, or why nothing was stocked."""
    pantry = Stock(await work.store.select(INVENTORY, Query(limit=5_000), user_id=work.user_id))
    stocked: list[tuple[dict[str, Any], Row]] = []
    said: list[dict[str, Any]] = []
    for line in lines:
        name = str(line["name"])
        if line.get("quantity") is None:
            said.append({"name": name, "note": "the line has no amount: nothing stocked"})
            continue
        row, added = into_row(line, pantry)
        if row is None:
            (written,) = await work.store.insert(INVENTORY, [{
                "name": name, "quantity": added, "unit": line.get("unit") or "piece", "purchase_date": today.isoformat(),
                **{key: line[key] for key in ("ingredient_id", "category") if line.get(key) is not None}}], user_id=work.user_id)
            pantry.rows.append(written)
            pantry = Stock(pantry.rows)
        else:
            now = float(row["quantity"]) + added
            (written,) = await work.store.update(INVENTORY, Where(all_of=(Filter("id", "eq", row["id"]),)),
                                                 {"quantity": round(now, 4), "purchase_date": today.isoformat()}, user_id=work.user_id)
            pantry = Stock([written if other["id"] == row["id"] else other for other in pantry.rows])
        item = {"name": name, "added": held(Amount(added, written.get("unit")), name),
                "now": held(Amount(float(written["quantity"]), written.get("unit")), name), "new": row is None}
        stocked.append((item, written))
    views = await rows_to_refs(work, INVENTORY, [row for _, row in stocked], action="updated") if stocked else []
    for action, new in (("created", True), ("updated", False)):  # what a reply says it stocked is backed by the call
        refs = [view["id"] for (item, _), view in zip(stocked, views) if item["new"] is new]
        if refs:
            work.session.record_call(CallRecord(turn=work.session.turn, tool="shopping_list_check", table="inventory",
                                                action=action, refs=refs, count=len(refs)))
    return [{"ref": view["id"], **item} for (item, _), view in zip(stocked, views)] + said
