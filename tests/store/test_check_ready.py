"""`check_ready` on every backend: what /readyz asks the database (it answers, with this build's schema)."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from alfred_mcp.errors import StoreError
from alfred_mcp.store.base import Store

pytestmark = pytest.mark.anyio
OTHER_VERSION = """UPDATE "alfred_meta" SET "value" = '999' WHERE "key" = 'schema_version'"""


def _execute(backend: str, store_target: Any, request: pytest.FixtureRequest, sql: str) -> None:
    if backend == "sqlite":
        with sqlite3.connect(store_target) as connection:
            connection.execute(sql)
        return
    import psycopg

    with psycopg.connect(request.getfixturevalue("pg_dsn"), autocommit=True) as connection:
        connection.execute(sql)


async def test_an_open_store_of_this_schema_is_ready(store: Store) -> None:
    await store.check_ready()


async def test_another_schema_version_is_not_ready_and_says_which(
    store: Store, backend: str, store_target: Any, request: pytest.FixtureRequest
) -> None:
    _execute(backend, store_target, request, OTHER_VERSION)
    with pytest.raises(StoreError, match="schema version 999"):
        await store.check_ready()


async def test_a_closed_store_is_not_ready(store: Store) -> None:
    await store.close()
    with pytest.raises(StoreError, match="not open"):
        await store.check_ready()
