"""PostgreSQL for the HTTP tests: the test process's cluster (`pg_server`), a migrated template, a fresh copy per test.

Without PostgreSQL the tests skip with the install command, except under CI=true.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import anyio
import pytest
from pg_harness import DatabaseFactory, PostgresServer, create_database

TEMPLATE = "alfred_http_template"


@pytest.fixture(scope="session")
def http_pg_databases(pg_server: PostgresServer) -> Iterator[DatabaseFactory]:
    """Migrated databases for the HTTP tests: copies of a template on the test process's PostgreSQL cluster."""
    try:
        from alfred_mcp.store.postgres import PostgresStore
    except ImportError as error:
        if os.environ.get("CI") == "true":
            pytest.fail(f"psycopg is required under CI=true: {error}", pytrace=False)
        pytest.skip(f"{error} (under CI=true this fails instead)")

    async def migrate(dsn: str) -> None:
        store = PostgresStore(dsn)
        await store.open()
        await store.close()

    anyio.run(migrate, create_database(pg_server, TEMPLATE))
    factory = DatabaseFactory(pg_server, TEMPLATE)
    yield factory
    factory.close()


@pytest.fixture
def pg_url(http_pg_databases: DatabaseFactory) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database's URL."""
    dsn = http_pg_databases.create()
    yield dsn
    http_pg_databases.release(dsn)
