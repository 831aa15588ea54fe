"""One async handler per MCP tool, one module per tool family: contract-checked arguments in, result dict out."""

from __future__ import annotations

from alfred_mcp.server.tools import agent_turns
from alfred_mcp.server.tools.common import Handler
from alfred_mcp.server.tools.runner import KITCHEN_HANDLERS

HANDLERS: dict[str, Handler] = {**KITCHEN_HANDLERS, **agent_turns.HANDLERS}

__all__ = ["HANDLERS", "Handler"]
