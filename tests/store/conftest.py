"""Store fixtures: a real SQLite file per test, opened before and closed after."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from alfred_mcp.store.sqlite import SQLiteStore


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    """An opened SQLiteStore on a fresh file in tmp_path."""
    opened = SQLiteStore(tmp_path / "kitchen.db")
    await opened.open()
    yield opened
    await opened.close()


@pytest.fixture
async def user(store: SQLiteStore) -> str:
    """The id of user 'alice' in `store`."""
    return await store.ensure_user("alice")
