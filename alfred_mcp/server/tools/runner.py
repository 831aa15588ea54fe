"""The kitchen tools by name, and the tool runner the agent's Act role calls them through.

Act's tool calls take the same path as MCP calls (contract-checked arguments, the same handler),
on the turn's own session. The agent receives the runner as a port (`agent.machine.ToolRunner`),
never the handler table. The agent-turn tools themselves are not runnable from inside a turn.
"""

from __future__ import annotations

from alfred_mcp.agent import act_tools
from alfred_mcp.agent.machine import ToolRunner
from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import load_contracts
from alfred_mcp.errors import InputError
from alfred_mcp.server.tools import context, crud, drafts, kitchen, recipes, search, sessions, views
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult
from alfred_mcp.server.tools.naming import with_names
from alfred_mcp.server.tools.stage_listing import in_catalog
from alfred_mcp.server.toolsets import HostControls

KITCHEN_HANDLERS: dict[str, Handler] = with_names({
    **context.HANDLERS, **crud.HANDLERS, **drafts.HANDLERS, **search.HANDLERS, **sessions.HANDLERS,
    **recipes.HANDLERS, **kitchen.HANDLERS, **views.HANDLERS,
})


class _Runner:
    """Runs the tools Act may call on one session, as MCP calls would, within the host's controls."""

    def __init__(self, app: AlfredApp, session_name: str) -> None:
        self.app = app
        self.session_name = session_name
        controls = HostControls.from_settings(app.settings, load_contracts())
        self.controls = controls
        self.served = frozenset(name for name in controls.served if name in KITCHEN_HANDLERS)
        # a view-only tool is listed only to a client that renders views: Act is given its signature regardless; a
        # stage listing's catalog carries every tool Act may call (stage_listing.py), so its client has them all
        contracts, catalog = load_contracts(), in_catalog(controls)
        self.listed = frozenset(name for name in self.served
                                if controls.lists(contracts[name], has_model=app.llm is not None, renders_views=False)
                                or name in catalog)

    async def __call__(self, tool: str, arguments: ToolArgs, /) -> ToolResult:
        handler = KITCHEN_HANDLERS.get(tool)
        contract = load_contracts().get(tool)
        reason = act_tools.why_not_for_act(contract) if contract is not None else None
        if handler is None or contract is None or reason is not None:
            raise InputError(f"'{tool}' cannot be called from inside a turn" + (f": {reason}." if reason else "."),
                             field="tool", value=tool)
        refusal = self.controls.refusal(tool)
        if refusal is not None:
            raise InputError(refusal, field="tool", value=tool)
        takes_session = "session" in contract.input_schema.get("properties", {})
        args = {**arguments, "session": self.session_name} if takes_session else dict(arguments)
        return await handler(self.app, contract.admit_arguments(args).value)


def tool_runner(app: AlfredApp, session_name: str) -> ToolRunner:
    """Runs kitchen tools on the session `session_name`, as MCP calls would (within the host's controls)."""
    return _Runner(app, session_name)
