"""One async handler per MCP tool: contract-checked arguments in, result dict out."""

from __future__ import annotations

from alfred_mcp.handlers import context_tools, crud_tools, draft_tools, session_tools, turn_tools
from alfred_mcp.handlers.common import Handler

HANDLERS: dict[str, Handler] = {**context_tools.HANDLERS, **crud_tools.HANDLERS, **session_tools.HANDLERS, **draft_tools.HANDLERS, **turn_tools.HANDLERS}

__all__ = ["HANDLERS", "Handler"]
