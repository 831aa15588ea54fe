"""What a delete reaches beyond its own rows, read before it runs: the children it will cascade to and the
rows whose reference it will clear (ON DELETE SET NULL), per the schema's foreign keys, on any backend.

The undo journal keeps these rows to put them back; a removal's result names them (`cascaded`, `unlinked`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from alfred_mcp.kitchen.query import MAX_IN_VALUES, Filter, Query, Where
from alfred_mcp.kitchen.schema import Table, children_of
from alfred_mcp.store.base import KitchenStore, Row

MAX_DEPTH = 3
"""Cascades followed this deep (the schema's deepest is one: a recipe's ingredients)."""


@dataclass(frozen=True)
class Unlinking:
    """A row whose foreign key `column` (of `table`) the delete clears, as it was before."""

    table: str
    column: str
    row: Row


@dataclass
class DeleteReach:
    """Rows a delete takes with it (by table) and rows it leaves pointing at nothing."""

    cascaded: dict[str, list[Row]] = field(default_factory=dict)
    unlinked: list[Unlinking] = field(default_factory=list)


async def delete_reach(
    store: KitchenStore, table: Table, ids: Sequence[str], *, user_id: str, limit: int | None = None
) -> DeleteReach:
    """What deleting the rows `ids` of `table` will cascade to and unlink (`limit`: rows read per query chunk)."""
    reach = DeleteReach()
    await _walk(store, table, list(ids), reach, user_id, limit, depth=0)
    return reach


async def _walk(
    store: KitchenStore, table: Table, ids: list[str], reach: DeleteReach, user_id: str, limit: int | None, *, depth: int
) -> None:
    if not ids or depth > MAX_DEPTH:
        return
    for child, column in children_of(table.name):
        if column.fk is None:
            continue
        rows = await _rows_pointing(store, child, column.name, ids, user_id, limit)
        if column.fk.on_delete == "cascade":
            reach.cascaded.setdefault(child.name, []).extend(rows)
            await _walk(store, child, [row["id"] for row in rows], reach, user_id, limit, depth=depth + 1)
        else:
            reach.unlinked.extend(Unlinking(child.name, column.name, row) for row in rows if row["id"] not in ids)


async def _rows_pointing(
    store: KitchenStore, child: Table, column: str, ids: list[str], user_id: str, limit: int | None
) -> list[Row]:
    rows: list[Row] = []
    for start in range(0, len(ids), MAX_IN_VALUES):
        where = Where(all_of=(Filter(column, "in", ids[start:start + MAX_IN_VALUES]),))
        rows.extend(await store.select(child, Query(where=where, limit=limit), user_id=user_id))
    return rows
