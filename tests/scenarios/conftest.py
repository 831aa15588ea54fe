"""A seeded kitchen served to the real `mcp` Client, for conversations driven stage by stage."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path

import pytest
from e2e.conftest import SeededKitchens
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server

from .driver import StageClient
from .recorded import Replays


@pytest.fixture
async def app(tmp_path: Path, seeded_kitchens: SeededKitchens) -> AsyncIterator[AlfredApp]:
    """Seeded as of today: the date the role contexts are built with."""
    async with seeded_kitchens.copy(tmp_path, date.today()) as opened:
        yield opened


@pytest.fixture
async def stage(app: AlfredApp) -> AsyncIterator[StageClient]:
    async with Client(build_server(app)) as client:
        yield StageClient(client)


@pytest.fixture(scope="session")
def recorded_replays(tmp_path_factory: pytest.TempPathFactory, seeded_kitchens: SeededKitchens) -> Replays:
    """The recordings' replays made in this test process (`Replays`), shared by every test that reads one."""
    return Replays(tmp_path_factory.mktemp("replays"), seeded_kitchens)
