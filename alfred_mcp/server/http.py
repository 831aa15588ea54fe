"""Streamable HTTP: the MCP server as an ASGI app behind bearer tokens, run by uvicorn."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import ConfigError
from alfred_mcp.server.mcp_server import build_server

logger = logging.getLogger(__name__)
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
ALLOWED_HOSTS_ENV = "ALFRED_ALLOWED_HOSTS"
MCP_PATH = "/mcp"


def parse_address(text: str) -> tuple[str, int]:
    """'127.0.0.1:8765' → ('127.0.0.1', 8765).

    Raises:
        ConfigError: not HOST:PORT with a port in 1..65535.
    """
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"--http takes HOST:PORT, e.g. 127.0.0.1:8765 (got {text!r}).", field="http", value=text)
    return host, int(port)


def transport_security(host: str, extra_hosts: str | None = None) -> TransportSecuritySettings:
    """DNS-rebinding protection: Host/Origin must name this host (all loopback names when it is
    loopback) or one of `extra_hosts` (comma-separated; env ALFRED_ALLOWED_HOSTS), e.g. the
    public name of a server bound to 0.0.0.0."""
    hosts = list(LOOPBACK) if host in (*LOOPBACK, "::1") else [host]
    extra = extra_hosts if extra_hosts is not None else os.environ.get(ALLOWED_HOSTS_ENV, "")
    hosts += [name.strip() for name in extra.split(",") if name.strip()]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:*" for name in hosts],
        allowed_origins=[f"http://{name}:*" for name in hosts] + [f"https://{name}:*" for name in hosts],
    )


def http_app(app: AlfredApp, host: str, port: int, tokens: Mapping[str, str]) -> Starlette:
    """The ASGI app serving MCP at /mcp; every request needs one of `tokens` (401 otherwise)."""
    server = build_server(app, tokens=tokens, url=f"http://{host}:{port}")
    return server.streamable_http_app(streamable_http_path=MCP_PATH, transport_security=transport_security(host), host=host)


def serve_http(app: AlfredApp, host: str, port: int, tokens: Mapping[str, str]) -> None:
    """Serve until interrupted."""
    import uvicorn

    logger.info("serving streamable HTTP on http://%s:%d%s for %d token(s)", host, port, MCP_PATH, len(tokens))
    uvicorn.run(http_app(app, host, port, tokens), host=host, port=port, log_level="warning", lifespan="on")
