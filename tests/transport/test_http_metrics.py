"""/metrics on a real `serve --http` process: its own scrape token, counts that agree with what the clients
were answered (parsed with prometheus_client's own parser), the PostgreSQL pool, the bundled agent's model
calls, and a real Prometheus server scraping it.

The tests that read one metered server on SQLite share it (`shared`, one per module, its tests one xdist group): each
counts what its own calls added (a scrape before them, one after: `added`); a server of another configuration (metrics
off, PostgreSQL, replicas, a refused token) is the test's own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from prometheus_client.parser import text_string_to_metric_families

from alfred_mcp.server.dispatch import ERROR_META

sys.path.insert(0, str(Path(__file__).parents[1]))
from http_harness import free_port, http_client, http_server, running  # noqa: E402

pytestmark = [pytest.mark.anyio, pytest.mark.xdist_group("http_metrics")]
TOKEN = "metrics-user-token-0123456789"
SCRAPE = "metrics-scrape-token-0123456789"
TOKENS = {TOKEN: "alice"}
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("db_read", {"table": "recipes"}),
    ("db_read", {"table": "no_such_table"}),
    ("db_create", {"table": "shopping_list", "data": {"name": "milk"}}),
    ("db_create", {"table": "shopping_list", "data": {"name": ""}}),
    ("db_update", {"table": "recipes", "filters": [{"field": "nope", "op": "eq", "value": 1}], "data": {"name": "x"}}),
    ("recipes_search", {"category": "fish"}),
    ("recipes_search", {"category": "not a category"}),
    ("recipes_import", {"source": "http://127.0.0.1:9/recipe"}),
    ("describe_table", {"table": "recipes"}),
]
"""Calls that succeed and calls refused for different reasons (one fetches a URL the fetch policy refuses)."""


def base(url: str) -> str:
    return url.removesuffix("/mcp")


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition, by (name, sorted labels)."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for family in text_string_to_metric_families(text) for s in family.samples}


async def _answered(client: Client) -> list[tuple[str, str, str | None]]:
    """Run CALLS; (tool, outcome, code) as the client saw each answer."""
    seen = []
    for tool, arguments in CALLS:
        result = await client.call_tool(tool, arguments)
        code = (result.meta or {}).get(ERROR_META, {}).get("code") if result.is_error else None
        seen.append((tool, "ok" if code is None else "internal_error" if code == "internal_error" else "refused", code))
    return seen


@asynccontextmanager
async def metered(db: str, extra_env: dict[str, str] | None = None) -> AsyncIterator[str]:
    async with http_server(db, TOKENS, {"ALFRED_METRICS_TOKEN": SCRAPE, **(extra_env or {})}) as url:
        yield url


async def _scrape(raw: httpx2.AsyncClient, url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = await raw.get(base(url) + "/metrics", headers={"Authorization": f"Bearer {SCRAPE}"})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    return samples(answer.text)


async def test_metrics_count_every_call_as_its_client_was_answered(shared: str) -> None:
    """Calls per tool and outcome, one duration observation per call, errors by code, import fetches: all equal the answers."""
    url = shared
    async with http_client(url, TOKEN) as client, httpx2.AsyncClient(timeout=10) as raw:
        before = await _scrape(raw, url)
        seen = await _answered(client)
        found = added(await _scrape(raw, url), before)
    assert {outcome for _, outcome, _ in seen} >= {"ok", "refused"}
    for (tool, outcome), count in Counter((tool, outcome) for tool, outcome, _ in seen).items():
        assert found[("alfred_tool_calls_total", (("outcome", outcome), ("tool", tool)))] == count, (tool, outcome)
    for tool, count in Counter(tool for tool, _, _ in seen).items():
        assert found[("alfred_tool_call_duration_seconds_count", (("tool", tool),))] == count
        assert found[("alfred_tool_call_duration_seconds_bucket", (("le", "+Inf"), ("tool", tool)))] == count
    for code, count in Counter(code for _, _, code in seen if code).items():
        assert found[("alfred_tool_errors_total", (("code", code),))] == count
    fetch = next(code or "ok" for tool, _, code in seen if tool == "recipes_import")
    assert found[("alfred_import_fetches_total", (("outcome", fetch),))] == 1
    assert sum(value for (name, _), value in found.items() if name == "alfred_tool_calls_total") == len(CALLS)


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def added(after: Samples, before: Samples) -> Samples:
    """Every sample of `after` less its value in `before`: what happened between the two scrapes."""
    return {key: value - before.get(key, 0.0) for key, value in after.items()}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    """One metered server on SQLite for the module's tests, with the packaged scripted model for the chat tool."""
    async with metered(str(tmp_path_factory.mktemp("metrics") / "k.db"), {"ALFRED_MODEL": "scripted:demo"}) as url:
        yield url


