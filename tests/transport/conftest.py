"""PostgreSQL for the HTTP tests: a fresh copy per test of the migrated template the store tests use too (`pg_databases`,
on the test process's one cluster).

Without PostgreSQL the tests skip with the install command, except under CI=true.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pg_harness import DatabaseFactory


@pytest.fixture
def pg_url(pg_databases: DatabaseFactory) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database's URL."""
    dsn = pg_databases.create()
    yield dsn
    pg_databases.release(dsn)


@pytest.fixture(scope="module")
def postgres_db(pg_databases: DatabaseFactory) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database shared by a module's tests (its servers started once for them)."""
    dsn = pg_databases.create()
    yield dsn
    pg_databases.release(dsn)
