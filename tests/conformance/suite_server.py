"""The real HTTP app for the MCP conformance suite, which sends no Authorization header.

Test-only and loopback-only: it serves `server.http.http_app` (exactly what `alfred-mcp serve
--http` serves) on 127.0.0.1, and gives every request that carries no Authorization header the
one test token. No code path of the product skips authentication: a real deployment still
refuses any request without a valid token.

usage: python tests/conformance/suite_server.py --db PATH --port PORT
"""

from __future__ import annotations

import argparse
import logging
import sys

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.server.http import http_app

LOOPBACK = "127.0.0.1"
TOKEN = "conformance-suite-token-0123456789"


class InjectBearer:
    """Adds `Authorization: Bearer <token>` to requests that have no Authorization header."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.header = app, (b"authorization", f"Bearer {token}".encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not any(key == b"authorization" for key, _ in scope["headers"]):
            scope = {**scope, "headers": [*scope["headers"], self.header]}
        await self.app(scope, receive, send)


def main() -> None:
    parser = argparse.ArgumentParser(description="alfred-mcp over HTTP for the conformance suite (loopback only)")
    parser.add_argument("--db", required=True)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    app = AlfredApp.from_settings(Settings(db=args.db, seed_demo=False))
    asgi = InjectBearer(http_app(app, LOOPBACK, args.port, {TOKEN: "conformance"}), TOKEN)
    uvicorn.run(asgi, host=LOOPBACK, port=args.port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