SCRAPES_REFUSED = [
    ("no token", {}, 401),
    ("a user's token", {"Authorization": f"Bearer {TOKEN}"}, 401),
    ("not a bearer token", {"Authorization": f"Basic {SCRAPE}"}, 401),
]


async def test_metrics_need_the_scrape_token_and_are_off_without_one(shared: str, tmp_path: Path) -> None:
    url = shared
    async with httpx2.AsyncClient(timeout=10) as raw:
        refused = {case: (await raw.get(base(url) + "/metrics", headers=headers)).status_code for case, headers, _ in SCRAPES_REFUSED}
        posted = await raw.post(base(url) + "/metrics", headers={"Authorization": f"Bearer {SCRAPE}"})
    async with http_server(str(tmp_path / "k2.db"), TOKENS) as url, httpx2.AsyncClient(timeout=10) as raw:
        off = await raw.get(base(url) + "/metrics", headers={"Authorization": f"Bearer {SCRAPE}"})
    assert refused == {case: status for case, _, status in SCRAPES_REFUSED}
    assert posted.status_code == 405
    assert off.status_code == 404


async def test_a_short_scrape_token_stops_the_server_before_it_serves(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("ALFRED_")}
    env.update({"ALFRED_TOKENS": f"{TOKEN}=alice", "ALFRED_METRICS_TOKEN": "short"})
    done = subprocess.run([sys.executable, "-m", "alfred_mcp", "--db", str(tmp_path / "k.db"), "serve", "--http", f"127.0.0.1:{free_port()}"],
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode != 0 and "ALFRED_METRICS_TOKEN must have at least 16 characters" in done.stderr


async def test_metrics_show_the_postgres_pool(pg_url: str) -> None:
    async with metered(pg_url) as url, http_client(url, TOKEN) as client, httpx2.AsyncClient(timeout=10) as raw:
        await client.call_tool("db_read", {"table": "recipes"})
        found = await _scrape(raw, url)
    pool = {dict(labels)["state"]: value for (name, labels), value in found.items() if name == "alfred_db_pool_connections"}
    assert set(pool) == {"size", "idle", "waiting", "max"}
    assert 1 <= pool["size"] <= pool["max"] and pool["idle"] <= pool["size"] and pool["waiting"] >= 0


async def test_metrics_count_the_bundled_agents_model_calls(shared: str) -> None:
    """The chat tool's turn with the packaged scripted model: its role calls and requests are counted."""
    url = shared
    async with http_client(url, TOKEN) as client, httpx2.AsyncClient(timeout=10) as raw:
        before = await _scrape(raw, url)
        result = await client.call_tool("chat", {"message": "what are my tasks?"})
        found = added(await _scrape(raw, url), before)
    assert not result.is_error, result.content
    calls = {dict(labels)["role"]: value for (name, labels), value in found.items()
             if name == "alfred_model_calls_total" and dict(labels)["outcome"] == "ok"}
    assert calls.get("understand", 0) >= 1 and set(calls) <= {"understand", "think", "act", "reply", "summarize"}
    assert found[("alfred_model_requests_total", ())] == sum(calls.values())


async def test_a_real_prometheus_scrapes_the_server(shared: str, tmp_path: Path) -> None:
    """Debian's prometheus, scraping every second with the token, stores the calls the server counted."""
    binary = shutil.which("prometheus")
    if binary is None:
        if os.environ.get("CI") == "true":
            pytest.fail("prometheus is required under CI=true (apt-get install prometheus)", pytrace=False)
        pytest.skip("prometheus is not installed (apt-get install prometheus; under CI=true this fails instead)")
    url = shared
    async with http_client(url, TOKEN) as client, httpx2.AsyncClient(timeout=10) as raw:
        counted = _calls_counted(await _scrape(raw, url))  # by the module's tests before this one
        seen = await _answered(client)
        async with prometheus(binary, url.removeprefix("http://").removesuffix("/mcp"), tmp_path) as api:
            stored = await _stored_calls(raw, api, want=sum(counted.values()) + len(seen))
    assert stored == counted + Counter((tool, outcome) for tool, outcome, _ in seen)


def _calls_counted(found: Samples) -> Counter[tuple[str, str]]:
    """alfred_tool_calls_total of a scrape, by (tool, outcome)."""
    return Counter({(dict(labels)["tool"], dict(labels)["outcome"]): int(value) for (name, labels), value in found.items()
                    if name == "alfred_tool_calls_total"})


@asynccontextmanager
async def prometheus(binary: str, target: str, folder: Path) -> AsyncIterator[str]:
    port = free_port()
    config = folder / "prometheus.yml"
    config.write_text(
        "global: {scrape_interval: 1s, scrape_timeout: 1s}\n"
        "scrape_configs:\n"
        "  - job_name: alfred\n"
        f"    authorization: {{type: Bearer, credentials: {SCRAPE}}}\n"
        f"    static_configs: [{{targets: ['{target}']}}]\n"
    )
    command = [binary, f"--config.file={config}", f"--storage.tsdb.path={folder / 'tsdb'}", f"--web.listen-address=127.0.0.1:{port}"]
    async with running(command):
        yield f"http://127.0.0.1:{port}"


async def _stored_calls(raw: httpx2.AsyncClient, api: str, *, want: int) -> Counter[tuple[str, str]]:
    """alfred_tool_calls_total as Prometheus stored it, once it holds `want` calls (within 30 s)."""
    with anyio.fail_after(30):
        while True:
            try:
                answer = (await raw.get(f"{api}/api/v1/query", params={"query": "alfred_tool_calls_total"})).json()
            except (httpx2.TransportError, ValueError):  # not up yet: refused, or a plain-text "not ready" answer
                answer = {}
            rows = answer.get("data", {}).get("result", [])
            stored = Counter({(row["metric"]["tool"], row["metric"]["outcome"]): int(float(row["value"][1])) for row in rows})
            if sum(stored.values()) >= want:
                return stored
            await anyio.sleep(0.5)


async def test_session_conflicts_are_counted_as_retried_and_given_up_across_replicas(pg_url: str) -> None:
    """Simultaneous writes to one session from two replicas: every call answered with session_conflict is one given up,
    after CONFLICT_ATTEMPTS - 1 retries of its own; the replicas' counts add up to what the clients were answered."""
    from alfred_mcp.server.dispatch import CONFLICT_ATTEMPTS

    answered: list[str | None] = []
    async with metered(pg_url) as url_a, metered(pg_url) as url_b, httpx2.AsyncClient(timeout=10) as raw:
        async with http_client(url_a, TOKEN) as a, http_client(url_b, TOKEN) as b:
            await a.call_tool("db_read", {"table": "shopping_list"})

            async def write(client: Client, i: int) -> None:
                result = await client.call_tool("db_create", {"table": "shopping_list", "data": {"name": f"n{i}"}})
                answered.append((result.meta or {}).get(ERROR_META, {}).get("code") if result.is_error else None)

            with anyio.fail_after(90):
                async with anyio.create_task_group() as group:
                    for i in range(16):
                        group.start_soon(write, a if i % 2 else b, i)
        scraped = [await _scrape(raw, url) for url in (url_a, url_b)]

    def total(name: str, **labels: str) -> float:
        return sum(value for found in scraped for (metric, pairs), value in found.items()
                   if metric == name and labels.items() <= dict(pairs).items())

    gave_up = answered.count("session_conflict")
    assert set(answered) <= {None, "session_conflict"}
    assert total("alfred_session_conflicts_total", result="gave_up") == gave_up
    assert total("alfred_tool_errors_total", code="session_conflict") == gave_up
    assert total("alfred_session_conflicts_total", result="retried") >= gave_up * (CONFLICT_ATTEMPTS - 1)
    assert total("alfred_tool_calls_total", tool="db_create") == 16
