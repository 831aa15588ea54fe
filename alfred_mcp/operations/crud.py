"""Refs-only CRUD: translate refs in, run the store call, translate refs out.

Each operation validates everything before the first write; its store calls and the session's
save commit together in the call's unit of work, so a failure changes nothing anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from alfred_mcp.errors import ConstraintViolationError, InputError, InvalidPayloadError, UnscopedWriteError
from alfred_mcp.kitchen.query import MAX_IN_VALUES, Filter, Query, Where, check_columns, check_order
from alfred_mcp.kitchen.schema import MEAL_PLANS, Table, get_table, row_label
from alfred_mcp.operations import allergies, unlinking
from alfred_mcp.operations.allergies import AllergyOverride
from alfred_mcp.operations.catalog import catalog_link
from alfred_mcp.operations.kept_rows import refuse_kept
from alfred_mcp.operations.meal_servings import fill_servings, household_note
from alfred_mcp.operations.paging import decode_cursor, encode_cursor
from alfred_mcp.session import Session, UnitOfWork
from alfred_mcp.state.array_ops import ListChange, split_list_changes
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.cards import read_card
from alfred_mcp.state.note_facts import NoteFact
from alfred_mcp.state.translate import (
    TranslatedRows,
    apply_labels,
    label_columns_for,
    translate_payload,
    translate_rows,
    translate_where,
)
from alfred_mcp.store.base import Row

DEFAULT_LIMIT = 50


@dataclass(frozen=True)
class CrudResult:
    """Rows as a model sees them (refs only), plus what else happened."""

    table: str
    rows: list[dict[str, Any]]
    truncated: bool = False
    cascaded: tuple[dict[str, Any], ...] = ()
    """A delete's rows deleted with it, counted per table ({table, count})."""
    unlinked: tuple[dict[str, Any], ...] = ()
    """A delete's rows left pointing at nothing ({table, ref, label, column, was}: `operations/unlinking.py`)."""
    next_cursor: str | None = None
    """Set when more rows match: pass it as `cursor` to read the next page."""
    notes: tuple[NoteFact, ...] = ()
    """What the write chose that the call did not say, as facts (a meal's servings: the household's)."""


def writable_table(name: str) -> Table:
    """A table callers may write to.

    Raises:
        UnknownTableError, InputError: unknown table, or the shared read-only catalog.
    """
    table = get_table(name)
    if not table.user_owned:
        raise InputError(
            f"'{name}' is the shared ingredient catalog and is read-only; read it with db_read.",
            field="table", value=name,
        )
    return table


async def read(work: UnitOfWork, table: Table, query: Query, *, cursor: str | None = None) -> CrudResult:
    """Rows matching `query`, each with a ref; FK columns as refs with their labels.

    `cursor` (a previous page's `next_cursor`) continues that read after its last row.
    """
    session = work.session
    check_columns(table, query.columns)
    check_order(table, query.order_by)
    limit = query.limit or DEFAULT_LIMIT
    after = None
    if cursor is not None:
        anchor = decode_cursor(cursor, table, query)
        after = session.registry.resolve(anchor, expected_type=table.entity_type, field="cursor")
    translated = Query(
        where=translate_where(table, query.where, session.registry),
        columns=query.columns,
        order_by=query.order_by,
        limit=limit + 1,
        after=after,
    )
    # No transaction for the read itself: it writes nothing but new refs, which the unit of
    # work saves before the result is returned, so a client never sees a ref the store does not know.
    rows = await work.store.select(table, translated, user_id=session.user_id)
    out = await rows_to_refs(work, table, rows[:limit], action="read")
    truncated = len(rows) > limit
    card = read_card(table.name, out, columns=query.columns, truncated=truncated)
    _record(session, "db_read", table, "read", out, card=card)
    next_cursor = encode_cursor(table, query, out[-1]["id"]) if truncated else None
    return CrudResult(table.name, out, truncated=truncated, next_cursor=next_cursor)


