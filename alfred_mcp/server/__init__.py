"""MCP only: the server, its tool dispatch and contracts, auth and HTTP, resources, prompts,
completions and notifications; `tools/` holds one module per tool family."""

from __future__ import annotations

from alfred_mcp.server.mcp_server import AlfredServer, build_server

__all__ = ["AlfredServer", "build_server"]
