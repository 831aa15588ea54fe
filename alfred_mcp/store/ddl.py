"""SQLite DDL derived from the kitchen schema, plus the server's own tables.

Pure: returns statement text. Every CHECK constraint is named `<column>_<rule>` so a failure
can be told back as a sentence (`check_messages`); enum literals come from the schema, not
from input, and are quoted all the same.
"""

from __future__ import annotations

from functools import cache

from alfred_mcp.kitchen.schema import TABLES, Column, Table
from alfred_mcp.store.filters import quote_identifier as q
from alfred_mcp.store.sql_literals import literal_sql, number_literal

SCHEMA_VERSION = 1
NOW_SQL = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

_TYPES = {
    "uuid": "TEXT", "text": "TEXT", "date": "TEXT", "timestamp": "TEXT",
    "int": "INTEGER", "numeric": "REAL", "bool": "INTEGER", "text[]": "TEXT",
}
_ON_DELETE = {"cascade": "CASCADE", "set_null": "SET NULL"}
_EXTRA_INDEXES: dict[str, tuple[tuple[str, ...], ...]] = {"recipe_ingredients": (("recipe_id", "position"),)}

INTERNAL_TABLES_SQL: tuple[str, ...] = (
    f"""CREATE TABLE IF NOT EXISTS "users" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "handle" TEXT NOT NULL UNIQUE,
    "created_at" TEXT NOT NULL DEFAULT ({NOW_SQL})
)""",
    f"""CREATE TABLE IF NOT EXISTS "alfred_sessions" (
    "id" TEXT PRIMARY KEY NOT NULL,
    "user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
    "number" INTEGER NOT NULL CHECK ("number" >= 1),
    "turn" INTEGER NOT NULL DEFAULT 1 CHECK ("turn" >= 1),
    "is_current" INTEGER NOT NULL DEFAULT 0 CHECK ("is_current" IN (0, 1)),
    "version" INTEGER NOT NULL DEFAULT 0 CHECK ("version" >= 0),
    "created_at" TEXT NOT NULL DEFAULT ({NOW_SQL}),
    UNIQUE ("user_id", "number")
)""",
    """CREATE TABLE IF NOT EXISTS "alfred_session_refs" (
    "session_id" TEXT NOT NULL REFERENCES "alfred_sessions" ("id") ON DELETE CASCADE,
    "ref" TEXT NOT NULL,
    "entity_type" TEXT NOT NULL,
    "row_id" TEXT,
    "label" TEXT,
    "action" TEXT NOT NULL,
    "turn_created" INTEGER NOT NULL,
    "turn_last_ref" INTEGER NOT NULL,
    "deleted_turn" INTEGER,
    "saved_as" TEXT,
    "seq" INTEGER NOT NULL,
    PRIMARY KEY ("session_id", "ref")
)""",
    """CREATE TABLE IF NOT EXISTS "alfred_session_counters" (
    "session_id" TEXT NOT NULL REFERENCES "alfred_sessions" ("id") ON DELETE CASCADE,
    "key" TEXT NOT NULL,
    "last_number" INTEGER NOT NULL CHECK ("last_number" >= 0),
    PRIMARY KEY ("session_id", "key")
)""",
    """CREATE TABLE IF NOT EXISTS "alfred_session_docs" (
    "session_id" TEXT NOT NULL REFERENCES "alfred_sessions" ("id") ON DELETE CASCADE,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL CHECK (json_valid("value")),
    PRIMARY KEY ("session_id", "key")
)""",
    """CREATE TABLE IF NOT EXISTS "alfred_meta" (
    "key" TEXT PRIMARY KEY NOT NULL,
    "value" TEXT NOT NULL
)""",
)

INTERNAL_INDEXES_SQL: tuple[str, ...] = (
    'CREATE UNIQUE INDEX IF NOT EXISTS "alfred_sessions_one_current" ON "alfred_sessions" ("user_id") WHERE "is_current" = 1',
    'CREATE INDEX IF NOT EXISTS "alfred_session_refs_row_id_idx" ON "alfred_session_refs" ("session_id", "row_id")',
    'CREATE INDEX IF NOT EXISTS "alfred_session_refs_seq_idx" ON "alfred_session_refs" ("session_id", "seq")',
)


