"""The PostgreSQL migration set shared by PostgreSQL and Supabase: one SQL text per version, oldest first.

The repo's `migrations/` folder is written from it (`python -m alfred_mcp.store.postgres migrations`);
a test proves the committed files match.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from alfred_mcp.store.postgres.rpc import rpc_sql
from alfred_mcp.store.postgres.schema import (
    HEADER,
    SHIM_SQL,
    added_columns_sql,
    kitchen_sql,
    scale_sql,
    table_stamps_sql,
    user_origins_sql,
)


@dataclass(frozen=True)
class Migration:
    """One SQL file of the set, applied once, in version order, in one transaction."""

    version: int
    name: str
    sql: str

    @property
    def filename(self) -> str:
        return f"{self.version:04d}_{self.name}.sql"

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


@cache
def migrations() -> tuple[Migration, ...]:
    """The whole set, oldest first."""
    return (
        Migration(0, "bare_postgres_shim", HEADER + SHIM_SQL),
        Migration(1, "kitchen", kitchen_sql()),
        Migration(2, "supabase_rpc", HEADER + rpc_sql()),
        Migration(3, "scale", scale_sql()),
        Migration(4, "user_origins", user_origins_sql()),
        Migration(5, "table_stamps", table_stamps_sql()),
        Migration(6, "recipe_total_time", added_columns_sql(6)),
    )


def write_migrations(folder: Path) -> list[Path]:
    """Write every migration file into `folder`; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for migration in migrations():
        path = folder / migration.filename
        path.write_text(migration.sql, encoding="utf-8")
        written.append(path)
    return written

