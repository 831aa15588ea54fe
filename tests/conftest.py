"""Fixtures shared by every test folder, and the hypothesis profile of CI."""

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e.conftest import SeededKitchens
from hypothesis import HealthCheck, settings
from mcp.client.session import ClientSession
from pg_harness import DatabaseFactory, PostgresServer, PostgresUnavailable, create_database, postgres_server

settings.register_profile("ci", derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
"""In CI every generated case is the same from run to run (a failure there is found again by running it again) and no
case fails for the machine's load; a local run keeps exploring new cases."""
if os.environ.get("CI"):
    settings.load_profile("ci")


def _share_compiled_output_validators() -> None:
    """Every `mcp` client session of this test process shares the output-schema validators it compiles.

    A session compiles (and checks against the metaschema) a tool's outputSchema the first time it validates that
    tool's result: 3-6 ms a tool, paid again by every test, since each test opens its own session. A compiled
    validator is immutable, so one compiled for an equal schema serves them all; the session still validates every
    result, keeps its own cache (which a changed listing evicts), and an invalid schema still raises on each call."""
    compile_validator = ClientSession._output_schema_validator
    compiled: dict[str, Any] = {}

    def shared_validator(session: ClientSession, name: str, output_schema: dict[str, Any]) -> Any:
        if (validator := session._tool_output_validators.get(name)) is not None:
            return validator
        key = json.dumps(output_schema, sort_keys=True)
        if (validator := compiled.get(key)) is None:
            validator = compiled[key] = compile_validator(session, name, output_schema)
        session._tool_output_validators[name] = validator
        return validator

    ClientSession._output_schema_validator = shared_validator  # type: ignore[method-assign]


_share_compiled_output_validators()


RUN_FIRST = (
    "transport/", "views/", "conformance/", "adversarial/", "test_deploy_guide.py", "test_bundle.py",
    "test_benchmarks_cli.py", "test_harness_cleanup.py", "test_packaging.py", "scenarios/test_recorded_listing.py",
    "scenarios/test_recorded_conversations.py", "agent/test_headless.py", "agent/test_misbehaving_servers.py",
    "e2e/test_archive_bounds.py", "e2e/test_stdio",
)
"""The tests that start processes, servers, clusters or a browser, or replay long conversations (seconds each): run
first, so that under `-n` the workers end on short tests together instead of one finishing a long test alone."""


CURRENT_ERA = pytest.param("auto", id="2026-07-28")
LEGACY_ERA = pytest.param("legacy", id="2025-11-25")
BOTH_ERAS = "both_eras"
"""The marker of a test (or module) whose subject is the protocol or transport itself: its `client` is made on the
2026-07-28 revision and on the 2025-11-25 handshake. Every other test's `client` speaks 2026-07-28 only: what a tool,
resource or prompt answers does not depend on the era, and `e2e/test_era_parity.py` proves that for all of them."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{BOTH_ERAS}: the test's `client` runs on both protocol eras (its subject is the protocol)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """`era` (the `client` fixtures' `Client(mode=...)`): 2026-07-28, and 2025-11-25 too under `both_eras`."""
    own = any("era" in str(marker.args[0]) for marker in metafunc.definition.iter_markers("parametrize"))
    if "era" in metafunc.fixturenames and not own:  # a test parametrizing its own `era` keeps it
        both = metafunc.definition.get_closest_marker(BOTH_ERAS) is not None
        metafunc.parametrize("era", [CURRENT_ERA, LEGACY_ERA] if both else [CURRENT_ERA])


def _runs_first(item: pytest.Item) -> bool:
    path = item.nodeid.split("::", 1)[0].removeprefix("tests/")
    return path.startswith(RUN_FIRST)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests first (`RUN_FIRST`, each module's order kept), and let `--dist loadgroup` see each test's
    xdist_group again.

    pytest-xdist tells its scheduler a test's group by appending `@group` to `item._nodeid` (on each worker, in its own
    collection hook), but pytest 9.2 builds `item.nodeid` from the structured `item._id`, so the suffix is lost and the
    tests of one group are spread over the workers (pytest-dev/pytest-xdist#1386). Running after xdist's hook, this
    copies the suffixed id into `_id`; on a pytest that still reads `_nodeid` there is nothing to do.
    """
    items.sort(key=lambda item: not _runs_first(item))
    for item in items:
        suffixed = vars(item).get("_nodeid")
        if isinstance(suffixed, str) and hasattr(item, "_id") and str(item._id) != suffixed:
            item._id = type(item._id).parse(suffixed)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def seeded_kitchens(tmp_path_factory: pytest.TempPathFactory) -> SeededKitchens:
    """The demo kitchen seeded once per date for this test process (each xdist worker has its own)."""
    return SeededKitchens(Path(tmp_path_factory.mktemp("seeded")))


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """One throwaway PostgreSQL cluster per test process, shared by the store, adversarial and HTTP tests (each makes
    its own template and databases on it). Without PostgreSQL a test that needs it skips, except under CI=true."""
    try:
        import psycopg  # noqa: F401

        with postgres_server() as server:
            yield server
    except (PostgresUnavailable, ImportError) as error:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required under CI=true: {error}", pytrace=False)
        pytest.skip(f"{error} (under CI=true this fails instead)")


@pytest.fixture(scope="session")
def pg_databases(pg_server: PostgresServer) -> Iterator[DatabaseFactory]:
    """Makes databases that start migrated: copies of a template migrated once (the store and HTTP tests')."""
    from alfred_mcp.store.postgres import PostgresStore

    async def migrate(dsn: str) -> None:
        store = PostgresStore(dsn)
        await store.open()
        await store.close()

    anyio.run(migrate, create_database(pg_server, "alfred_template"))
    factory = DatabaseFactory(pg_server, "alfred_template")
    yield factory
    factory.close()
