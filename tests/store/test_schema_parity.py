"""The SQLite DDL, the PostgreSQL migration and the kitchen schema agree, read back from real databases.

Both databases are created by their stores and then introspected (PRAGMAs; pg_catalog), so
what is compared is what the servers hold, not what the generators meant to write.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from pg_harness import DatabaseFactory

from alfred_mcp.kitchen.schema import TABLES, Column, Table
from alfred_mcp.store.filters import get_dialect, quote_identifier
from alfred_mcp.store.postgres.migrations import migrations
from alfred_mcp.store.postgres.schema import INSERT_ORDER_COLUMN
from alfred_mcp.store.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parents[2]
SQLITE_TYPES = {
    "uuid": "TEXT", "text": "TEXT", "date": "TEXT", "timestamp": "TEXT",
    "int": "INTEGER", "numeric": "REAL", "bool": "INTEGER", "text[]": "TEXT",
}
POSTGRES_TYPES = {
    "uuid": "uuid", "text": "text", "date": "date", "timestamp": "timestamptz",
    "int": "int4", "numeric": "numeric", "bool": "bool", "text[]": "_text",
}
POSTGRES_AS_SQLITE = {"uuid": "TEXT", "text": "TEXT", "timestamptz": "TEXT", "int4": "INTEGER", "int8": "INTEGER", "bool": "INTEGER", "json": "TEXT"}
ON_DELETE = {"cascade": "CASCADE", "set_null": "SET NULL"}
PG_ON_DELETE = {"c": "CASCADE", "n": "SET NULL", "a": "NO ACTION", "r": "RESTRICT", "d": "SET DEFAULT"}
PG_ONLY_TABLES = {"alfred_schema_migrations"}
"""The migration runner's own bookkeeping (SQLite keeps its schema version in alfred_meta only)."""
_SQLITE_CHECK = re.compile(r'CONSTRAINT "(\w+)" CHECK \(((?:[^()]|\([^()]*\))*)\)')

Rule = tuple[str, Any]


@dataclass
class Shape:
    """One table as a database holds it."""

    columns: dict[str, tuple[str, bool]] = field(default_factory=dict)
    """name -> (declared type, nullable), in column order."""
    fks: set[tuple[str, str, str]] = field(default_factory=set)
    """(column, referenced table, ON DELETE)."""
    checks: dict[str, Rule] = field(default_factory=dict)
    """named CHECK -> ('enum', values) or ('range', (low, high))."""
    uniques: set[tuple[str, ...]] = field(default_factory=set)
    defaults: set[str] = field(default_factory=set)


# -- reading the databases ------------------------------------------------------------------


@pytest.fixture(scope="module")
def sqlite_shapes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Shape]:
    """Every table of a SQLite file created by SQLiteStore."""
    path = tmp_path_factory.mktemp("parity") / "kitchen.db"

    async def create() -> None:
        store = SQLiteStore(path)
        await store.open()
        await store.close()

    anyio.run(create)
    connection = sqlite3.connect(path)
    try:
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: _sqlite_shape(connection, name) for name in names}
    finally:
        connection.close()


@pytest.fixture(scope="module")
def postgres_shapes(pg_databases: DatabaseFactory) -> Iterator[dict[str, Shape]]:
    """Every table of the public schema of a database migrated by PostgresStore."""
    import psycopg

    dsn = pg_databases.create()
    try:
        with psycopg.connect(dsn) as connection:
            yield _postgres_shapes(connection)
    finally:
        pg_databases.release(dsn)


def _sqlite_shape(connection: sqlite3.Connection, table: str) -> Shape:
    shape = Shape()
    for _cid, name, declared, notnull, default, pk in connection.execute(f'PRAGMA table_info("{table}")'):
        shape.columns[name] = (declared, not (notnull or pk))
        if default is not None:
            shape.defaults.add(name)
    shape.fks = {(row[3], row[2], row[6]) for row in connection.execute(f'PRAGMA foreign_key_list("{table}")')}
    (sql,) = connection.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    shape.checks = {name: _rule(condition) for name, condition in _SQLITE_CHECK.findall(sql)}
    for _seq, index, unique, origin, _partial in connection.execute(f'PRAGMA index_list("{table}")'):
        if unique and origin == "u":
            shape.uniques.add(tuple(row[2] for row in connection.execute(f'PRAGMA index_info("{index}")')))
    return shape


