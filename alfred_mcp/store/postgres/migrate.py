"""Apply the PostgreSQL migration set (`migrations.py`) once per database.

All pending migrations run in one transaction under an advisory lock, so replicas starting
together apply them once. Each applied file is recorded with its checksum; a database whose
record disagrees with this alfred-mcp (an edited file, an unknown newer migration, another
schema version) is refused instead of used.
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection

from alfred_mcp.errors import StoreError
from alfred_mcp.store.ddl import SCHEMA_VERSION
from alfred_mcp.store.postgres.migrations import migrations

LOCK_KEY = 0x616C66726564
"""pg_advisory_xact_lock key ('alfred' in hex) held while migrating."""
_BOOKKEEPING = (
    'CREATE TABLE IF NOT EXISTS "alfred_schema_migrations" ('
    '"version" integer PRIMARY KEY, "name" text NOT NULL, "checksum" text NOT NULL, '
    '"applied_at" timestamptz NOT NULL DEFAULT now())',
    'ALTER TABLE "alfred_schema_migrations" ENABLE ROW LEVEL SECURITY',
)


async def apply_migrations(connection: AsyncConnection[Any]) -> list[str]:
    """Apply every migration the database lacks; the file names applied.

    Raises:
        StoreError: the database's migrations or schema version do not match this alfred-mcp.
    """
    applied: list[str] = []
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_KEY,))
        for statement in _BOOKKEEPING:
            await connection.execute(statement)
        cursor = await connection.execute('SELECT "version", "checksum" FROM "alfred_schema_migrations"')
        recorded = {int(version): str(checksum) for version, checksum in await cursor.fetchall()}
        _check_recorded(recorded)
        for migration in migrations():
            if migration.version in recorded:
                continue
            await connection.execute(migration.sql)
            await connection.execute(
                'INSERT INTO "alfred_schema_migrations" ("version", "name", "checksum") VALUES (%s, %s, %s)',
                (migration.version, migration.name, migration.checksum),
            )
            applied.append(migration.filename)
        await _check_schema_version(connection)
    return applied


async def check_migrations(connection: AsyncConnection[Any]) -> None:
    """Check, without changing anything, that the database has exactly this alfred-mcp's migrations.

    Raises:
        StoreError: a migration is missing, unknown or different, or the schema version differs.
    """
    cursor = await connection.execute('SELECT "version", "checksum" FROM "alfred_schema_migrations"')
    recorded = {int(version): str(checksum) for version, checksum in await cursor.fetchall()}
    _check_recorded(recorded)
    missing = [migration.filename for migration in migrations() if migration.version not in recorded]
    if missing:
        raise StoreError(
            f"The database lacks migration {missing[0]}; start this alfred-mcp once against it to apply it.",
            value=missing[0],
        )
    await _check_schema_version(connection)


def _check_recorded(recorded: dict[int, str]) -> None:
    known = {migration.version: migration for migration in migrations()}
    unknown = sorted(set(recorded) - set(known))
    if unknown:
        raise StoreError(
            f"The database has migration {unknown[-1]}, newer than this alfred-mcp knows; upgrade alfred-mcp.",
            value=unknown[-1], valid=sorted(known),
        )
    for version, checksum in recorded.items():
        if known[version].checksum != checksum:
            raise StoreError(
                f"Migration {known[version].filename} differs from the one applied to the database; "
                "the database was migrated by another alfred-mcp build.",
                value=known[version].filename,
            )


async def _check_schema_version(connection: AsyncConnection[Any]) -> None:
    cursor = await connection.execute('SELECT "value" FROM "alfred_meta" WHERE "key" = %s', ("schema_version",))
    row = await cursor.fetchone()
    found = row[0] if row else None
    if found != str(SCHEMA_VERSION):
        raise StoreError(
            f"The database has schema version {found}; this alfred-mcp uses version {SCHEMA_VERSION}.",
            value=found, valid=[str(SCHEMA_VERSION)],
        )
