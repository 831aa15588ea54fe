"""Fixtures of the agent tests: an app on a fresh demo kitchen, and the real MCP client in both protocol eras."""

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


@pytest.fixture(params=["auto", "legacy"], ids=["2026-07-28", "2025-11-25"])
async def client(request: pytest.FixtureRequest, app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app), mode=request.param) as connected:
        yield connected
