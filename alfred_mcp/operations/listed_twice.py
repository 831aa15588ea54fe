"""A write that puts an item where it already is: a shopping line for what the list holds unbought (the same ingredient
by catalog link or folded name and kind, as `shopping_list_from` decides 'already listed'), or a second pantry row of
an item kept in the same place. The write is done (what a person asked for is never dropped); a warning names the row
already there, its ref and amount ('milk is already on the list: shop_2, 1 gallon'), so the model can say so or merge.
"""

from __future__ import annotations

from collections.abc import Sequence

from alfred_mcp.kitchen.measures import amount_text
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import INVENTORY, SHOPPING_LIST, Table
from alfred_mcp.operations.crud import ref_of
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.pantry import Stock, row_kind
from alfred_mcp.store.base import Row

CHECKED = (SHOPPING_LIST.name, INVENTORY.name)
"""The tables where a second row of one item is worth a word."""


async def already_there(work: UnitOfWork, table: Table, refs: Sequence[str]) -> list[str]:
    """One warning per row just written (`refs`) whose item a row written before it already holds: an unbought line
    on the list, or a pantry row in the same place; none for other tables."""
    if table.name not in CHECKED or not refs:
        return []
    registry = work.session.registry
    written = [registry.resolve(ref, expected_type=table.entity_type, field="id") for ref in refs]
    rows = await work.store.select(table, Query(limit=5_000), user_id=work.user_id)
    by_id = {str(row["id"]): row for row in rows}
    new = [by_id[row_id] for row_id in written if row_id in by_id]
    fresh = set(written)
    before = Stock([row for row in rows if str(row["id"]) not in fresh and not row.get("is_purchased")])
    warnings = []
    for row in new:
        there = [other for other in before.matching(str(row["name"]), row.get("ingredient_id"), row_kind(row))
                 if table.name == SHOPPING_LIST.name or other.get("location") == row.get("location")]
        if there:
            warnings.append(_warning(work, table, row, there[0]))
    return warnings


def _warning(work: UnitOfWork, table: Table, row: Row, there: Row) -> str:
    amount = amount_text(there.get("quantity"), there.get("unit")) or "no amount"
    place = "on the list" if table.name == SHOPPING_LIST.name else f"in the {there.get('location') or 'pantry'}"
    second = "line" if table.name == SHOPPING_LIST.name else "row"
    return f"{row['name']} is already {place}: {ref_of(work, table, there)}, {amount}; a second {second} was added (merge them if one)."
