"""The MCP `chat` tool with a real OpenAI-compatible provider against loopback model servers, through the real client."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e.helpers import call, call_error
from mcp import Client, MCPError

from alfred_mcp.agent.llm.openai_compat import OpenAICompatibleLLM
from alfred_mcp.agent.llm.transport import RetryPolicy
from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.agent.ownership import host_digest
from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.server.tools.runner import tool_runner
from alfred_mcp.state.agent_turn import TurnOwner

from .llm.fake_openai import FakeModelServer, Silent, always, by_role
from .test_model_servers import FRIDGE

pytestmark = [pytest.mark.anyio, pytest.mark.both_eras]  # the subject is the protocol: both eras (tests/conftest.py)


def use(app: AlfredApp, server: FakeModelServer, **options: Any) -> None:
    app.llm = OpenAICompatibleLLM("fake", base_url=server.base_url, retry=RetryPolicy(attempts=2, base_delay=0.01), **options)


async def test_chat_reports_progress_per_stage_and_model_call(client: Client, app: AlfredApp) -> None:
    messages: list[tuple[float, str]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        messages.append((done, message or ""))

    with FakeModelServer(by_role({**FRIDGE, "understand": [{}]})) as server:
        use(app, server)
        result = await client.call_tool("chat", {"message": "what is in the fridge?"}, progress_callback=progress)
    assert not result.is_error and result.structured_content["outcome"] == "completed"
    texts = [text for _, text in messages]
    for stage in ("understanding", "planning", "acting step 1/1", "replying", "done: completed (5 model calls"):
        assert any(stage in text for text in texts), f"no progress for {stage}: {texts}"
    assert [done for done, _ in messages] == sorted({done for done, _ in messages}), "progress only goes up"
    assert find_uuid(" ".join(texts)) is None


async def test_a_cancelled_chat_stops_the_model_call_and_ends_the_turn(client: Client, app: AlfredApp) -> None:
    """The client gives up: the model request is closed, the turn ends blocked as interrupted, the next chat works."""
    with FakeModelServer(always(Silent())) as server:
        use(app, server, timeout=30)
        with anyio.move_on_after(10):
            with pytest.raises(MCPError, match="[Tt]imed out|timeout"):  # the client's own timeout, once the turn is
                await client.call_tool("chat", {"message": "plan dinners"}, read_timeout_seconds=2)  # at its model call
        await anyio.sleep(0.3)
        assert server.requests and all(r.ended is not None for r in server.requests), "the model request was closed"
    status = await call(client, "turn_status")
    assert status["state"]["stage"] == "done" and status["state"]["blocked_reason"] == "interrupted: the client cancelled the request"
    assert status["state"]["model_requests"] == len(server.requests) == 1, "the cancelled request is counted"
    with FakeModelServer(by_role(FRIDGE)) as server:
        use(app, server)
        again = await call(client, "chat", message="what are my tasks?")
    assert again["outcome"] == "quick" and again["turn"] == status["state"]["turn"] + 1


async def test_a_turn_left_by_a_dead_headless_run_is_ended_by_the_next_chat(client: Client, app: AlfredApp) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    owner = TurnOwner(driver="headless", pid=int(gone.stdout), host=host_digest(), started=0.0, deadline=4e9)
    async with app.work("setup") as work:
        left = await TurnMachine(work, tool_runner(app, work.session.name)).begin("left behind", owner=owner)
    with FakeModelServer(by_role(FRIDGE)) as server:
        use(app, server)
        result = await call(client, "chat", message="what are my tasks?")
    assert result["outcome"] == "quick" and result["turn"] == left.turn + 1
    ended = (await call(client, "turn_status", turn=left.turn))["state"]
    assert ended["stage"] == "done" and ended["blocked_reason"] == f"interrupted: the alfred-mcp headless (pid {owner.pid}) running it stopped"


async def test_a_stage_driven_turn_is_never_ended_by_chat(client: Client, app: AlfredApp) -> None:
    started = await call(client, "turn_start", message="a client drives this one")
    with FakeModelServer(by_role(FRIDGE)) as server:
        use(app, server)
        refused = await call_error(client, "chat", message="what are my tasks?")
    assert refused["code"] == "out_of_order" and server.requests == []
    assert (await call(client, "turn_status"))["state"]["stage"] == started["stage"] == "understand"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        pytest.param({"ALFRED_MODEL": "gemini:pro"}, "ALFRED_MODEL='gemini:pro' is not a model", id="unknown-provider"),
        pytest.param({"ALFRED_MODEL": "openai-compatible:x@http://127.0.0.1:9/v1", "ALFRED_MODEL_TIMEOUT": "soon"},
                     "ALFRED_MODEL_TIMEOUT='soon' must be a positive number", id="bad-timeout"),
    ],
)
async def test_an_unusable_model_setting_fails_only_chat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: str) -> None:
    """The server starts and every other tool works; chat says what is wrong with the setting."""
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    app = AlfredApp.from_settings(Settings.from_env(db=str(tmp_path / "kitchen.db")))
    await app.open()
    try:
        async with Client(build_server(app)) as client:
            rows = await call(client, "db_read", table="tasks", limit=2)
            refused = await call_error(client, "chat", message="hello")
    finally:
        await app.close()
    assert rows["count"] == 2
    assert refused["code"] == "config_error" and expected in refused["message"]
