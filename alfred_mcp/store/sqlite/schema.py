"""SQLite DDL derived from the kitchen schema, plus the server's own tables.

Pure: returns statement text. CHECK constraints are named and worded by `store/ddl.py`; enum
literals come from the schema, not from input, and are quoted all the same.
"""

from __future__ import annotations

from collections.abc import Collection

from alfred_mcp.kitchen.schema import Column, Table
from alfred_mcp.store.ddl import (
    KITCHEN_STAMPS,
    TABLE_STAMPS,
    CheckRule,
    check_rules,
    create_index_sql,
    range_sql,
    scale_index_sql,
    tables_in_fk_order,
)
from alfred_mcp.store.filters import quote_identifier as q
from alfred_mcp.store.sql_literals import literal_sql

NOW_SQL = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

_TYPES = {
    "uuid": "TEXT", "text": "TEXT", "date": "TEXT", "timestamp": "TEXT",
    "int": "INTEGER", "numeric": "REAL", "bool": "INTEGER", "text[]": "TEXT",
}
_ON_DELETE = {"cascade": "CASCADE", "set_null": "SET NULL"}

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
    f"""CREATE TABLE IF NOT EXISTS "{KITCHEN_STAMPS}" (
    "user_id" TEXT PRIMARY KEY NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
    "stamp" INTEGER NOT NULL
)""",
    f"""CREATE TABLE IF NOT EXISTS "{TABLE_STAMPS}" (
    "user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
    "table_name" TEXT NOT NULL,
    "stamp" INTEGER NOT NULL,
    PRIMARY KEY ("user_id", "table_name")
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
    statements += [sql for table in kitchen for sql in create_index_sql(table, if_not_exists=True)]
    statements += [*INTERNAL_TABLES_SQL[1:], *INTERNAL_INDEXES_SQL]
    statements += [sql for table in kitchen for sql in scale_index_sql(table)]
    return statements


def missing_columns_sql(table: Table, present: Collection[str]) -> list[str]:
    """`ALTER TABLE ... ADD COLUMN` for each schema column a database made by an older alfred-mcp lacks
    (a column added later is nullable or has a default, so existing rows stay valid)."""
    return [f"ALTER TABLE {q(table.name)} ADD COLUMN {_column_sql(column)}" for column in table.columns if column.name not in present]


def create_table_sql(table: Table) -> str:
    """`CREATE TABLE IF NOT EXISTS` for one kitchen table."""
    lines = [_column_sql(column) for column in table.columns]
    if table.one_per_user:
        lines.append('UNIQUE ("user_id")')
    body = ",\n    ".join(lines)
    return f"CREATE TABLE IF NOT EXISTS {q(table.name)} (\n    {body}\n)"


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
    parts += [f"CONSTRAINT {q(rule.name)} CHECK ({_check_sql(rule)})" for rule in check_rules(column)]
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


def _check_sql(rule: CheckRule) -> str:
    col = q(rule.column.name)
    if rule.kind == "bool":
        return f"{col} IN (0, 1)"
    if rule.kind == "array":
        return f"json_valid({col}) AND json_type({col}) = 'array'"
    if rule.kind == "enum":
        return f"{col} IN ({', '.join(literal_sql(value) for value in rule.column.enum or ())})"
    return range_sql(rule.column)
