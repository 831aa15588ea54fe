"""MCP over real streamable HTTP on 127.0.0.1: bearer tokens, user isolation, two replicas on one database.

The module's tests share one pair of server processes on one database (starting a server costs seconds of CPU);
each test acts as its own users, so none sees another's rows, sessions or events."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import MCPError
from mcp.shared.subscriptions import ResourceUpdated

from alfred_mcp.server.dispatch import ERROR_META

sys.path.insert(0, str(Path(__file__).parents[1]))
from e2e.helpers import call, call_error, eq  # noqa: E402
from http_harness import http_client, http_server  # noqa: E402

pytestmark = [pytest.mark.anyio, pytest.mark.xdist_group("http_replicas")]
ALICE, BOB = "alice-token-0123456789", "bob-token-0123456789ab"
CAROL, DAN = "carol-token-0123456789", "dan-token-0123456789ab"
ERIN, FRANK = "erin-token-0123456789a", "frank-token-0123456789"
TOKENS = {ALICE: "alice", BOB: "bob", CAROL: "carol", DAN: "dan", ERIN: "erin", FRANK: "frank"}
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def replicas(postgres_db: str) -> AsyncIterator[tuple[str, str]]:
    """Two `serve --http` processes on one database: their /mcp URLs."""
    async with http_server(postgres_db, TOKENS) as url_a, http_server(postgres_db, TOKENS) as url_b:
        yield url_a, url_b


REFUSED = [
    ("no token", {}, 401),
    ("unknown token", {"Authorization": "Bearer not-a-known-token-at-all"}, 401),
    ("not a bearer token", {"Authorization": f"Basic {ALICE}"}, 401),
    ("foreign Host (DNS rebinding)", {"Authorization": f"Bearer {ALICE}", "Host": "evil.example:8765"}, 421),
    ("foreign Origin", {"Authorization": f"Bearer {ALICE}", "Origin": "http://evil.example"}, 403),
]


async def test_requests_without_a_valid_token_or_host_are_refused(replicas: tuple[str, str]) -> None:
    """No token, an unknown token, a foreign Host or Origin: refused before any tool runs (one server for all)."""
    url = replicas[0]
    async with httpx2.AsyncClient(timeout=10) as raw:
        statuses = {case: (await raw.post(url, json=INITIALIZE, headers={**ACCEPT, **headers})).status_code for case, headers, _ in REFUSED}
        accepted = (await raw.post(url, json=INITIALIZE, headers={**ACCEPT, "Authorization": f"Bearer {ALICE}"})).status_code
    assert statuses == {case: status for case, _, status in REFUSED}
    assert accepted == 200


async def test_user_b_cannot_read_change_or_reference_user_a_rows(replicas: tuple[str, str]) -> None:
    """Bob sees none of Alice's rows and cannot reach them by ref, filter or FK; Alice's rows survive."""
    url = replicas[0]
    async with http_client(url, ALICE) as alice, http_client(url, BOB) as bob:
        made = await call(alice, "db_create", table="recipes", data={"name": "Alice's secret stew"})
        ref = made["rows"][0]["id"]
        assert (await call(bob, "db_read", table="recipes"))["count"] == 0
        assert (await call(bob, "db_read", table="recipes", filters=[eq("name", "Alice's secret stew")]))["count"] == 0
        attempts: list[tuple[str, dict[str, Any]]] = [
            ("db_read", {"table": "recipes", "filters": [eq("id", ref)]}),
            ("db_update", {"table": "recipes", "filters": [eq("id", ref)], "data": {"name": "mine now"}}),
            ("db_delete", {"table": "recipes", "filters": [eq("id", ref)]}),
            ("db_create", {"table": "meal_plans", "data": {"date": "2026-01-20", "meal_type": "dinner", "recipe_id": ref}}),
        ]
        for tool, arguments in attempts:
            assert (await call_error(bob, tool, **arguments))["code"] == "unknown_ref", tool
        assert (await call(bob, "db_update", table="recipes", all=True, data={"name": "mine now"}))["count"] == 0
        assert (await call(bob, "db_delete", table="recipes", all=True))["count"] == 0
        kept = await call(alice, "db_read", table="recipes", filters=[eq("id", ref)])
        alice_sees = (await alice.read_resource(f"alfred://session/current/ref/{ref}")).contents[0].text
        with pytest.raises(MCPError) as refused:
            await bob.read_resource(f"alfred://session/current/ref/{ref}")
        bob_dashboard = (await bob.read_resource("alfred://kitchen/dashboard")).contents[0].text
    assert [row["name"] for row in kept["rows"]] == ["Alice's secret stew"]
    assert "secret stew" in alice_sees and f"Unknown ref '{ref}'" in refused.value.error.message
    assert "secret stew" not in bob_dashboard


async def test_a_listening_user_hears_only_of_changes_to_their_own_kitchen(replicas: tuple[str, str]) -> None:
    """2026-07-28 listen streams are per user: Bob's write is not announced to Alice, though the URIs read the same.
    (Here Erin listens and Frank writes.)"""
    working, dashboard = "alfred://session/current/working-set", "alfred://kitchen/dashboard"
    url = replicas[0]
    async with (
        http_client(url, ERIN) as alice, http_client(url, FRANK) as bob,
        alice.listen(resource_subscriptions=[working, dashboard]) as heard,
    ):
        await call(bob, "db_create", table="tasks", data={"title": "Bob's errand"})  # Bob's dashboard, then working set
        await call(alice, "db_read", table="tasks", limit=1)  # Alice's working set
        await call(alice, "db_create", table="tasks", data={"title": "Alice's errand"})  # Alice's dashboard, working set
        seen: list[str] = []
        with anyio.fail_after(10):
            async for event in heard:
                assert isinstance(event, ResourceUpdated)
                seen.append(event.uri)
                if event.uri == dashboard:
                    break
    assert seen == [working, dashboard], "the first event Alice hears is her own read, not Bob's write"


async def test_two_replicas_serve_alternate_calls_of_one_session(replicas: tuple[str, str]) -> None:
    """Calls alternating between two server processes continue one session: refs continue, none repeats."""
    url_a, url_b = replicas
    async with http_client(url_a, CAROL) as a, http_client(url_b, CAROL) as b:
        refs = []
        for i, client in enumerate([a, b, a, b, b, a]):
            made = await call(client, "db_create", table="shopping_list", data={"name": f"item {i}"})
            refs.append(made["rows"][0]["id"])
            assert made["session"] == "session_1"
        read = await call(b, "db_read", table="shopping_list", limit=50)
        first = refs[0]
        named = await call(a, "db_update", table="shopping_list", filters=[eq("id", first)], data={"name": "renamed"})
    assert refs == [f"shop_{n}" for n in range(1, 7)]
    assert sorted(row["id"] for row in read["rows"]) == sorted(refs)
    assert named["count"] == 1


async def test_concurrent_calls_on_one_session_across_replicas_are_serialized_or_refused(replicas: tuple[str, str]) -> None:
    """Simultaneous writes to one session from two replicas either succeed with unique refs or fail as a conflict."""
    outcomes: list[dict[str, Any]] = []
    url_a, url_b = replicas
    async with http_client(url_a, DAN) as a, http_client(url_b, DAN) as b:
        await call(a, "db_read", table="shopping_list")

        async def write(client: Any, i: int) -> None:
            result = await client.call_tool("db_create", {"table": "shopping_list", "data": {"name": f"n{i}"}})
            outcomes.append({"error": (result.meta or {})[ERROR_META]} if result.is_error else result.structured_content)

        with anyio.fail_after(60):
            async with anyio.create_task_group() as group:
                for i in range(16):
                    group.start_soon(write, a if i % 2 else b, i)
        final = await call(a, "db_read", table="shopping_list", limit=100)
    made = [o["rows"][0]["id"] for o in outcomes if "rows" in o]
    refused = [o["error"] for o in outcomes if "error" in o]
    assert all(error["code"] == "session_conflict" and "Retry" in error["message"] for error in refused)
    assert made and len(made) == len(set(made))
    assert sorted(row["id"] for row in final["rows"]) == sorted(made)
    assert sorted(row["name"] for row in final["rows"]) == sorted(o["rows"][0]["name"] for o in outcomes if "rows" in o)
