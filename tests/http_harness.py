"""Real alfred-mcp server processes on streamable HTTP (127.0.0.1, free ports) and clients for them."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, nullcontext
from typing import BinaryIO

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from ports import free_port

START_TIMEOUT = 30.0


@asynccontextmanager
async def http_server(
    db: str, tokens: Mapping[str, str], extra_env: Mapping[str, str] | None = None, *, pids: list[int] | None = None,
    log: BinaryIO | None = None,
) -> AsyncIterator[str]:
    """`alfred-mcp serve --http` on a free port over `db`, until the block ends; yields its /mcp URL.

    `pids`, when given, gets the server process's id (benchmarks read its CPU time); `log`, when given,
    gets its output (stdout and stderr).
    """
    port = free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("ALFRED_")}
    env.update(extra_env or {})
    env["ALFRED_TOKENS"] = ",".join(f"{token}={user}" for token, user in tokens.items())
    command = [sys.executable, "-m", "alfred_mcp", "--db", db, "--no-seed", "serve", "--http", f"127.0.0.1:{port}"]
    async with running(command, env, log=log) as process:
        await wait_for_port(port, process)
        if pids is not None:
            pids.append(process.pid)
        yield f"http://127.0.0.1:{port}/mcp"


@asynccontextmanager
async def running(
    command: list[str], env: Mapping[str, str] | None = None, *, log: BinaryIO | None = None
) -> AsyncIterator[anyio.abc.Process]:
    """`command` as a process until the block ends (terminated, then killed after 10 s); its output goes to
    `log` (a temporary file when not given) and is written to stderr when the block fails."""
    with tempfile.TemporaryFile() if log is None else nullcontext(log) as log:
        process = await anyio.open_process(command, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        try:
            yield process
        except BaseException:
            log.seek(0)
            sys.stderr.write(log.read().decode(errors="replace")[-4000:])
            raise
        finally:
            with anyio.CancelScope(shield=True):
                process.terminate()
                with anyio.move_on_after(10):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()


async def wait_for_port(port: int, process: anyio.abc.Process) -> None:
    with anyio.fail_after(START_TIMEOUT):
        while True:
            if process.returncode is not None:
                raise RuntimeError(f"the server exited with {process.returncode}")
            try:
                stream = await anyio.connect_tcp("127.0.0.1", port)
            except OSError:
                await anyio.sleep(0.05)
                continue
            await stream.aclose()
            return


def http_client(url: str, token: str | None) -> Client:
    """An MCP client for `url` sending `token` as its bearer token (None: no Authorization header)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=30)))
