"""The stdio transport: every line that is not a JSON-RPC message is answered; Ctrl-C and SIGTERM end the server.

Unit tests pin how a bad line is classified; the rest drive a real `alfred-mcp serve` process over
raw pipes, as a client that waits for its request's id would.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream
from mcp.types import INVALID_REQUEST, PARSE_ERROR, JSONRPCError

from alfred_mcp.server.stdio import MAX_DEPTH, MAX_LINE, parse_line, scan_envelope

REPO = Path(__file__).resolve().parents[2]
STARTUP = 30.0
"""Seconds a fresh server may take to start and answer its first message (a busy machine runs two test workers)."""
LEGACY_INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def nested(depth: int) -> str:
    """A tools/call with id 7 whose arguments nest `depth` lists deep (the envelope adds 3 levels)."""
    return '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"db_read","arguments":{"deep":' + \
        "[" * depth + "]" * depth + "}}}"


@pytest.mark.parametrize(
    ("line", "code", "request_id", "words"),
    [
        pytest.param(nested(MAX_DEPTH), INVALID_REQUEST, 7, f"nested {MAX_DEPTH + 3} levels deep; at most {MAX_DEPTH}", id="too-deep"),
        pytest.param(nested(5000), INVALID_REQUEST, 7, "nested 5003 levels deep", id="far-too-deep"),
        pytest.param('{"jsonrpc":"2.0","id":"a-1","method":"tools/li', PARSE_ERROR, "a-1", "Parse error: EOF while parsing", id="truncated"),
        pytest.param("hello there", PARSE_ERROR, None, "Parse error: expected value", id="not-json"),
        pytest.param('[{"jsonrpc":"2.0","id":1,"method":"ping"}]', INVALID_REQUEST, None, "batches are not supported", id="batch"),
        pytest.param('{"jsonrpc":"2.0","id":3,"method":7}', INVALID_REQUEST, 3, "not a JSON-RPC 2.0 request", id="bad-method"),
        pytest.param('{"id":{"x":1},"nested":{"id":9},"jsonrpc":"1.0","method":"x"}', INVALID_REQUEST, None, "not a JSON-RPC", id="no-top-id"),
    ],
)
def test_a_line_that_is_not_a_message_gets_an_error_with_its_id(line: str, code: int, request_id: Any, words: str) -> None:
    answer = parse_line(line.encode())
    assert isinstance(answer, JSONRPCError)
    assert (answer.error.code, answer.id) == (code, request_id)
    assert words in answer.error.message and len(answer.error.message) < 300


@pytest.mark.parametrize(
    "line",
    [
        pytest.param('{"jsonrpc":"2.0","method":"notifications/progress","params":7}', id="bad-notification"),
        pytest.param('{"jsonrpc":"2.0","id":4,"result":7}', id="bad-response"),
        pytest.param("   ", id="blank"),
    ],
)
def test_a_bad_notification_response_or_blank_line_is_not_answered(line: str) -> None:
    """JSON-RPC never answers a notification or a response; a blank line is nothing."""
    assert parse_line(line.encode()) is None


def test_the_envelope_scan_finds_only_the_top_level_id_and_survives_any_text() -> None:
    found = scan_envelope('{"params":{"id":99,"s":"}{\\"id\\":5"},"id" : "req-1","method":"x"')
    assert (found.request_id, found.keys, found.depth) == ("req-1", {"params", "id", "method"}, 2)
    assert scan_envelope('"just a string"').request_id is None and scan_envelope("").depth == 0


class RawServer:
    """A real `alfred-mcp serve` on raw pipes: send lines, read answers by id."""

    def __init__(self, process: Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process, self.stdin, self.stdout = process, process.stdin, BufferedByteReceiveStream(process.stdout)

    async def send(self, line: str | bytes) -> None:
        await self.stdin.send((line.encode() if isinstance(line, str) else line) + b"\n")

    async def answer(self, *, within: float = 10) -> dict[str, Any]:
        """The next message with an id, within `within` seconds (the first one also waits for the server to start)."""
        with anyio.fail_after(within):
            while True:
                message = json.loads(await self.stdout.receive_until(b"\n", MAX_LINE))
                if "id" in message:
                    return dict(message)


@asynccontextmanager
async def raw_server(tmp_path: Path) -> AsyncIterator[RawServer]:
    env = {"PYTHONPATH": str(REPO), "PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path)}
    command = [sys.executable, "-m", "alfred_mcp", "--db", str(tmp_path / "k.db"), "serve"]
    process = await anyio.open_process(command, env=env, stderr=subprocess.DEVNULL)
    try:
        yield RawServer(process)
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


@pytest.mark.anyio
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_bad_lines_over_stdio_are_answered_and_the_server_keeps_serving(tmp_path: Path, era: str) -> None:
    """Deep, truncated, oversized and batch lines each get their error (with the id when it can be read), in time."""
    async with raw_server(tmp_path) as server:
        meta: dict[str, Any] = {}
        if era == "legacy":
            await server.send(json.dumps(LEGACY_INIT))
            assert (await server.answer(within=STARTUP))["result"]["protocolVersion"] == "2025-11-25"
            await server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        else:
            meta = {"_meta": MODERN_META}
            await server.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": meta}))
            assert "2026-07-28" in (await server.answer(within=STARTUP))["result"]["supportedVersions"]
        await server.send(nested(250))
        assert (await server.answer())["error"]["code"] == INVALID_REQUEST
        await server.send('{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{')
        assert (await server.answer())["error"] == {"code": PARSE_ERROR, "message": "Parse error: EOF while parsing an object at line 1 column 56."}
        await server.send(b'{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"pad":"' + b"x" * MAX_LINE + b'"}}')
        assert (await server.answer())["id"] == 9
        await server.send(json.dumps({"jsonrpc": "2.0", "id": 10, "method": "tools/list", "params": meta}))
        answer = await server.answer()
        assert answer["id"] == 10 and len(answer["result"]["tools"]) > 20


@pytest.mark.anyio
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["ctrl-c", "sigterm"])
async def test_ctrl_c_or_sigterm_ends_serve_on_stdio_at_once(tmp_path: Path, signum: int, code: int) -> None:
    """The server stops within seconds with 130 (Ctrl-C) or 143 (SIGTERM), while stdin stays open."""
    async with raw_server(tmp_path) as server:
        await server.send(json.dumps(LEGACY_INIT))
        await server.answer(within=STARTUP)
        server.process.send_signal(signum)
        with anyio.fail_after(5):
            assert await server.process.wait() == code