def schema_sql() -> list[str]:
    """Every CREATE statement: users, kitchen tables in FK order, their indexes, internal tables."""
    kitchen = tables_in_fk_order()
    statements = [INTERNAL_TABLES_SQL[0]]
    statements += [create_table_sql(table) for table in kitchen]
    statements += [sql for table in kitchen for sql in create_index_sql(table)]
    statements += [*INTERNAL_TABLES_SQL[1:], *INTERNAL_INDEXES_SQL]
    return statements


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


def create_table_sql(table: Table) -> str:
    """`CREATE TABLE IF NOT EXISTS` for one kitchen table."""
    lines = [_column_sql(column) for column in table.columns]
    if table.one_per_user:
        lines.append('UNIQUE ("user_id")')
    body = ",\n    ".join(lines)
    return f"CREATE TABLE IF NOT EXISTS {q(table.name)} (\n    {body}\n)"


def create_index_sql(table: Table) -> list[str]:
    """Indexes on user_id, every FK column and the table's composite orderings."""
    indexes = [*_EXTRA_INDEXES.get(table.name, ())]
    singles = (["user_id"] if table.user_owned and not table.one_per_user else []) + [c.name for c in table.fk_columns]
    indexes += [(name,) for name in singles if not any(index[0] == name for index in indexes)]
    return [
        f"CREATE INDEX IF NOT EXISTS {q(table.name + '_' + '_'.join(cols) + '_idx')} "
        f"ON {q(table.name)} ({', '.join(q(c) for c in cols)})"
        for cols in indexes
    ]


@cache
def check_messages(table_name: str) -> dict[str, tuple[str, str]]:
    """Named CHECK constraint of a kitchen table -> (column, what the rule says)."""
    messages: dict[str, tuple[str, str]] = {}
    for column in TABLES[table_name].columns:
        for name, _sql, message in _checks(column):
            messages[name] = (column.name, message)
    return messages


def _column_sql(column: Column) -> str:
    parts = [q(column.name), _TYPES[column.type]]
    if column.name == "id":
        parts.append("PRIMARY KEY")
    if not column.nullable:
        parts.append("NOT NULL")
    if column.unique:
        parts.append("UNIQUE")
    default = _default_sql(column)
    if default is not None:
        parts.append(f"DEFAULT {default}")
    parts += [f"CONSTRAINT {q(name)} CHECK ({sql})" for name, sql, _message in _checks(column)]
    reference = _reference_sql(column)
    if reference:
        parts.append(reference)
    return " ".join(parts)


def _reference_sql(column: Column) -> str | None:
    if column.name == "user_id":
        return 'REFERENCES "users" ("id") ON DELETE CASCADE'
    if column.fk is None:
        return None
    return f"REFERENCES {q(column.fk.table)} (\"id\") ON DELETE {_ON_DELETE[column.fk.on_delete]}"


def _default_sql(column: Column) -> str | None:
    if column.type == "text[]":
        return "'[]'"
    if column.default is None:
        return None
    if column.type == "timestamp" and column.default == "now":
        return f"({NOW_SQL})"
    return literal_sql(column.default)


def _checks(column: Column) -> list[tuple[str, str, str]]:
    """(constraint name, SQL condition, message) for every rule the column carries."""
    name, col = column.name, q(column.name)
    checks = []
    if column.type == "bool":
        checks.append((f"{name}_bool", f"{col} IN (0, 1)", f"{name} must be true or false"))
    if column.type == "text[]":
        condition = f"json_valid({col}) AND json_type({col}) = 'array'"
        checks.append((f"{name}_array", condition, f"{name} must be a list of strings"))
    elif column.enum is not None:
        listed = ", ".join(literal_sql(value) for value in column.enum)
        shown = ", ".join(str(value) for value in column.enum)
        checks.append((f"{name}_enum", f"{col} IN ({listed})", f"{name} must be one of: {shown}"))
    if column.type in ("int", "numeric") and (column.minimum is not None or column.maximum is not None):
        checks.append((f"{name}_range", *_range(column)))
    return checks


def _range(column: Column) -> tuple[str, str]:
    col = q(column.name)
    low, high = number_literal(column.minimum), number_literal(column.maximum)
    if low is not None and high is not None:
        return f"{col} BETWEEN {low} AND {high}", f"{column.name} must be between {low} and {high}"
    if low is not None:
        return f"{col} >= {low}", f"{column.name} must be at least {low}"
    return f"{col} <= {high}", f"{column.name} must be at most {high}"