def _postgres_shapes(connection: Any) -> dict[str, Shape]:
    shapes: dict[str, Shape] = {}
    columns = connection.execute(
        "SELECT table_name, column_name, udt_name, is_nullable = 'YES', column_default IS NOT NULL OR is_identity = 'YES' "
        "FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"
    )
    for table, name, udt, nullable, has_default in columns:
        shape = shapes.setdefault(table, Shape())
        shape.columns[name] = (udt, nullable)
        if has_default:
            shape.defaults.add(name)
    constraints = connection.execute(
        "SELECT c.conrelid::regclass::text, c.contype, c.conname, c.confrelid::regclass::text, c.confdeltype, "
        "pg_get_constraintdef(c.oid), array(SELECT a.attname FROM unnest(c.conkey) AS k "
        "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k) "
        "FROM pg_constraint c WHERE c.connamespace = 'public'::regnamespace AND c.contype IN ('f', 'c', 'u')"
    )
    for table, kind, name, target, on_delete, definition, keys in constraints:
        shape = shapes[table]
        if kind == "f":
            shape.fks.add((keys[0], target, PG_ON_DELETE[on_delete]))
        elif kind == "u":
            shape.uniques.add(tuple(keys))
        else:
            shape.checks[name] = _rule(definition)
    return shapes


def _rule(condition: str) -> Rule:
    """A CHECK condition in either dialect as ('enum', values) or ('range', (low, high))."""
    between = re.search(r"BETWEEN (-?[\d.]+) AND (-?[\d.]+)", condition)
    if between:
        return "range", (float(between.group(1)), float(between.group(2)))
    low = re.search(r">= \(?(-?[\d.]+)", condition)
    high = re.search(r"<= \(?(-?[\d.]+)", condition)
    if low or high:
        return "range", (float(low.group(1)) if low else None, float(high.group(1)) if high else None)
    listed = re.search(r"IN \((.*)\)|ARRAY\[(.*)\]", condition)
    if listed:
        body = listed.group(1) or listed.group(2)
        texts = re.findall(r"'((?:[^']|'')*)'", body)
        return "enum", frozenset(texts) if texts else frozenset(int(v) for v in re.findall(r"-?\d+", body))
    return "other", condition


# -- what the kitchen schema says -----------------------------------------------------------


def _expected_checks(column: Column) -> dict[str, Rule]:
    checks: dict[str, Rule] = {}
    if column.enum is not None and column.type != "text[]":
        checks[f"{column.name}_enum"] = ("enum", frozenset(column.enum))
    if column.type in ("int", "numeric") and (column.minimum is not None or column.maximum is not None):
        low, high = (None if bound is None else float(bound) for bound in (column.minimum, column.maximum))
        checks[f"{column.name}_range"] = ("range", (low, high))
    return checks


def _expected_fks(table: Table) -> set[tuple[str, str, str]]:
    found = {(c.name, c.fk.table, ON_DELETE[c.fk.on_delete]) for c in table.fk_columns if c.fk is not None}
    return found | ({("user_id", "users", "CASCADE")} if table.user_owned else set())


def _expected_uniques(table: Table) -> set[tuple[str, ...]]:
    return {(c.name,) for c in table.columns if c.unique} | ({("user_id",)} if table.one_per_user else set())


def _kitchen_columns(shape: Shape) -> dict[str, tuple[str, bool]]:
    return {name: spec for name, spec in shape.columns.items() if name != INSERT_ORDER_COLUMN}


# -- the tests ------------------------------------------------------------------------------


def test_both_databases_hold_the_same_tables(sqlite_shapes: dict[str, Shape], postgres_shapes: dict[str, Shape]) -> None:
    """Every kitchen table and every internal table exists on both; nothing else but the runner's bookkeeping."""
    assert set(TABLES) <= set(sqlite_shapes)
    assert set(postgres_shapes) - PG_ONLY_TABLES == set(sqlite_shapes)


@pytest.mark.parametrize("table", list(TABLES.values()), ids=list(TABLES))
def test_kitchen_columns_types_and_nullability_follow_the_schema(
    table: Table, sqlite_shapes: dict[str, Shape], postgres_shapes: dict[str, Shape]
) -> None:
    """Same columns in schema order, the schema's type in each dialect, NOT NULL exactly where the schema says."""
    expected_sqlite = {c.name: (SQLITE_TYPES[c.type], c.nullable and c.name != "id") for c in table.columns}
    expected_postgres = {c.name: (POSTGRES_TYPES[c.type], c.nullable and c.name != "id") for c in table.columns}
    assert list(sqlite_shapes[table.name].columns.items()) == list(expected_sqlite.items())
    assert list(_kitchen_columns(postgres_shapes[table.name]).items()) == list(expected_postgres.items())
    assert postgres_shapes[table.name].columns[INSERT_ORDER_COLUMN] == ("int8", False)


