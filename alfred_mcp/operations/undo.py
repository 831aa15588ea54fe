"""kitchen_undo: revert the session's newest kitchen write, if its rows are still as that call left them.

Rows it created are deleted (a saved draft becomes a pending draft again, under its gen ref), rows it
updated get their earlier values back, rows it deleted come back with the same ids, so the same refs
(with their children, and the references the delete had cleared, reported as `relinked`). Before anything is written every
row is checked; a row changed, deleted or pointed at since is a conflict, and the undo is refused
naming it: nothing is written. Each undo consumes one entry, so repeated calls walk back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from alfred_mcp.errors import UndoConflictError
from alfred_mcp.kitchen.query import MAX_IN_VALUES, Filter, Query, Where
from alfred_mcp.kitchen.schema import Table, children_of, get_table, row_label
from alfred_mcp.operations import unlinking
from alfred_mcp.operations.crud import rows_to_refs
from alfred_mcp.session import Session, UnitOfWork
from alfred_mcp.session.documents import DRAFTS, UNDO
from alfred_mcp.session.journal import not_journaled
from alfred_mcp.session.unit_of_work import undo_numbers
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.undo import UndoEntry, UndoStep, changed_columns, ids_of, writable_values
from alfred_mcp.store.base import Row

MAX_CONFLICTS_SHOWN = 5


@dataclass
class Undone:
    entry: UndoEntry
    removed: list[dict[str, Any]] = field(default_factory=list)
    restored: list[dict[str, Any]] = field(default_factory=list)
    reverted: list[dict[str, Any]] = field(default_factory=list)
    drafts_reopened: list[str] = field(default_factory=list)
    unlinked: list[dict[str, Any]] = field(default_factory=list)
    """Rows outside the entry that removing its rows left pointing at nothing (`operations/unlinking.py`)."""
    relinked: list[dict[str, Any]] = field(default_factory=list)
    """The mirror: rows whose reference the undone delete had cleared, pointing at the restored row again."""
    rows: int = 0
    """Rows the undo changed, each once: removed, reverted or restored (a recipe's ingredients included), and the rows
    it left pointing at nothing or pointed at a restored row again."""
    remaining: int = 0


def last_entry(session: Session) -> UndoEntry:
    """The session's newest undo entry.

    Raises:
        UndoConflictError: nothing to undo, or the newest write was too large to keep.
    """
    numbers = undo_numbers(session)
    entry = session.read(UNDO.at(numbers[-1])) if numbers else None
    if entry is None:
        raise UndoConflictError("Nothing to undo: this session has no kitchen write left to revert.", reason="nothing_to_undo")
    if entry.too_large:
        raise UndoConflictError(
            f"Cannot undo {entry.describe()}: it wrote more rows than an undo keeps. Nothing was changed.",
            reason="too_large", tool=entry.tool, turn=entry.turn,
        )
    return entry


async def preview(work: UnitOfWork) -> tuple[UndoEntry, dict[str, list[Row]]]:
    """The entry an undo would revert and the rows it would delete, by table, root tables first (no writes)."""
    entry = last_entry(work.session)
    removed: dict[str, list[Row]] = {}
    for step in entry.steps:
        if step.kind == "insert" and _own_table(step.table):
            removed.setdefault(step.table, []).extend(step.after)
    return entry, removed


def check_it_is_that(session: Session, entry: UndoEntry, turn: int | None) -> None:
    """'Undo that' means the latest turns' write: the newest entry must be of this turn or the one before, or of the
    `turn` the call names (when it names one, only that turn's).

    Raises:
        UndoConflictError: the turn before this one wrote nothing (an undo would revert an earlier turn's write as if it
            were 'that'), or the newest write is not of the named turn; it names the write and its turn.
    """
    what = f"{entry.describe()} ({_entry_labels(entry)})"
    if turn is not None and turn != entry.turn:
        raise UndoConflictError(f"The last write left to undo is {what}, not one of turn {turn}. Nothing was changed.",
                                reason="not_that_turn", tool=entry.tool, turn=entry.turn)
    if turn is None and entry.turn < session.turn - 1:
        raise UndoConflictError(
            f"Turn {session.turn - 1} wrote nothing in the kitchen; the last write is {what}. To undo it, call "
            f"kitchen_undo with turn: {entry.turn}. Nothing was changed.", reason="latest_turn_wrote_nothing",
            tool=entry.tool, turn=entry.turn)


def _own_table(name: str) -> bool:
    """Whether rows of `name` stand on their own (not lines a parent's delete cascades to, like a recipe's ingredients)."""
    return not any(c.fk and c.fk.on_delete == "cascade" for c in get_table(name).fk_columns)


def _entry_labels(entry: UndoEntry, shown: int = 3) -> str:
    """What the entry wrote, as labels of its rows (tables of their own, not a recipe's ingredient lines)."""
    labels = list(dict.fromkeys(
        row_label(get_table(step.table), row) for step in entry.steps
        if _own_table(step.table)
        for row in (step.before if step.kind == "delete" else step.after)))
    more = f" and {len(labels) - shown} more" if len(labels) > shown else ""
    return ", ".join(labels[:shown]) + more if labels else "no rows"


async def undo_last(work: UnitOfWork, *, turn: int | None = None) -> Undone:
    """Revert the newest entry (`check_it_is_that`), or refuse naming every conflict (nothing written)."""
    session = work.session
    entry = last_entry(session)
    check_it_is_that(session, entry, turn)
    conflicts = await _conflicts(work, entry)
    if conflicts:
        shown = "; ".join(conflicts[:MAX_CONFLICTS_SHOWN]) + (f"; and {len(conflicts) - MAX_CONFLICTS_SHOWN} more" if len(conflicts) > MAX_CONFLICTS_SHOWN else "")
        raise UndoConflictError(
            f"Cannot undo {entry.describe()}: {shown}. Nothing was changed.", reason="changed_since", conflicts=conflicts,
            tool=entry.tool, turn=entry.turn,
        )
    undone = Undone(entry)
    with not_journaled():
        async with work.atomic():
            for step in reversed(entry.steps):
                await _revert(work, step, undone)
    session.write(UNDO.at(entry.number), None)
    undone.remaining = len(undo_numbers(session))
    refs = [item["ref"] for item in (*undone.removed, *undone.restored, *undone.reverted)]
    session.record_call(CallRecord(turn=session.turn, tool="kitchen_undo", action="undone", refs=refs, count=len(refs),
                                   note=f"undid {entry.describe()}", unlinked=[u["ref"] for u in undone.unlinked] or None,
                                   relinked=[r["ref"] for r in undone.relinked] or None))
    return undone


# -- checks -------------------------------------------------------------------------------------


async def _conflicts(work: UnitOfWork, entry: UndoEntry) -> list[str]:
    """Every row the entry left that is not as it left it, and every link an undo would break."""
    found: list[str] = []
    for table_name, expected in _final_images(entry).items():
        table = get_table(table_name)
        current = await _rows_by_id(work, table, list(expected))
        for row_id, row in expected.items():
            if row is None and row_id in current:
                found.append(f"{_named(work.session, table, current[row_id])} exists again")
            elif row is not None and (row_id not in current or changed_columns(table.name, row, current[row_id])):
                found.append(_describe(work, table, row, current.get(row_id)))
    for step in entry.steps:
        table = get_table(step.table)
        if step.kind == "insert":
            found += await _pointing_since(work, table, entry, ids_of(step.after))
        if step.kind == "delete":
            found += await _restore_conflicts(work, table, step)
    return found


def _final_images(entry: UndoEntry) -> dict[str, dict[str, Row | None]]:
    """Each row the entry touched as the call left it (None: deleted), by table and id."""
    final: dict[str, dict[str, Row | None]] = {}
    for step in entry.steps:
        images = final.setdefault(step.table, {})
        if step.kind == "delete":
            images.update(dict.fromkeys(ids_of(step.before)))
            for name, rows in step.cascaded.items():
                final.setdefault(name, {}).update(dict.fromkeys(ids_of(rows)))
        else:
            images.update((row["id"], row) for row in step.after)
    return final


def _describe(work: UnitOfWork, table: Table, expected: Row, current: Row | None) -> str:
    name = _named(work.session, table, expected)
    if current is None:
        return f"{name} was deleted since"
    return f"{name} was changed since ({', '.join(changed_columns(table.name, expected, current))})"


async def _pointing_since(work: UnitOfWork, table: Table, entry: UndoEntry, ids: list[str]) -> list[str]:
    """Rows created elsewhere that now point at rows this undo would delete (they would go with them, or lose the link)."""
    known = {row["id"] for step in entry.steps for row in step.after}
    found = []
    for child, column in children_of(table.name):
        for row in await _rows_where_in(work, child, column.name, ids):
            if row["id"] not in known:
                target = _named(work.session, table, {"id": row[column.name]})
                found.append(f"{_named(work.session, child, row)} now points at {target}")
    return found


async def _restore_conflicts(work: UnitOfWork, table: Table, step: UndoStep) -> list[str]:
    """Rows to put back whose references are gone, and cleared links that were set to something else since."""
    found = []
    coming_back = {row["id"] for row in step.before} | {row["id"] for rows in step.cascaded.values() for row in rows}
    for name, rows in [(table.name, step.before), *step.cascaded.items()]:
        found += await _missing_targets(work, get_table(name), rows, coming_back)
    for unlinked in step.unlinked:
        current = (await _rows_by_id(work, get_table(unlinked.table), [unlinked.row["id"]])).get(unlinked.row["id"])
        if current is not None and current.get(unlinked.column) is not None:
            found.append(f"{_named(work.session, get_table(unlinked.table), unlinked.row)} was linked to another row since")
    return found


async def _missing_targets(work: UnitOfWork, table: Table, rows: Sequence[Row], coming_back: set[str]) -> list[str]:
    """Foreign keys of rows to restore that point at rows deleted since."""
    found = []
    for column in table.fk_columns:
        if column.fk is None:
            continue
        wanted = {row[column.name] for row in rows if row.get(column.name) and row[column.name] not in coming_back}
        if not wanted:
            continue
        target = get_table(column.fk.table)
        existing = await _rows_by_id(work, target, sorted(wanted))
        found += [f"{_named(work.session, target, {'id': row_id})} it pointed at was deleted since"
                  for row_id in sorted(wanted) if row_id not in existing]
    return found


# -- writes -------------------------------------------------------------------------------------


async def _revert(work: UnitOfWork, step: UndoStep, undone: Undone) -> None:
    table = get_table(step.table)
    if step.kind == "insert":
        reach = await unlinking.reach_of_delete(work, table, ids_of(step.after))
        deleted = [row for where in _id_wheres(ids_of(step.after)) for row in await work.store.delete(table, where, user_id=work.user_id)]
        unlinked = await unlinking.unlinked_entries(work, table, reach, deleted)
        undone.unlinked += unlinked
        undone.rows += len(deleted) + len(unlinked)
        for row in step.after:
            ref = work.session.registry.ref_for_row(row["id"])
            if ref is not None:
                work.session.registry.mark_deleted(ref, turn=work.session.turn)
                undone.drafts_reopened += _reopen_drafts(work.session, ref)
                undone.removed.append(_item(table, ref, row))
    elif step.kind == "update":
        rows = []
        for before, after in zip(_by_id(step.before, step.after), step.after):
            changed = changed_columns(table.name, before, after)
            values = {k: v for k, v in writable_values(table.name, before).items() if k in changed}
            if values:
                rows += await work.store.update(table, Where(all_of=(Filter("id", "eq", before["id"]),)), values, user_id=work.user_id)
        views = await rows_to_refs(work, table, rows, action="updated")
        undone.reverted += [_item(table, view["id"], row) for row, view in zip(rows, views)]
        undone.rows += len(rows)
    else:
        await _restore(work, table, step, undone)


async def _restore(work: UnitOfWork, table: Table, step: UndoStep, undone: Undone) -> None:
    restored = await work.store.restore(table, step.before, user_id=work.user_id)
    views = await rows_to_refs(work, table, restored, action="restored")
    undone.restored += [_item(table, view["id"], row) for row, view in zip(restored, views)]
    undone.rows += len(restored)
    for name, rows in step.cascaded.items():
        child = get_table(name)
        children = await work.store.restore(child, rows, user_id=work.user_id)
        undone.rows += len(children)
        for row in children:
            ref = work.session.registry.ref_for_row(row["id"])
            if ref is not None:
                work.session.registry.register_row(child.entity_type, row["id"], row_label(child, row), turn=work.session.turn,
                                                   action="restored")
    for unlinked in step.unlinked:
        child = get_table(unlinked.table)
        where = Where(all_of=(Filter("id", "eq", unlinked.row["id"]), Filter(unlinked.column, "is_null", True)))
        target = unlinked.row[unlinked.column]
        for row in await work.store.update(child, where, {unlinked.column: target}, user_id=work.user_id):
            undone.relinked.append(_relinked(work.session, child, row, unlinked.column, str(target)))
            undone.rows += 1


def _relinked(session: Session, table: Table, row: Row, column: str, target: str) -> dict[str, Any]:
    """{table, ref, label, column, now}: a row pointing at the restored row again (`now`: its ref), as `unlinked` names one."""
    label = row_label(table, row)
    ref = session.registry.register_row(table.entity_type, row["id"], label, turn=session.turn, action="updated")
    now = session.registry.ref_for_row(target)
    return {"table": table.name, "ref": ref, "label": label, "column": column, **({"now": now} if now else {})}


def _reopen_drafts(session: Session, saved_ref: str) -> list[str]:
    """Drafts that had been saved as `saved_ref` become pending again, under their gen refs."""
    reopened = []
    for ref, draft in session.read_family(DRAFTS).items():
        if draft.status == "saved" and draft.saved_as == saved_ref:
            session.write(DRAFTS.at(ref), replace(draft, status="pending", saved_as=None))
            session.registry.unlink_saved(ref, turn=session.turn)
            reopened.append(ref)
    return reopened


# -- helpers ------------------------------------------------------------------------------------


def _by_id(before: list[Row], after: list[Row]) -> list[Row]:
    """The before-image of each after-image row, in the same order."""
    images = {row["id"]: row for row in before}
    return [images.get(row["id"], row) for row in after]


def _item(table: Table, ref: str, row: Row) -> dict[str, Any]:
    return {"ref": ref, "table": table.name, "label": row_label(table, row)}


def _named(session: Session, table: Table, row: Row) -> str:
    ref = session.registry.ref_for_row(str(row["id"]))
    label = row_label(table, row) if len(row) > 1 else None
    if ref is None:
        return f"a {table.noun}" + (f" ({label})" if label else "")
    entry = session.registry.get(ref)
    label = label or (entry.label if entry else None)
    return f"{ref} ({label})" if label else ref


def _id_wheres(ids: list[str]) -> list[Where]:
    return [Where(all_of=(Filter("id", "in", ids[i:i + MAX_IN_VALUES]),)) for i in range(0, len(ids), MAX_IN_VALUES)]


async def _rows_by_id(work: UnitOfWork, table: Table, ids: list[str]) -> dict[str, Row]:
    return {row["id"]: row for row in await _rows_where_in(work, table, "id", ids)}


async def _rows_where_in(work: UnitOfWork, table: Table, column: str, values: list[str]) -> list[Row]:
    rows: list[Row] = []
    for start in range(0, len(values), MAX_IN_VALUES):
        where = Where(all_of=(Filter(column, "in", values[start:start + MAX_IN_VALUES]),))
        rows += await work.store.select(table, Query(where=where, limit=MAX_IN_VALUES * 4), user_id=work.user_id)
    return rows