async def create(
    work: UnitOfWork, table: Table, data: Sequence[Mapping[str, Any]], *, allergy_override: AllergyOverride | None = None,
) -> CrudResult:
    """Insert all rows or none; every FK given as a ref; content holding an allergen is refused (`allergies.py`)."""
    session = work.session
    payloads = [_payload(table, row, session, "create", index=i if len(data) > 1 else None) for i, row in enumerate(data)]
    note = await allergies.check_rows(work, table, data, allergy_override)
    async with work.atomic():
        filled = await fill_servings(work, payloads) if table.name == MEAL_PLANS.name else None
        rows = await work.store.insert(table, filled.payloads if filled else payloads, user_id=session.user_id)
        out = await rows_to_refs(work, table, rows, action="created")
        _record(session, "db_create", table, "created", out, note=note)
    defaulted = [row["id"] for row, payload in zip(out, payloads) if "servings" not in payload]
    return CrudResult(table.name, out, notes=tuple(household_note(filled.household, defaulted)) if filled else ())


async def update(
    work: UnitOfWork, table: Table, where: Where, data: Mapping[str, Any], *, all_rows: bool,
    confirm_allergy_removal: bool = False, allergy_override: AllergyOverride | None = None,
) -> CrudResult:
    """Set `data` on the matching rows; no filters needs `all_rows`.

    A list column may take {add, remove} instead of a new list (each row keeps its other items);
    replacing the allergy list with one that drops an allergy needs `confirm_allergy_removal`.
    """
    session = work.session
    _require_scope(table, where, all_rows, verb="update")
    target = translate_where(table, where, session.registry)
    plain, changes = split_list_changes(table, data)
    if "allergies" in plain and not confirm_allergy_removal:
        await allergies.check_allergy_removal(work, table, plain["allergies"], target)
    if changes:  # the plain values and the list shapes are checked once, before any row is touched
        _payload(table, {**plain, **{name: change.apply([]) for name, change in changes.items()}}, session, "update")
    note = await allergies.check_rows(work, table, [data], allergy_override)
    async with work.atomic():
        if not all_rows:
            await _refuse_match_all(work, table, where, target, verb="update")
        await _refuse_cycles(work, table, target, plain)
        renamed = await _renamed_links(work, table, target, data)
        if changes:
            rows = await _update_lists(work, table, target, plain, changes)
        else:
            rows = await work.store.update(table, target, _payload(table, data, session, "update"), user_id=session.user_id)
        if renamed:
            rows = await _relink_renamed(work, table, rows, renamed, name=data["name"], category_given="category" in data)
        out = await rows_to_refs(work, table, rows, action="updated")
        _record(session, "db_update", table, "updated", out, note=note, columns=data)
    return CrudResult(table.name, out)


MAX_ANCESTORS = 1_000
"""How far up a chain of parents (a recipe's variations) a cycle is looked for."""


async def _refuse_cycles(work: UnitOfWork, table: Table, target: Where, values: Mapping[str, Any]) -> None:
    """A row may not become its own ancestor through a column pointing at its own table (a recipe's parent).

    Raises:
        ConstraintViolationError: naming the column and the ref that would close the loop.
    """
    for column in table.fk_columns:
        parent_ref = values.get(column.name)
        if column.fk is None or column.fk.table != table.name or not isinstance(parent_ref, str):
            continue
        updated = {row["id"] for row in await work.store.select(table, Query(where=target, columns=("id",)), user_id=work.user_id)}
        ancestor: str | None = work.session.registry.resolve(parent_ref, expected_type=table.entity_type, field=column.name)
        for depth in range(MAX_ANCESTORS):
            if ancestor is None:
                break
            if ancestor in updated:
                role = column.name.removesuffix("_id").replace("_", " ")
                raise ConstraintViolationError(
                    f"{column.name}: a {table.noun} cannot be its own {role} ({parent_ref})." if depth == 0 else
                    f"{column.name}: {parent_ref} descends from the {table.noun} being updated, so it cannot be its {role} (a loop).",
                    field=column.name, value=parent_ref, table=table.name,
                )
            one = Query(where=Where(all_of=(Filter("id", "eq", ancestor),)), columns=(column.name,))
            found = await work.store.select(table, one, user_id=work.user_id)
            ancestor = found[0][column.name] if found else None


async def _renamed_links(work: UnitOfWork, table: Table, target: Where, data: Mapping[str, Any]) -> set[str]:
    """Ids of the catalog-linked rows an update renames without naming their catalog ingredient (none otherwise)."""
    if "name" not in data or "ingredient_id" in data or "ingredient_id" not in table.visible_columns:
        return set()
    rows = await work.store.select(table, Query(where=target, columns=("id", "name", "ingredient_id")), user_id=work.user_id)
    return {row["id"] for row in rows if row["ingredient_id"] is not None and row["name"] != data["name"]}


