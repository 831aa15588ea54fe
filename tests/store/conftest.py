"""Store fixtures: every test asking for `store` runs on real SQLite and on real PostgreSQL.

SQLite: a fresh file per test. PostgreSQL: one throwaway cluster per test session
(`tests/pg_harness.py`), a template database migrated once, and a fresh copy of it per test.
Tests marked `sqlite_only` look inside the SQLite file and run on SQLite alone. Without
PostgreSQL the postgres cases skip with the install command, except under CI=true, where a
missing PostgreSQL fails them.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from pg_harness import DatabaseFactory, PostgresServer, PostgresUnavailable, create_database, postgres_server

from alfred_mcp.store.base import Store
from alfred_mcp.store.sqlite import SQLiteStore

BACKENDS = ("sqlite", "postgres")
TEMPLATE = "alfred_template"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: the test inspects the SQLite file itself, so it runs on SQLite alone")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize every test that (indirectly) uses `backend` over both backends."""
    if "backend" in metafunc.fixturenames:
        sqlite_only = metafunc.definition.get_closest_marker("sqlite_only") is not None
        metafunc.parametrize("backend", BACKENDS[:1] if sqlite_only else BACKENDS)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL cluster for the whole test session."""
    try:
        import psycopg  # noqa: F401

        with postgres_server() as server:
            yield server
    except (PostgresUnavailable, ImportError) as error:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required under CI=true: {error}", pytrace=False)
        pytest.skip(f"{error} (under CI=true this fails instead)")


@pytest.fixture(scope="session")
def pg_databases(pg_server: PostgresServer) -> Iterator[DatabaseFactory]:
    """Makes databases that start migrated: copies of a template migrated once."""
    from alfred_mcp.store.postgres import PostgresStore

    async def migrate(dsn: str) -> None:
        store = PostgresStore(dsn)
        await store.open()
        await store.close()

    anyio.run(migrate, create_database(pg_server, TEMPLATE))
    factory = DatabaseFactory(pg_server, TEMPLATE)
    yield factory
    factory.close()


@pytest.fixture
def pg_dsn(pg_databases: DatabaseFactory) -> Iterator[str]:
    """The DSN of a fresh, migrated PostgreSQL database, dropped after the test."""
    dsn = pg_databases.create()
    yield dsn
    pg_databases.release(dsn)


@pytest.fixture
def backend() -> str:
    """Replaced by `pytest_generate_tests`: 'sqlite' or 'postgres'."""
    return "sqlite"


@pytest.fixture
def store_target(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """Where the test's store lives: a SQLite file path or a PostgreSQL DSN."""
    return tmp_path / "kitchen.db" if backend == "sqlite" else request.getfixturevalue("pg_dsn")


@pytest.fixture
async def store(backend: str, store_target: Any) -> AsyncIterator[Store]:
    """An opened store of the test's backend on a fresh database."""
    if backend == "sqlite":
        opened: Any = SQLiteStore(store_target)
    else:
        from alfred_mcp.store.postgres import PostgresStore

        opened = PostgresStore(store_target)
    await opened.open()
    yield opened
    await opened.close()


@pytest.fixture
async def user(store: Store) -> str:
    """The id of user 'alice' in `store`."""
    return await store.ensure_user("alice")
