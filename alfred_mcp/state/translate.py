"""CRUD translation: refs in (filters, payloads), refs out (rows), every FK column included.

Inbound, `id` and FK values must be refs of the right entity type and are resolved to row
ids; anything else there (a raw id, a name, an unknown or pending ref) is refused, never
forwarded. Outbound, each row's `id` and FK values become refs, FK targets are registered
lazily and get a `<fk>_label` beside them; labels the registry lacks are filled in from one
batched fetch per target table (`apply_labels`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from alfred_mcp.kitchen.jsonschema import validate_row
from alfred_mcp.kitchen.query import Filter, Where, check_where
from alfred_mcp.kitchen.schema import TABLES, UNITS, Table, row_label
from alfred_mcp.kitchen.units import is_known_unit, normalize_unit
from alfred_mcp.state.registry import Action, SessionIdRegistry


@dataclass(frozen=True)
class _ForeignKey:
    column: str
    label_key: str
    target: Table


@dataclass(frozen=True)
class _Plan:
    """What translation needs to know about one table, computed once."""

    table: Table
    foreign_keys: tuple[_ForeignKey, ...]
    ref_types: dict[str, str]
    """Column -> entity type of the refs it takes: `id` and every FK column."""
    label_needs: tuple[str, ...]
    int_columns: frozenset[str]
    unit_columns: frozenset[str]
    """Columns holding a unit ('count', 'pcs' and 'each' are saved as 'piece': `units.normalize_unit`; a unit the
    kitchen does not know is kept as written)."""


_PLANS: dict[str, _Plan] = {}


def _plan(table: Table) -> _Plan:
    found = _PLANS.get(table.name)
    if found is None or found.table is not table:
        found = _make_plan(table)
        _PLANS[table.name] = found
    return found


def _make_plan(table: Table) -> _Plan:
    foreign_keys = tuple(
        _ForeignKey(c.name, f"{c.name}_label", TABLES[c.fk.table]) for c in table.fk_columns if c.fk is not None
    )
    ref_types = {"id": table.entity_type, **{fk.column: fk.target.entity_type for fk in foreign_keys}}
    ints = frozenset(c.name for c in table.columns if c.type == "int")
    units = frozenset(c.name for c in table.columns if c.suggested == UNITS)
    return _Plan(table, foreign_keys, ref_types, table.label_columns, ints, units)


def label_columns_for(table_name: str) -> tuple[str, ...]:
    """The columns to fetch to label a row of `table_name`: id and its label columns."""
    return ("id", *TABLES[table_name].label_columns)


# -- refs in ----------------------------------------------------------------------------------


def translate_where(table: Table, where: Where, registry: SessionIdRegistry) -> Where:
    """`where` with refs in `id` and FK filters resolved to row ids.

    Raises:
        UnknownColumnError, InvalidFilterError: the filter does not fit the schema.
        InvalidRefError, UnknownRefError, DeletedRefError, PendingDraftError: a bad ref.
    """
    check_where(table, where)
    ref_types = _plan(table).ref_types
    return Where(
        all_of=tuple(_translate_filter(clause, ref_types, registry) for clause in where.all_of),
        any_of=tuple(_translate_filter(clause, ref_types, registry) for clause in where.any_of),
    )


def _translate_filter(clause: Filter, ref_types: Mapping[str, str], registry: SessionIdRegistry) -> Filter:
    entity_type = ref_types.get(clause.field)
    if entity_type is None or clause.op == "is_null":
        return clause
    if clause.op in ("in", "not_in"):
        row_ids = [registry.resolve(ref, expected_type=entity_type, field=clause.field) for ref in clause.value]
        return Filter(clause.field, clause.op, row_ids)
    return Filter(clause.field, clause.op, registry.resolve(clause.value, expected_type=entity_type, field=clause.field))


class RefResolver(Protocol):
    """Turns a ref into a row id (the registry is one; a batch save layers its own refs on top)."""

    def resolve(self, ref: str, *, expected_type: str | None = None, field: str | None = None) -> str: ...


def translate_payload(
    table: Table, row: Mapping[str, Any], registry: RefResolver, *, mode: Literal["create", "update"], validated: bool = False
) -> dict[str, Any]:
    """A validated row for the store: FK refs resolved to row ids, whole floats in int columns made ints, units in
    their one spelling ('count' -> 'piece', 'Tablespoons' -> 'tbsp').

    `validated=True` skips the schema check for a row that has just passed it (compiled rows).

    Raises:
        UnknownColumnError, InvalidPayloadError: the row fails the table's JSON Schema.
        InvalidRefError, UnknownRefError, DeletedRefError, PendingDraftError: a bad FK ref.
    """
    row = blank_means_none(table, row)
    if not validated:
        validate_row(table, row, mode)
    plan = _plan(table)
    out = dict(row)
    for fk in plan.foreign_keys:
        value = out.get(fk.column)
        if value is not None:
            out[fk.column] = registry.resolve(value, expected_type=fk.target.entity_type, field=fk.column)
    for name in plan.int_columns:
        value = out.get(name)
        if isinstance(value, float):
            out[name] = int(value)
    for name in plan.unit_columns:
        value = out.get(name)
        if isinstance(value, str) and is_known_unit(canonical := normalize_unit(value)):
            out[name] = canonical  # a unit the kitchen does not know is kept as written
    return out


def blank_means_none(table: Table, row: Mapping[str, Any]) -> Mapping[str, Any]:
    """An empty text in a column a row may leave empty (`notes: ""`, `unit: ""`) means none (null); a column that
    must hold something keeps it, to be refused naming it."""
    blank = [name for name, value in row.items() if isinstance(value, str) and not value.strip() and table.has_column(name)
             and table.column(name).nullable]
    return {**row, **dict.fromkeys(blank)} if blank else row


# -- refs out ---------------------------------------------------------------------------------


@dataclass
class TranslatedRows:
    """Rows with refs in place of ids, and the rows whose labels still have to be fetched."""

    rows: list[dict[str, Any]]
    missing_labels: dict[str, list[str]] = field(default_factory=dict)
    """Table name -> row ids registered without a label (FK targets, or rows read without their label columns)."""


def translate_rows(
    table: Table, rows: Sequence[Mapping[str, Any]], registry: SessionIdRegistry, *, turn: int, action: Action
) -> TranslatedRows:
    """Rows as a model may see them: no user_id, `id` and every FK value a ref, `<fk>_label` beside each FK."""
    plan = _plan(table)
    missing: dict[str, dict[str, None]] = {}
    out_rows = []
    for row in rows:
        out = dict(row)
        out.pop("user_id", None)
        row_id = out.get("id")
        if row_id is not None:
            out["id"] = _register(plan, out, row_id, registry, turn, action, missing)
        for fk in plan.foreign_keys:
            if fk.column in out:
                _link(fk, out, registry, turn, missing)
        out_rows.append(out)
    return TranslatedRows(out_rows, {name: list(ids) for name, ids in missing.items()})


def _register(
    plan: _Plan, row: dict[str, Any], row_id: str, registry: SessionIdRegistry,
    turn: int, action: Action, missing: dict[str, dict[str, None]],
) -> str:
    has_label = all(name in row for name in plan.label_needs)
    ref = registry.register_row(plan.table.entity_type, row_id, row_label(plan.table, row) if has_label else None,
                                turn=turn, action=action)
    if not has_label and registry.entry(ref).label is None:
        missing.setdefault(plan.table.name, {})[row_id] = None
    return ref


def _link(fk: _ForeignKey, out: dict[str, Any], registry: SessionIdRegistry, turn: int, missing: dict[str, dict[str, None]]) -> None:
    row_id = out[fk.column]
    if row_id is None:
        out[fk.label_key] = None
        return
    ref, _ = registry.register_link(fk.target.entity_type, row_id, turn=turn)
    label = registry.entry(ref).label
    out[fk.column] = ref
    out[fk.label_key] = label
    if label is None:
        missing.setdefault(fk.target.name, {})[row_id] = None


def apply_labels(
    result: TranslatedRows, table: Table, registry: SessionIdRegistry,
    fetched: Mapping[str, Mapping[str, Mapping[str, Any]]],
) -> list[dict[str, Any]]:
    """Label the rows fetched for `result.missing_labels` and fill the `<fk>_label`s still empty.

    `fetched` maps a table name to row id -> that row's `label_columns_for` columns.
    """
    labelled = False
    for table_name, by_row_id in fetched.items():
        target = TABLES[table_name]
        for row_id, row in by_row_id.items():
            ref = registry.ref_for_row(row_id)
            if ref is not None:
                registry.set_label(ref, row_label(target, dict(row)))
                labelled = True
    if labelled:
        _fill_fk_labels(result.rows, _plan(table), registry)
    return result.rows


def _fill_fk_labels(rows: list[dict[str, Any]], plan: _Plan, registry: SessionIdRegistry) -> None:
    for out in rows:
        for fk in plan.foreign_keys:
            ref = out.get(fk.column)
            if ref is not None and out.get(fk.label_key) is None:
                out[fk.label_key] = registry.entry(ref).label
