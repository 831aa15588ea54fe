"""Serve an ASGI app with a real uvicorn on 127.0.0.1 inside the test's event loop (so the test can look inside)."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial

import anyio
import uvicorn
from starlette.types import ASGIApp


@asynccontextmanager
async def serving(build: Callable[[int], ASGIApp]) -> AsyncIterator[str]:
    """`build(port)` served on a free loopback port until the block ends; yields http://127.0.0.1:PORT."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(build(port), lifespan="on", log_level="warning"))
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(partial(server.serve, sockets=[sock]))
        with anyio.fail_after(10):
            while not server.started:
                await anyio.sleep(0.01)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True
    sock.close()