async def _relink_renamed(
    work: UnitOfWork, table: Table, rows: list[Row], renamed: set[str], *, name: str, category_given: bool,
) -> list[Row]:
    """Rows renamed away from the catalog ingredient they were linked to: linked to the one the new name names
    (a recipe ingredient takes its category, as a saved draft does), or unlinked when it names none."""
    link, category = await catalog_link(work.store, name)
    stale = [row["id"] for row in rows if row["id"] in renamed and row["ingredient_id"] != link]
    if not stale:
        return rows
    values: dict[str, Any] = {"ingredient_id": link}
    if table.name == "recipe_ingredients" and not category_given:
        values["category"] = category
    fixed = {row["id"]: row for chunk in _ids_wheres(stale) for row in await work.store.update(table, chunk, values, user_id=work.user_id)}
    return [fixed.get(row["id"], row) for row in rows]


async def _update_lists(
    work: UnitOfWork, table: Table, target: Where, plain: Mapping[str, Any], changes: Mapping[str, ListChange]
) -> list[Row]:
    """Each matching row gets its own lists changed (add/remove), plus the plain values, validated per row."""
    current = await work.store.select(table, Query(where=target, columns=("id", *changes)), user_id=work.user_id)
    updated: list[Row] = []
    for row in current:
        values = {**plain, **{name: change.apply(row.get(name)) for name, change in changes.items()}}
        payload = _payload(table, values, work.session, "update")
        one = Where(all_of=(Filter("id", "eq", row["id"]),))
        updated += await work.store.update(table, one, payload, user_id=work.user_id)
    return updated


async def delete(work: UnitOfWork, table: Table, where: Where, *, all_rows: bool) -> CrudResult:
    """Delete the matching rows; known refs of them and of cascaded children become deleted. The result
    names what the delete touched beyond them: rows deleted with them, rows left pointing at nothing."""
    session = work.session
    _require_scope(table, where, all_rows, verb="delete")
    target = translate_where(table, where, session.registry)
    async with work.atomic():
        doomed = await work.store.select(table, Query(where=target, columns=("id",)), user_id=session.user_id)
        ids = [row["id"] for row in doomed]
        if not all_rows:
            await _refuse_match_all(work, table, where, target, verb="delete", matched=len(ids))
        await refuse_kept(work, table, ids)
        reach = await unlinking.reach_of_delete(work, table, ids)
        rows = [row for chunk in _ids_wheres(ids) for row in await work.store.delete(table, chunk, user_id=session.user_id)]
        out = await rows_to_refs(work, table, rows, action="deleted")
        unlinked = await unlinking.unlinked_entries(work, table, reach, rows)
        for row in out:
            session.registry.mark_deleted(row["id"], turn=session.turn)
        _record(session, "db_delete", table, "deleted", out, unlinked=[entry["ref"] for entry in unlinked])
    return CrudResult(table.name, out, cascaded=tuple(unlinking.cascaded_counts(reach)), unlinked=tuple(unlinked))


async def deletion_scope(work: UnitOfWork, table: Table, where: Where, *, all_rows: bool) -> Where:
    """The store filters a delete of `where` acts on, refused as `delete` refuses them (what a confirmation
    previews: a question is never asked about a delete that would then be refused).

    Raises:
        UnscopedWriteError: no filters, or filters matching every row, without `all_rows`.
        AlfredError: as `translate_where` for a bad ref or filter value.
    """
    _require_scope(table, where, all_rows, verb="delete")
    target = translate_where(table, where, work.session.registry)
    if not all_rows:
        await _refuse_match_all(work, table, where, target, verb="delete")
    return target


def _record(
    session: Session, tool: str, table: Table, action: str, rows: list[dict[str, Any]], *, note: str | None = None,
    card: str | None = None, unlinked: list[str] | None = None, columns: Mapping[str, Any] | None = None,
) -> None:
    """The call in the session's log (`columns`: an update's data, whose columns it set, and cleared when set to nothing)."""
    refs = [row["id"] for row in rows if "id" in row]
    set_to = dict(columns or {})
    session.record_call(CallRecord(turn=session.turn, tool=tool, table=table.name, action=action, refs=refs, count=len(rows),
                                   note=note, card=card, unlinked=unlinked or None, columns=sorted(set_to) or None,
                                   cleared=sorted(name for name, value in set_to.items() if value in (None, "", [])) or None))


