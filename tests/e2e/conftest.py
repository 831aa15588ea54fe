"""A real server over a real SQLite file, driven by the real `mcp` Client (2026-07-28; both eras under `both_eras`)."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date, datetime, time
from pathlib import Path

import pytest
import time_machine
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.operations.seeding import seed
from alfred_mcp.server.mcp_server import AlfredServer, build_server

TODAY = date(2026, 1, 12)


@asynccontextmanager
async def opened_app(folder: Path, *, seed_demo: bool = False) -> AsyncIterator[AlfredApp]:
    """An opened app on `folder`/kitchen.db, checking its results (`seed_demo`: a new user gets the demo kitchen)."""
    app = AlfredApp.from_settings(Settings(db=str(folder / "kitchen.db"), seed_demo=seed_demo, check_results=True))
    await app.open()
    try:
        yield app
    finally:
        await app.close()


@asynccontextmanager
async def seeded_app(folder: Path, today: date) -> AsyncIterator[AlfredApp]:
    """An opened app on a fresh SQLite file, seeded with the demo kitchen as of `today`, checking its results."""
    async with opened_app(folder) as app:
        await seed(app.store, app.user_id, today=today)
        yield app


class SeededKitchens:
    """The demo kitchen seeded once per date (a SQLite file in `folder`); each test opens a copy of its own."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._templates: dict[date, Path] = {}

    @asynccontextmanager
    async def copy(self, folder: Path, today: date, *, seed_demo: bool = False) -> AsyncIterator[AlfredApp]:
        """Like `seeded_app(folder, today)`, from a copy of the seeded file instead of seeding again."""
        template = self._templates.get(today)
        if template is None:
            template = self.folder / today.isoformat()
            template.mkdir()
            # seeded at dawn: its rows are older than anything a test writes on its clock from noon, however long
            # seeding takes (a line written before a cook must read as written before it)
            with time_machine.travel(datetime.combine(today, time(6)), tick=True):
                async with seeded_app(template, today):
                    pass
            self._templates[today] = template
        shutil.copy(template / "kitchen.db", folder / "kitchen.db")
        async with opened_app(folder, seed_demo=seed_demo) as app:
            yield app


@pytest.fixture
async def app(tmp_path: Path, seeded_kitchens: SeededKitchens) -> AsyncIterator[AlfredApp]:
    """An opened app on a fresh SQLite file holding the demo kitchen as of TODAY, with the clock on TODAY (noon, and
    running): the pantry's use-by dates are as near as they were seeded, not months past."""
    with time_machine.travel(datetime.combine(TODAY, time(12)), tick=True):
        async with seeded_kitchens.copy(tmp_path, TODAY) as opened:
            yield opened


@pytest.fixture
def server(app: AlfredApp) -> AlfredServer:
    return build_server(app)


@pytest.fixture
async def client(era: str, server: AlfredServer) -> AsyncIterator[Client]:
    """The real MCP client, in memory, on the stateless revision (and on the handshake one too for a test marked
    `both_eras`: tests/conftest.py)."""
    async with Client(server, mode=era) as connected:
        yield connected
