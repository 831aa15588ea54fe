"""What a destructive call would remove, found before it runs: what a confirmation asks about.

Only calls that remove rows are previewed (db_delete, and kitchen_undo when it reverts a create or
a save). A preview writes nothing; when the call's arguments are wrong it returns None and the call
itself reports the error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from alfred_mcp.errors import AlfredError
from alfred_mcp.kitchen.plurals import counted_name
from alfred_mcp.kitchen.query import Query, where_from_json
from alfred_mcp.kitchen.schema import Table, get_table, row_label
from alfred_mcp.operations import crud, undo, unlinking
from alfred_mcp.operations.kept_rows import refuse_kept
from alfred_mcp.session import UnitOfWork
from alfred_mcp.store.reach import delete_reach

MAX_NAMED = 5


@dataclass(frozen=True)
class Removal:
    """Rows a call would remove: how many, of which table, whether recipes are among them, and a few names."""

    table: str
    count: int
    recipes: int
    names: tuple[str, ...]
    what: str
    """Which call, for the question: 'db_delete', or 'undo of the draft_save of turn 3'."""
    left_pointing: tuple[str, ...] = ()
    """Rows the removal would leave pointing at nothing (a meal without its recipe), a few by name."""
    left_count: int = 0

    @property
    def needs_confirmation(self) -> bool:
        """More than one row, or any recipe."""
        return self.count > 1 or self.recipes > 0

    def question(self) -> str:
        table = get_table(self.table)
        shown = ", ".join(self.names) + (f" and {self.count - len(self.names)} more" if self.count > len(self.names) else "")
        noun = counted_name(table.noun, self.count)
        extra = (" with its ingredients" if self.count == 1 else " with their ingredients") if self.recipes else ""
        question = f"{self.what}: permanently remove {self.count} {noun}{extra} ({shown})?"
        if self.left_count:
            more = f" and {self.left_count - len(self.left_pointing)} more" if self.left_count > len(self.left_pointing) else ""
            question += f" It would leave {', '.join(self.left_pointing)}{more} pointing at what it removes."
        return question


async def preview_removal(work: UnitOfWork, tool: str, args: Mapping[str, Any]) -> Removal | None:
    """What `tool` called with `args` would remove, or None (it removes nothing, or its arguments are wrong)."""
    try:
        if tool == "db_delete":
            return await _delete_preview(work, args)
        if tool == "kitchen_undo":
            return await _undo_preview(work)
    except AlfredError:
        return None
    return None


async def _delete_preview(work: UnitOfWork, args: Mapping[str, Any]) -> Removal | None:
    table = get_table(str(args.get("table")))
    where = where_from_json(args.get("filters"), args.get("or_filters"))
    target = await crud.deletion_scope(work, table, where, all_rows=bool(args.get("all")))
    count = await work.store.count(table, target, user_id=work.user_id)
    if not count:
        return None
    rows = await work.store.select(table, Query(where=target), user_id=work.user_id)  # as many as the delete reads
    await refuse_kept(work, table, [row["id"] for row in rows])  # what the user said stays: refused, never asked about
    reach = await delete_reach(work.store, table, [row["id"] for row in rows], user_id=work.user_id)
    pointing = [u for u, _ in await unlinking.left_pointing(work, table, reach, rows)]
    left = tuple(f"the {get_table(u.table).noun} {name}"
                 for u in pointing[:MAX_NAMED] for name in _names(work, get_table(u.table), [u.row]))
    return Removal(table.name, count, count if table.name == "recipes" else 0, _names(work, table, rows[:MAX_NAMED]), "db_delete",
                   left_pointing=left, left_count=len(pointing))


async def _undo_preview(work: UnitOfWork) -> Removal | None:
    entry, rows_by_table = await undo.preview(work)
    roots = [(get_table(name), rows) for name, rows in rows_by_table.items() if rows]
    if not roots:
        return None
    table, rows = roots[0]
    count = sum(len(rows) for _, rows in roots)
    recipes = sum(len(rows) for t, rows in roots if t.name == "recipes")
    return Removal(table.name, count, recipes, _names(work, table, rows[:MAX_NAMED]), f"Undo of {entry.describe()}")


def _names(work: UnitOfWork, table: Table, rows: list[dict[str, Any]]) -> tuple[str, ...]:
    names = []
    for row in rows:
        ref = work.session.registry.ref_for_row(str(row["id"]))
        label = row_label(table, row)
        names.append(f"{ref} ({label})" if ref else label)
    return tuple(names)

