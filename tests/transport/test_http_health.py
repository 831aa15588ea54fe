"""/healthz and /readyz on a real `serve --http` process: no token, any Host, and readiness that follows
the database (stopped and restarted under the running server) and its migrations.

The module's tests share one server per backend (`served_sqlite`, `served_postgres`, one xdist group): a test that
changes its database puts it back (`schema_kept`) and proves the server ready again; the outage test has its own
cluster and server."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import anyio
import httpx2
import psycopg
import pytest
from pg_harness import PostgresServer, create_database, postgres_server, start_server, stop_server

sys.path.insert(0, str(Path(__file__).parents[1]))
from e2e.helpers import call  # noqa: E402
from http_harness import http_client, http_server  # noqa: E402

pytestmark = [pytest.mark.anyio, pytest.mark.xdist_group("http_health")]
TOKEN = "health-token-0123456789"
TOKENS = {TOKEN: "alice"}
ANY_CALLER = [
    ("no headers", {}),
    ("a pod IP as Host", {"Host": "10.1.2.3:8765"}),
    ("a foreign Origin", {"Origin": "http://evil.example"}),
    ("an unknown token", {"Authorization": "Bearer not-a-known-token-at-all"}),
]
READY = {"status": "ready"}


def base(url: str) -> str:
    return url.removesuffix("/mcp")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def sqlite_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("health") / "k.db"


@pytest.fixture(scope="module")
async def served_sqlite(sqlite_db: Path) -> AsyncIterator[str]:
    """One server on an SQLite file for the module's tests; its /mcp URL."""
    async with http_server(str(sqlite_db), TOKENS) as url:
        yield url


@pytest.fixture(scope="module")
async def served_postgres(postgres_db: str) -> AsyncIterator[str]:
    """One server on a migrated PostgreSQL database for the module's tests; its /mcp URL."""
    async with http_server(postgres_db, TOKENS) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest) -> str:
    return str(request.getfixturevalue(f"served_{request.param}"))


def _kept(connect: Callable[[], object], placeholder: str, tables: tuple[str, ...]) -> Iterator[None]:
    """The rows of `tables` (those a schema change below touches) as they were before the block, put back after it."""
    with connect() as connection:  # type: ignore[attr-defined]
        rows = {table: connection.execute(f'SELECT * FROM "{table}"').fetchall() for table in tables}
    yield
    with connect() as connection:  # type: ignore[attr-defined]
        for table, kept in rows.items():
            connection.execute(f'DELETE FROM "{table}"')
            for row in kept:
                connection.execute(f'INSERT INTO "{table}" VALUES ({", ".join([placeholder] * len(row))})', row)


@pytest.fixture
def postgres_schema_kept(postgres_db: str) -> Iterator[None]:
    yield from _kept(lambda: psycopg.connect(postgres_db, autocommit=True), "%s", ("alfred_schema_migrations", "alfred_meta"))


@pytest.fixture
def sqlite_schema_kept(sqlite_db: Path) -> Iterator[None]:
    yield from _kept(lambda: sqlite3.connect(sqlite_db, isolation_level=None), "?", ("alfred_meta",))


async def test_probes_answer_any_caller_without_a_token(served: str) -> None:
    """Both probes answer 200 to every caller (no token, a pod IP as Host, a foreign Origin); /mcp still refuses them."""
    url = served
    async with httpx2.AsyncClient(timeout=10) as raw:
        answers = {(path, case): (await raw.get(base(url) + path, headers=headers)) for path in ("/healthz", "/readyz")
                   for case, headers in ANY_CALLER}
        refused = {case: (await raw.get(url, headers=headers)).status_code for case, headers in ANY_CALLER}
    assert {key: (answer.status_code, answer.json()) for key, answer in answers.items()} == {
        (path, case): (200, {"status": "ok"} if path == "/healthz" else READY) for path, case in answers
    }
    assert all(status in (401, 403, 421) for status in refused.values()), refused
    assert all("access-control-allow-origin" not in answer.headers for answer in answers.values())


REFUSED_METHODS = ["POST", "PUT", "DELETE", "PATCH"]


async def test_probes_refuse_methods_other_than_get_and_head(served_sqlite: str) -> None:
    """Every method but GET and HEAD, on both probes of one server: 405 naming the allowed ones; HEAD answers empty."""
    paths = ("/healthz", "/readyz")
    url = served_sqlite
    async with httpx2.AsyncClient(timeout=10) as raw:
        answers = {(method, path): await raw.request(method, base(url) + path) for method in REFUSED_METHODS for path in paths}
        heads = [await raw.head(base(url) + path) for path in paths]
    assert {key: (a.status_code, a.headers["allow"]) for key, a in answers.items()} == {
        (method, path): (405, "GET, HEAD") for method in REFUSED_METHODS for path in paths}
    assert [(h.status_code, h.content) for h in heads] == [(200, b"")] * 2


