"""Pick the Store for a database location: a PostgreSQL URL or a SQLite file path."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from alfred_mcp.errors import ConfigError
from alfred_mcp.store.base import Store
from alfred_mcp.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from alfred_mcp.config import SupabaseSettings

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def is_postgres_url(location: str | Path) -> bool:
    """True for a postgresql:// or postgres:// URL (given as text)."""
    return isinstance(location, str) and location.lower().startswith(POSTGRES_SCHEMES)


def open_store(url_or_path: str | Path) -> Store:
    """A PostgresStore for `postgresql://` / `postgres://` URLs, else a SQLiteStore on that file.

    Nothing is connected yet: call `await store.open()`. The SQLite file's folder is created.

    Raises:
        ConfigError: a mangled PostgreSQL URL, or one while psycopg is not installed.
    """
    if str(url_or_path).lower().startswith(("postgresql:", "postgres:")) and not is_postgres_url(url_or_path):
        raise ConfigError(
            "The database URL lost its '//' (was it turned into a file path?); pass postgresql://... as text.", field="db"
        )
    if is_postgres_url(url_or_path):
        try:
            from alfred_mcp.store.postgres import PostgresStore
        except ImportError as error:
            raise ConfigError.missing_extra("A PostgreSQL URL", "postgres", "db") from error
        return PostgresStore(str(url_or_path))
    path = Path(url_or_path).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    return SQLiteStore(path)


def supabase_store(settings: SupabaseSettings) -> Store:
    """A SupabaseStore for the project; every user call signs that user's own JWT.

    Raises:
        ConfigError: the supabase extra is not installed.
    """
    try:
        from alfred_mcp.store.supabase import SupabaseStore
    except ImportError as error:
        raise ConfigError.missing_extra("Supabase", "supabase", "supabase") from error
    return SupabaseStore(settings.url, settings.key, jwt_secret=settings.jwt_secret, service_key=settings.service_key)
