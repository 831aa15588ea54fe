"""MCP over stdin/stdout: one JSON-RPC message per line, every bad line answered, signals honoured.

This replaces the SDK's stdio transport for two reasons:

- a line that is not a JSON-RPC message (truncated, not JSON, a batch, nested deeper than the
  parser allows, longer than the size limit) gets a JSON-RPC error (-32700 or -32600) carrying the
  request's id when one can be found, instead of being dropped while the client waits for its
  own timeout;
- stdin is read on the event loop (no blocked worker thread), so Ctrl-C and SIGTERM end the server
  at once instead of after the client closes stdin.

As in the SDK, fds 0 and 1 are moved aside while serving (to /dev/null and stderr): a stray print
or a child process never writes onto the wire.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError, jsonrpc_message_adapter
from pydantic import ValidationError

logger = logging.getLogger(__name__)

MAX_LINE = DEFAULT_MAX_REQUEST_BODY_SIZE
"""The longest line read (4 MiB, the HTTP transport's body limit); a longer one is refused."""
MAX_DEPTH = 200
"""How deeply the SDK's JSON parser (pydantic-core) lets a message nest, the envelope included."""
CHUNK = 65536
HEAD = 65536
"""How much of an oversized line is scanned for its request id."""
PIPE_BUF = 4096
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')

Incoming = SessionMessage | Exception


@dataclass
class Envelope:
    """What a lenient scan of one line found, even when the line does not parse."""

    request_id: int | str | None = None
    keys: set[str] = field(default_factory=set)
    depth: int = 0
    is_object: bool = False


def scan_envelope(text: str) -> Envelope:
    """The top-level id and keys and the deepest nesting of a JSON text, read token by token (never recursively)."""
    found = Envelope()
    depth, expecting_value, key = 0, False, None
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "{[":
            if depth == 0:
                found.is_object = token == "{"
            depth += 1
            found.depth = max(found.depth, depth)
            expecting_value = False
        elif token in "}]":
            depth -= 1
        elif token == ":":
            expecting_value = depth == 1 and key is not None
            continue
        elif depth == 1 and found.is_object:
            if expecting_value and key == "id":
                found.request_id = _id_value(token)
            elif not expecting_value and token.startswith('"'):
                key = _string(token)
                if key is not None:
                    found.keys.add(key)
                continue
        key, expecting_value = None, False
    return found


def _string(token: str) -> str | None:
    try:
        value = json.loads(token)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _id_value(token: str) -> int | str | None:
    if token.startswith('"'):
        return _string(token)
    return int(token) if re.fullmatch(r"-?\d{1,18}", token) else None


def rejection(text: str, error: Exception | None) -> JSONRPCError | None:
    """The JSON-RPC error answering a line that is not a valid message (None: a notification or response, unanswered)."""
    envelope = scan_envelope(text)
    if error is None:
        message, code = f"Request too large: a message may have at most {MAX_LINE} bytes.", INVALID_REQUEST
    elif envelope.depth > MAX_DEPTH:
        message, code = f"Request nested {envelope.depth} levels deep; at most {MAX_DEPTH} are accepted.", INVALID_REQUEST
    elif _is_parse_error(error):
        return _error(envelope.request_id, PARSE_ERROR, _parse_message(error))
    elif not envelope.is_object:
        message, code = "Invalid request: send one JSON-RPC 2.0 object per line (batches are not supported).", INVALID_REQUEST
    elif "id" not in envelope.keys or envelope.keys & {"result", "error"}:
        logger.warning("dropped an invalid notification or response from the client: %s", _first_error(error))
        return None
    else:
        message, code = f"Invalid request: not a JSON-RPC 2.0 request ({_first_error(error)}).", INVALID_REQUEST
    return _error(envelope.request_id, code, message)


def _is_parse_error(error: Exception) -> bool:
    return isinstance(error, ValidationError) and any(e["type"] == "json_invalid" for e in error.errors())


def _parse_message(error: Exception) -> str:
    assert isinstance(error, ValidationError)
    detail = next(e for e in error.errors() if e["type"] == "json_invalid").get("ctx", {}).get("error", "invalid JSON")
    return f"Parse error: {detail}."


def _first_error(error: Exception) -> str:
    if isinstance(error, ValidationError) and error.errors():
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or "message"
        return f"{where}: {first['msg']}"
    return str(error)[:200]


def _error(request_id: int | str | None, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))


