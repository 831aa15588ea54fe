"""Fixtures of the agent tests: an app on a fresh demo kitchen, and the real MCP client (2026-07-28; both eras under `both_eras`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path

import pytest
from e2e.conftest import SeededKitchens
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server


@pytest.fixture
async def app(tmp_path: Path, seeded_kitchens: SeededKitchens) -> AsyncIterator[AlfredApp]:
    """An open app on a new SQLite file with the demo kitchen of today, as a first start seeds it (a module may
    override it)."""
    async with seeded_kitchens.copy(tmp_path, date.today(), seed_demo=True) as opened:
        yield opened


@pytest.fixture
async def client(era: str, app: AlfredApp) -> AsyncIterator[Client]:
    """The real MCP client on 2026-07-28 (and 2025-11-25 too for a test marked `both_eras`: tests/conftest.py)."""
    async with Client(build_server(app), mode=era) as connected:
        yield connected