def _ids_wheres(ids: list[str], column: str = "id") -> list[Where]:
    """`column in ids`, split to respect the filter AST's cap on `in` values."""
    return [Where(all_of=(Filter(column, "in", ids[i:i + MAX_IN_VALUES]),)) for i in range(0, len(ids), MAX_IN_VALUES)]


def _require_scope(table: Table, where: Where, all_rows: bool, *, verb: str) -> None:
    if where.is_empty and not all_rows:
        raise UnscopedWriteError(
            f"Refusing to {verb} every row of '{table.name}' without filters. "
            f"Add filters (e.g. id eq a {table.entity_type} ref) or pass all: true.",
            field="filters", table=table.name,
        )


async def _refuse_match_all(
    work: UnitOfWork, table: Table, where: Where, target: Where, *, verb: str, matched: int | None = None
) -> None:
    """A write whose filters match every row of the user's table needs `all: true`, like one without filters.

    Filters that name rows by ref (`id eq` / `id in`) are explicit and pass. Counted inside the
    write's transaction, so what is counted is what would be written.

    Raises:
        UnscopedWriteError: saying how many rows matched and how to confirm.
    """
    if any(clause.field == "id" and clause.op in ("eq", "in") for clause in where.all_of):
        return
    total = await work.store.count(table, Where(), user_id=work.user_id)
    if total == 0:
        return
    if matched is None:
        matched = await work.store.count(table, target, user_id=work.user_id)
    if matched >= total:
        raise UnscopedWriteError(
            f"Refusing to {verb}: the filters match every row of '{table.name}' ({matched} of {total}). "
            f"To {verb} them all, pass all: true; otherwise narrow the filters (e.g. id eq {table.entity_type}_1).",
            field="filters", table=table.name, matched=matched, total=total,
        )


def _payload(table: Table, row: Mapping[str, Any], session: Session, mode: str, *, index: int | None = None) -> Row:
    if not isinstance(row, Mapping):
        raise InvalidPayloadError("Each row must be an object of column values.", field="data")
    try:
        return translate_payload(table, row, session.registry, mode=mode)  # type: ignore[arg-type]
    except InputError as error:
        if index is None:
            raise
        error.message = f"data[{index}]: {error.message}"
        error.args = (error.message,)
        error.fields["row"] = index
        raise


def ref_of(work: UnitOfWork, table: Table, row: Mapping[str, Any]) -> str:
    """The ref of a stored row a result names in words (a warning, a note): its own, else a new one of a read row, so
    naming it renumbers nothing else."""
    registry = work.session.registry
    return registry.ref_for_row(str(row["id"])) or registry.register_row(
        table.entity_type, str(row["id"]), row_label(table, dict(row)), turn=work.session.turn, action="read")


async def rows_to_refs(work: UnitOfWork, table: Table, rows: list[Row], *, action: str) -> list[dict[str, Any]]:
    """Stored rows as a model sees them: refs registered, FK labels fetched in one query per table."""
    session = work.session
    if not session.registry.complete:
        names = ("id", *(column.name for column in table.fk_columns))
        session.registry.prefetch_rows([row[name] for row in rows for name in names if row.get(name) is not None])
    translated = translate_rows(table, rows, session.registry, turn=session.turn, action=action)  # type: ignore[arg-type]
    fetched = await _fetch_labels(work, translated)
    return apply_labels(translated, table, session.registry, fetched)


async def _fetch_labels(work: UnitOfWork, translated: TranslatedRows) -> dict[str, dict[str, Row]]:
    """One batched query per target table for FK targets registered without a label."""
    fetched: dict[str, dict[str, Row]] = {}
    for target_name, row_ids in translated.missing_labels.items():
        target = get_table(target_name)
        found = fetched.setdefault(target_name, {})
        for where in _ids_wheres(list(row_ids)):
            query = Query(where=where, columns=label_columns_for(target_name))
            found.update((row["id"], row) for row in await work.store.select(target, query, user_id=work.user_id))
    return fetched
