"""A seeded kitchen on a fresh database of each backend (SQLite file, PostgreSQL copy), per test.

The demo kitchen, and a session set up for the bad-input cases (`harness.set_up`), are made once
per backend in a template (a SQLite file, a PostgreSQL template database) that each test copies,
so a test starts from the same rows and refs in a few milliseconds. Without PostgreSQL the
postgres cases skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import anyio
import pytest
from mcp import Client
from pg_harness import DatabaseFactory, PostgresServer, create_database

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.operations.seeding import seed
from alfred_mcp.server.mcp_server import build_server

from .harness import SetupState, set_up

TODAY = date(2026, 1, 12)
BACKENDS = ("sqlite", "postgres")
TEMPLATE = "alfred_adversarial"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "sqlite_only: the property does not depend on the backend; it runs on SQLite alone")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        sqlite_only = metafunc.definition.get_closest_marker("sqlite_only") is not None
        metafunc.parametrize("backend", BACKENDS[:1] if sqlite_only else BACKENDS)


async def _seed(db: str) -> SetupState:
    app = AlfredApp.from_settings(Settings(db=db, seed_demo=False))
    await app.open()
    try:
        await seed(app.store, app.user_id, today=TODAY)
        async with Client(build_server(app)) as client:
            return await set_up(client)
    finally:
        await app.close()


def _scratch_dir() -> str | None:
    """/dev/shm when it is writable (a commit there costs no disk flush), else the temp dir."""
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


@pytest.fixture(scope="session")
def sqlite_template() -> Iterator[tuple[Path, SetupState]]:
    with tempfile.TemporaryDirectory(prefix="alfred-adversarial-template-", dir=_scratch_dir()) as folder:
        path = Path(folder) / "kitchen.db"
        yield path, anyio.run(_seed, str(path))


@pytest.fixture(scope="session")
def pg_template(pg_server: PostgresServer) -> Iterator[tuple[DatabaseFactory, SetupState]]:
    """The seeded, set-up kitchen as a template database on the test process's PostgreSQL cluster."""
    state = anyio.run(_seed, create_database(pg_server, TEMPLATE))
    factory = DatabaseFactory(pg_server, TEMPLATE)
    yield factory, state
    factory.close()


@dataclass(frozen=True)
class Kitchen:
    """A fresh copy of the template: where it is (a file path or a postgresql:// URL) and its setup state."""

    db: str
    state: SetupState


@pytest.fixture
def kitchen(backend: str, request: pytest.FixtureRequest) -> Iterator[Kitchen]:
    if backend == "sqlite":
        template, state = request.getfixturevalue("sqlite_template")
        with tempfile.TemporaryDirectory(prefix="alfred-adversarial-", dir=_scratch_dir()) as folder:
            target = Path(folder) / "kitchen.db"
            shutil.copy(template, target)
            yield Kitchen(str(target), state)
        return
    factory, state = request.getfixturevalue("pg_template")
    dsn = factory.create()
    yield Kitchen(dsn, state)
    factory.release(dsn)


@pytest.fixture
async def kitchen_app(kitchen: Kitchen) -> AsyncIterator[AlfredApp]:
    app = AlfredApp.from_settings(Settings(db=kitchen.db, seed_demo=False, check_results=True))
    await app.open()
    yield app
    await app.close()
