"""What every backend's DDL shares: the schema version, table order, indexes and the named CHECK rules.

Pure. Each backend writes its own CREATE statements (`sqlite/schema.py`, `postgres/schema.py`)
from these facts, so both name every CHECK `<column>_<kind>` and a failure is told back with
the same sentence (`check_messages`) whichever engine caught it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from alfred_mcp.kitchen.schema import TABLES, Column, Table, children_of
from alfred_mcp.store.filters import quote_identifier as q
from alfred_mcp.store.sql_literals import literal_sql, number_literal
from alfred_mcp.store.user_origins import LEGACY

SCHEMA_VERSION = 1
ENTRY_COLUMNS = (
    "ref", "entity_type", "row_id", "label", "action", "turn_created", "turn_last_ref", "deleted_turn", "saved_as",
)
"""A registry entry's columns in `alfred_session_refs` (besides session_id and seq)."""
LEGACY_USERS_SQL = f'UPDATE "users" SET "handle" = {literal_sql(LEGACY)} || "handle"'
"""Namespacing users by origin (`user_origins.py`): every user of an older database becomes `legacy:<handle>`,
taken over by the static token or local user of that name when they first come. Run once per database."""
USER_ORIGINS_KEY = "user_origins"
"""The `alfred_meta` key a SQLite database records the rename under (PostgreSQL records migration 0004)."""
_EXTRA_INDEXES: dict[str, tuple[tuple[str, ...], ...]] = {"recipe_ingredients": (("recipe_id", "position"),)}

CheckKind = Literal["bool", "array", "enum", "range"]


@dataclass(frozen=True)
class CheckRule:
    """A named CHECK on a kitchen column and the sentence its failure is told with."""

    column: Column
    kind: CheckKind
    message: str

    @property
    def name(self) -> str:
        return f"{self.column.name}_{self.kind}"


def tables_in_fk_order() -> list[Table]:
    """Kitchen tables, each after the tables it references (schema order otherwise)."""
    ordered: list[Table] = []
    pending = list(TABLES.values())
    while pending:
        done = {t.name for t in ordered}
        ready = [t for t in pending if all(c.fk.table in done or c.fk.table == t.name for c in t.fk_columns if c.fk)]
        if not ready:
            raise ValueError("the kitchen schema has a foreign-key cycle")
        ordered += ready
        pending = [t for t in pending if t not in ready]
    return ordered


def create_index_sql(table: Table, *, if_not_exists: bool = False) -> list[str]:
    """Indexes on user_id, every FK column and the table's composite orderings (both dialects spell them alike)."""
    indexes = [*_EXTRA_INDEXES.get(table.name, ())]
    singles = (["user_id"] if table.user_owned and not table.one_per_user else []) + [c.name for c in table.fk_columns]
    indexes += [(name,) for name in singles if not any(index[0] == name for index in indexes)]
    guard = "IF NOT EXISTS " if if_not_exists else ""
    return [
        f"CREATE INDEX {guard}{q(table.name + '_' + '_'.join(cols) + '_idx')} ON {q(table.name)} ({', '.join(q(c) for c in cols)})"
        for cols in indexes
    ]


def scale_indexes(table: Table, *, tiebreak: str | None = None) -> list[tuple[str, tuple[str, ...]]]:
    """(name, columns) of the indexes added for scale (schema 1.1): every default filter and order per user.

    `(user_id, <default order>)` serves a default-ordered page and keyset pagination over it (with the
    dialect's `tiebreak` column appended where it is a real column); `(user_id, name)` serves `name`
    filters. Tables whose order starts with an indexed foreign key (a recipe's ingredients) or that
    hold one row per user need neither.
    """
    if not table.user_owned or table.one_per_user:
        return []
    found: list[tuple[str, tuple[str, ...]]] = []
    if table.default_order[0] not in {c.name for c in table.fk_columns}:
        columns = ("user_id", *table.default_order)
        found.append((_index_name(table, columns), columns + ((tiebreak,) if tiebreak else ())))
    if table.has_column("name") and table.default_order != ("name",):
        columns = ("user_id", "name")
        found.append((_index_name(table, columns), columns))
    return found


def scale_index_sql(table: Table, *, tiebreak: str | None = None) -> list[str]:
    """`CREATE INDEX IF NOT EXISTS` for `scale_indexes`."""
    return [
        f"CREATE INDEX IF NOT EXISTS {q(name)} ON {q(table.name)} ({', '.join(q(c) for c in columns)})"
        for name, columns in scale_indexes(table, tiebreak=tiebreak)
    ]


def _index_name(table: Table, columns: tuple[str, ...]) -> str:
    return f"{table.name}_{'_'.join(columns)}_idx"


KITCHEN_STAMPS = "alfred_kitchen_stamps"
"""One row per user: an opaque stamp that changes with every write to the user's kitchen rows and never
repeats, so a memo built from the kitchen (recipe search) knows when it is stale, on any replica."""
TABLE_STAMPS = "alfred_table_stamps"
"""One row per (user, kitchen table): the same kind of stamp, changed only by writes to that table's rows
of the user (a delete's cascade into a table counts as a write to it), so a memo built from a few
tables (the recipe index) outlives writes to the others (a shopping line)."""


@cache
def tables_a_write_reaches(name: str) -> tuple[str, ...]:
    """`name` and every kitchen table a delete there can change through ON DELETE (cascade, set null), transitively."""
    reached = [name]
    for current in reached:
        reached += [child.name for child, _ in children_of(current) if child.name not in reached]
    return tuple(reached)


def check_rules(column: Column) -> list[CheckRule]:
    """Every rule the column carries; each backend enforces those its types do not already."""
    name = column.name
    rules = []
    if column.type == "bool":
        rules.append(CheckRule(column, "bool", f"{name} must be true or false"))
    if column.type == "text[]":
        rules.append(CheckRule(column, "array", f"{name} must be a list of strings"))
    elif column.enum is not None:
        shown = ", ".join(str(value) for value in column.enum)
        rules.append(CheckRule(column, "enum", f"{name} must be one of: {shown}"))
    if column.type in ("int", "numeric") and (column.minimum is not None or column.maximum is not None):
        rules.append(CheckRule(column, "range", _range_message(column)))
    return rules


@cache
def check_messages(table_name: str) -> dict[str, tuple[str, str]]:
    """Named CHECK constraint of a kitchen table -> (column, what the rule says)."""
    return {rule.name: (column.name, rule.message) for column in TABLES[table_name].columns for rule in check_rules(column)}


def range_sql(column: Column) -> str:
    """The condition of a column's range rule (its bounds are schema constants)."""
    col = q(column.name)
    low, high = number_literal(column.minimum), number_literal(column.maximum)
    if low is not None and high is not None:
        return f"{col} BETWEEN {low} AND {high}"
    return f"{col} >= {low}" if low is not None else f"{col} <= {high}"


def _range_message(column: Column) -> str:
    low, high = number_literal(column.minimum), number_literal(column.maximum)
    if low is not None and high is not None:
        return f"{column.name} must be between {low} and {high}"
    return f"{column.name} must be at least {low}" if low is not None else f"{column.name} must be at most {high}"