@pytest.mark.parametrize("table", list(TABLES.values()), ids=list(TABLES))
def test_foreign_keys_and_on_delete_follow_the_schema(
    table: Table, sqlite_shapes: dict[str, Shape], postgres_shapes: dict[str, Shape]
) -> None:
    """Each FK references its table with the schema's ON DELETE; user_id cascades from users."""
    assert sqlite_shapes[table.name].fks == _expected_fks(table)
    assert postgres_shapes[table.name].fks == _expected_fks(table)


@pytest.mark.parametrize("table", list(TABLES.values()), ids=list(TABLES))
def test_enum_and_range_checks_follow_the_schema(
    table: Table, sqlite_shapes: dict[str, Shape], postgres_shapes: dict[str, Shape]
) -> None:
    """The same named CHECKs with the same values and bounds; SQLite adds only its type emulation."""
    expected = {name: rule for column in table.columns for name, rule in _expected_checks(column).items()}
    assert postgres_shapes[table.name].checks == expected
    sqlite_checks = sqlite_shapes[table.name].checks
    emulation = {name for name in sqlite_checks if name.endswith(("_bool", "_array"))}
    assert {name: rule for name, rule in sqlite_checks.items() if name not in emulation} == expected
    assert emulation == {f"{c.name}_{'bool' if c.type == 'bool' else 'array'}" for c in table.columns if c.type in ("bool", "text[]")}


@pytest.mark.parametrize("table", list(TABLES.values()), ids=list(TABLES))
def test_unique_constraints_and_defaults_follow_the_schema(
    table: Table, sqlite_shapes: dict[str, Shape], postgres_shapes: dict[str, Shape]
) -> None:
    """UNIQUE where the schema says; a default on every column the schema gives one (PostgreSQL also makes ids)."""
    assert sqlite_shapes[table.name].uniques == _expected_uniques(table)
    assert postgres_shapes[table.name].uniques == _expected_uniques(table)
    defaults = {c.name for c in table.columns if c.default is not None or c.type == "text[]"}
    assert sqlite_shapes[table.name].defaults == defaults
    assert postgres_shapes[table.name].defaults == defaults | {"id", INSERT_ORDER_COLUMN}


def test_internal_tables_agree_between_the_backends(sqlite_shapes: dict[str, Shape], postgres_shapes: dict[str, Shape]) -> None:
    """users and the session tables: same columns, nullability, type classes, FKs and uniques."""
    internal = set(sqlite_shapes) - set(TABLES)
    assert internal == {
        "users", "alfred_sessions", "alfred_session_refs", "alfred_session_counters", "alfred_session_docs", "alfred_meta",
        "alfred_kitchen_stamps", "alfred_table_stamps",
    }
    for name in internal:
        sqlite_shape, postgres_shape = sqlite_shapes[name], postgres_shapes[name]
        converted = {column: (POSTGRES_AS_SQLITE[udt], nullable) for column, (udt, nullable) in postgres_shape.columns.items()}
        assert converted == sqlite_shape.columns, name
        assert postgres_shape.fks == sqlite_shape.fks, name
        assert postgres_shape.uniques == sqlite_shape.uniques, name


def test_every_table_has_row_level_security_and_owned_tables_a_per_user_policy(pg_dsn: str) -> None:
    """RLS is on for every table; each user-owned table lets `authenticated` see only user_id = auth.uid()."""
    import psycopg

    with psycopg.connect(pg_dsn) as connection:
        secured = dict(connection.execute(
            "SELECT relname, relrowsecurity FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'"
        ).fetchall())
        policies = {
            table: (roles, qual, check)
            for table, roles, qual, check in connection.execute("SELECT tablename, roles, qual, with_check FROM pg_policies")
        }
    assert secured and all(secured.values()), [name for name, on in secured.items() if not on]
    for table in TABLES.values():
        roles, qual, check = policies[table.name]
        if table.user_owned:
            assert roles == ["authenticated"] and qual == check == "(user_id = ( SELECT auth.uid() AS uid))", table.name
        else:
            assert (roles, qual) == (["anon", "authenticated"], "true")


def test_the_committed_migration_files_are_the_generated_ones() -> None:
    """migrations/*.sql is exactly what pg_schema generates (regenerate: python -m alfred_mcp.store.postgres migrations)."""
    committed = {path.name: path.read_text(encoding="utf-8") for path in sorted((ROOT / "migrations").glob("*.sql"))}
    assert committed == {migration.filename: migration.sql for migration in migrations()}


def test_postgres_breaks_order_ties_by_the_insert_order_column() -> None:
    """The dialect's tiebreak names the hidden column every kitchen table gets (SQLite's is rowid)."""
    assert get_dialect("postgres").tiebreak == quote_identifier(INSERT_ORDER_COLUMN)
    assert get_dialect("sqlite").tiebreak == "rowid"
