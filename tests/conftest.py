"""Fixtures shared by every test folder, and the hypothesis profile of CI."""

import os
from pathlib import Path

import pytest
from e2e.conftest import SeededKitchens
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None)
"""In CI every generated case is the same from run to run (a failure there is found again by running it again) and no
case fails for the machine's load; a local run keeps exploring new cases."""
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def seeded_kitchens(tmp_path_factory: pytest.TempPathFactory) -> SeededKitchens:
    """The demo kitchen seeded once per date for this test process (each xdist worker has its own)."""
    return SeededKitchens(Path(tmp_path_factory.mktemp("seeded")))
