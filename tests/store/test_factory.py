"""open_store picks the backend from the database location."""

from __future__ import annotations

from pathlib import Path

import pytest

from alfred_mcp.errors import ConfigError
from alfred_mcp.store.factory import open_store
from alfred_mcp.store.sqlite import SQLiteStore


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("postgresql://alfred@db.example:5432/kitchen", id="postgresql"),
        pytest.param("postgres://alfred:secret@localhost/kitchen", id="postgres"),
        pytest.param("POSTGRESQL://alfred@localhost/kitchen?sslmode=require", id="upper-case"),
    ],
)
def test_a_postgres_url_gives_a_postgres_store(url: str) -> None:
    """Both URL schemes select PostgresStore with the URL untouched; nothing connects yet."""
    pytest.importorskip("psycopg")
    from alfred_mcp.store.postgres import PostgresStore

    store = open_store(url)
    assert isinstance(store, PostgresStore) and store.dsn == url and store.dialect == "postgres"


@pytest.mark.parametrize("as_path", [pytest.param(False, id="text"), pytest.param(True, id="path")])
def test_anything_else_is_a_sqlite_file_whose_folder_is_created(tmp_path: Path, as_path: bool) -> None:
    """A path (text or Path) gives SQLiteStore on that file; missing folders are made."""
    target = tmp_path / "nested" / "kitchen.db"
    store = open_store(target if as_path else str(target))
    assert isinstance(store, SQLiteStore) and store.path == target and target.parent.is_dir()


def test_a_url_mangled_into_a_path_is_refused(tmp_path: Path) -> None:
    """Path('postgresql://...') collapses the '//': refused instead of creating a 'postgresql:' folder."""
    with pytest.raises(ConfigError, match="lost its '//'"):
        open_store(Path("postgresql://alfred@localhost/kitchen"))