MIGRATION_DRIFT = [
    ("a migration missing", 'DELETE FROM "alfred_schema_migrations" WHERE "version" = (SELECT max("version") FROM "alfred_schema_migrations")',
     "The database lacks migration"),
    ("a newer migration", """INSERT INTO "alfred_schema_migrations" ("version", "name", "checksum") VALUES (9999, 'future', 'x')""",
     "newer than this alfred-mcp knows"),
    ("an edited migration", """UPDATE "alfred_schema_migrations" SET "checksum" = 'edited' WHERE "version" = 1""",
     "differs from the one applied"),
    ("another schema version", """UPDATE "alfred_meta" SET "value" = '999' WHERE "key" = 'schema_version'""",
     "schema version 999"),
]


@pytest.mark.parametrize(("case", "sql", "reason"), MIGRATION_DRIFT, ids=[case for case, _, _ in MIGRATION_DRIFT])
async def test_readyz_is_503_naming_migrations_that_are_not_this_servers(served_postgres: str, postgres_db: str,
                                                                          postgres_schema_kept: None, case: str, sql: str,
                                                                          reason: str) -> None:
    """A database whose migrations drift under a running PostgreSQL server: not ready, saying how; live all along."""
    url = served_postgres
    async with httpx2.AsyncClient(timeout=10) as raw:
        before = await raw.get(base(url) + "/readyz")
        with psycopg.connect(postgres_db, autocommit=True) as connection:
            connection.execute(sql)
        after = await raw.get(base(url) + "/readyz")
        alive = await raw.get(base(url) + "/healthz")
    assert before.status_code == 200, before.text  # the server is ready again once a case before put its change back
    assert after.status_code == 503 and after.json()["status"] == "not ready"
    assert reason in after.json()["reason"], after.json()
    assert alive.status_code == 200


async def test_readyz_is_503_when_the_sqlite_schema_version_differs(served_sqlite: str, sqlite_db: Path,
                                                                     sqlite_schema_kept: None) -> None:
    url = served_sqlite
    async with httpx2.AsyncClient(timeout=10) as raw:
        before = await raw.get(base(url) + "/readyz")
        with sqlite3.connect(sqlite_db) as connection:
            connection.execute("""UPDATE "alfred_meta" SET "value" = '999' WHERE "key" = 'schema_version'""")
        after = await raw.get(base(url) + "/readyz")
    assert before.status_code == 200
    assert after.status_code == 503 and "schema version 999" in after.json()["reason"]


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_schema_change_put_back_leaves_the_shared_server_ready(backend: str, request: pytest.FixtureRequest) -> None:
    """After the cases above changed and put back their database, the server they share is ready again, so every case
    began from a database this server accepts."""
    async with httpx2.AsyncClient(timeout=10) as raw:
        answer = await raw.get(base(str(request.getfixturevalue(f"served_{backend}"))) + "/readyz")
    assert (answer.status_code, answer.json()) == (200, READY)


@pytest.fixture
def own_cluster() -> Iterator[tuple[PostgresServer, str]]:
    """A cluster of this test's own (it gets stopped), with one migrated database."""
    with postgres_server() as server:
        yield server, create_database(server, "alfred_health")


async def test_readyz_follows_postgres_stopped_and_restarted_under_a_running_server(own_cluster: tuple[PostgresServer, str]) -> None:
    """PostgreSQL stopped: /readyz 503 with the reason, /healthz 200; started again: ready, and tools work again."""
    server, dsn = own_cluster
    async with http_server(dsn, TOKENS) as url, httpx2.AsyncClient(timeout=20) as raw, http_client(url, TOKEN) as client:
        await call(client, "db_create", table="recipes", data={"name": "Before the outage"})
        assert (await raw.get(base(url) + "/readyz")).status_code == 200
        await anyio.to_thread.run_sync(stop_server, server)
        down = [await raw.get(base(url) + "/readyz") for _ in range(2)]
        alive = await raw.get(base(url) + "/healthz")
        await anyio.to_thread.run_sync(start_server, server)
        back = await _ready_within(raw, base(url), seconds=15)
        made = await call(client, "db_create", table="recipes", data={"name": "After the outage"})
    assert [answer.status_code for answer in down] == [503, 503]
    assert all(answer.json()["reason"] for answer in down)
    assert alive.status_code == 200
    assert back.json() == READY
    assert made["rows"][0]["name"] == "After the outage"


async def _ready_within(raw: httpx2.AsyncClient, url: str, *, seconds: float) -> httpx2.Response:
    with anyio.fail_after(seconds):
        while True:
            answer = await raw.get(url + "/readyz")
            if answer.status_code == 200:
                return answer
            await anyio.sleep(0.2)

