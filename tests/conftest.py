"""Fixtures shared by every test folder."""

from pathlib import Path

import pytest
from e2e.conftest import SeededKitchens


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def seeded_kitchens(tmp_path_factory: pytest.TempPathFactory) -> SeededKitchens:
    """The demo kitchen seeded once per date for this test process (each xdist worker has its own)."""
    return SeededKitchens(Path(tmp_path_factory.mktemp("seeded")))