def parse_line(line: bytes) -> SessionMessage | JSONRPCError | None:
    """A line as the message it holds, or the error answering it (None: blank, or nothing to answer)."""
    text = line.decode("utf-8", errors="replace")
    if not text.strip():
        return None
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValidationError as error:
        return rejection(text, error)


async def read_lines(fd: int) -> AsyncIterator[tuple[bytes, bool]]:
    """(line, True) for each line of `fd` (without its newline); (its first HEAD bytes, False) for a line over MAX_LINE."""
    buffer = bytearray()
    searched, skipping = 0, False
    async for chunk in _read_chunks(fd):
        buffer += chunk
        while (end := buffer.find(b"\n", searched)) >= 0:
            line, searched = bytes(buffer[:end]), 0
            del buffer[: end + 1]
            if skipping:
                skipping = False
            else:
                yield line, True
        searched = len(buffer)
        if len(buffer) > MAX_LINE and not skipping:
            yield bytes(buffer[:HEAD]), False
            skipping = True
        if skipping:
            buffer.clear()
            searched = 0
    if buffer and not skipping:
        yield bytes(buffer), True


async def _read_chunks(fd: int) -> AsyncIterator[bytes]:
    pollable = True
    while True:
        if pollable:
            try:
                await anyio.wait_readable(fd)
            except OSError:  # a regular file or /dev/null: never blocks, cannot be polled
                pollable = False
        chunk = os.read(fd, CHUNK)
        if not chunk:
            return
        yield chunk


async def write_all(fd: int, data: bytes) -> None:
    """Write without blocking the event loop: at most PIPE_BUF bytes each time the fd is writable."""
    pollable = True
    view = memoryview(data)
    while view:
        if pollable:
            try:
                await anyio.wait_writable(fd)
            except OSError:
                pollable = False
        written = os.write(fd, view[:PIPE_BUF] if pollable else view)
        view = view[written:]


async def _pump_in(fd: int, inbound: MemoryObjectSendStream[Incoming], outbound: MemoryObjectSendStream[SessionMessage]) -> None:
    async with inbound, outbound:
        async for line, complete in read_lines(fd):
            parsed = parse_line(line) if complete else rejection(line.decode("utf-8", errors="replace"), None)
            if isinstance(parsed, SessionMessage):
                await inbound.send(parsed)
            elif parsed is not None:
                await outbound.send(SessionMessage(parsed))


async def _pump_out(fd: int, outbound: MemoryObjectReceiveStream[SessionMessage]) -> None:
    async with outbound:
        async for message in outbound:
            await write_all(fd, (message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode())


@asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[MemoryObjectReceiveStream[Incoming], MemoryObjectSendStream[SessionMessage]]]:
    """The server's read and write streams over this process's stdin and stdout.

    When the block ends, reading stops and what the server already wrote is flushed.
    """
    wire_in, wire_out, restore = _claim_std_fds()
    try:
        inbound_send, inbound = anyio.create_memory_object_stream[Incoming](0)
        outbound, outbound_receive = anyio.create_memory_object_stream[SessionMessage](0)
        reading = anyio.CancelScope()
        answers = outbound.clone()

        async def read() -> None:
            with reading:
                await _pump_in(wire_in, inbound_send, answers)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read)
            tasks.start_soon(_pump_out, wire_out, outbound_receive)
            async with outbound:
                yield inbound, outbound
            reading.cancel()
    finally:
        restore()


def _claim_std_fds() -> tuple[int, int, Callable[[], None]]:
    """Private copies of fds 0 and 1 for the wire; fd 0 then reads /dev/null and fd 1 writes to stderr."""
    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)

    def restore() -> None:
        sys.stdout.flush()
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_in)
        os.close(wire_out)

    return wire_in, wire_out, restore


async def serve_until_signal(serve: Callable[[], Any]) -> int:
    """Run `serve()` until it returns (0) or SIGINT/SIGTERM arrives (128 + the signal: 130, 143)."""
    ended_by = 0
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with anyio.create_task_group() as tasks:

            async def run() -> None:
                await serve()
                tasks.cancel_scope.cancel()

            tasks.start_soon(run)
            async for signum in signals:
                ended_by = 128 + int(signum)
                tasks.cancel_scope.cancel()
                break
    return ended_by
