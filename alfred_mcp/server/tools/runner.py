"""The kitchen tools by name, and the tool runner the agent's Act role calls them through.

Act's tool calls take the same path as MCP calls (contract-checked arguments, the same handler),
on the turn's own session. The agent receives the runner as a port (`agent.machine.ToolRunner`),
never the handler table. The agent-turn tools themselves are not runnable from inside a turn.
"""

from __future__ import annotations

from alfred_mcp.agent.machine import ToolRunner
from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import load_contracts
from alfred_mcp.errors import InputError
from alfred_mcp.server.tools import context, crud, drafts, kitchen, recipes, search, sessions, views
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult
from alfred_mcp.server.toolsets import HostControls

KITCHEN_HANDLERS: dict[str, Handler] = {
    **context.HANDLERS, **crud.HANDLERS, **drafts.HANDLERS, **search.HANDLERS, **sessions.HANDLERS,
    **recipes.HANDLERS, **kitchen.HANDLERS, **views.HANDLERS,
}


def tool_runner(app: AlfredApp, session_name: str) -> ToolRunner:
    """Runs kitchen tools on the session `session_name`, as MCP calls would (within the host's controls)."""
    served = HostControls.from_settings(app.settings, load_contracts())

    async def run(tool: str, arguments: ToolArgs) -> ToolResult:
        handler = KITCHEN_HANDLERS.get(tool)
        if handler is None:
            raise InputError(f"'{tool}' cannot be called from inside a turn.", field="tool", value=tool)
        refusal = served.refusal(tool)
        if refusal is not None:
            raise InputError(refusal, field="tool", value=tool)
        contract = load_contracts()[tool]
        takes_session = "session" in contract.input_schema.get("properties", {})
        args = {**arguments, "session": session_name} if takes_session else dict(arguments)
        return await handler(app, contract.admit_arguments(args).value)

    return run
