"""The MCP server: advertises the `tools/*.json` contracts exactly, registers resources, prompts and
completions, and hands each tool call to `dispatch.py`. No domain logic."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache
from typing import Any

import anyio
from mcp import MCPError
from mcp.server import MCPServer
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    CallToolResult,
    DiscoverResult,
    GetPromptResult,
    InputRequiredResult,
    RequestParams,
    SetLevelRequestParams,
    SubscribeRequestParams,
    ToolAnnotations,
    UnsubscribeRequestParams,
)
from mcp.types import Resource as MCPResource
from mcp.types import Tool as MCPTool

from alfred_mcp import __version__
from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import ToolContract, load_contracts
from alfred_mcp.kitchen.raw_ids import redact_raw_ids
from alfred_mcp.server import apps, completions, host_controls, prompts, resources
from alfred_mcp.server.auth import ActingUserMiddleware
from alfred_mcp.server.client_log import ClientLog
from alfred_mcp.server.dispatch import run_tool_call
from alfred_mcp.server.logs import CallLog
from alfred_mcp.server.notifications import notify_changes
from alfred_mcp.server.observe import CallObserver
from alfred_mcp.server.session_args import resource_failure
from alfred_mcp.server.stdio import stdio_streams
from alfred_mcp.server.subscriptions import Subscriptions
from alfred_mcp.server.tools import HANDLERS
from alfred_mcp.server.tools.stage_listing import listed_schema
from alfred_mcp.server.toolsets import HostControls
from alfred_mcp.server.user_bus import UserScopedBus
from alfred_mcp.state.known_ids import knowing_ids

logger = logging.getLogger(__name__)
INSTRUCTIONS = (
    "alfred-mcp holds a kitchen's truth: recipes with ordered ingredients, pantry, shopping list, "
    "meal plans, tasks, preferences and a cooking log. Every row is named by a ref such as recipe_1 "
    "or inv_4; use refs for ids and foreign keys, never invent them. Refs persist across the turns of a session. "
    "Drive a turn stage by stage with turn_start, turn_context and turn_submit; or call the tools yourself, starting "
    "each user message (the first too) with turn_begin. Every tool takes an optional session (e.g. session_2) to act "
    "on another of your sessions, and its result carries the session and turn it acted on. describe_table gives "
    "columns and allowed values."
)


class AlfredServer(MCPServer[AlfredApp]):
    """MCPServer whose tools are the published JSON contracts, dispatched to `server/tools/` by `dispatch.py`."""

    def __init__(self, app: AlfredApp, *, many_users: bool = False) -> None:
        """`many_users`: each request acts for its authenticated user (HTTP, `server/http.py`); else for the local user."""
        self.app = app
        self.contracts: dict[str, ToolContract] = load_contracts()
        self._header_schemas = _header_schemas()
        missing = set(self.contracts) ^ set(HANDLERS)
        if missing:
            raise RuntimeError(f"tool contracts and handlers differ: {sorted(missing)}")
        self.host = HostControls.from_settings(app.settings, self.contracts)
        super().__init__("alfred-mcp", version=__version__, instructions=INSTRUCTIONS, lifespan=_lifespan,
                         extensions=[apps.build_apps()] if app.settings.ui else None,
                         subscriptions=UserScopedBus(app.acting_user))
        if app.settings.ui:
            self.middleware.append(apps.AppsClientMiddleware())
        if many_users:
            app.serves_many = True
            self.middleware.append(ActingUserMiddleware(app))
        self.observers: list[CallObserver] = [CallLog()]
        """Told every finished tool call (`server/observe.py`): the call log (`logs.py`), metrics when served."""
        self.client_log = ClientLog()
        self.middleware.append(self.client_log)
        self.subscriptions = Subscriptions(self, app)
        handlers = self._lowlevel_server.add_request_handler
        handlers("logging/setLevel", SetLevelRequestParams, self.client_log.set_level)
        handlers("resources/subscribe", SubscribeRequestParams, self.subscriptions.on_subscribe)
        handlers("resources/unsubscribe", UnsubscribeRequestParams, self.subscriptions.on_unsubscribe)
        handlers("server/discover", RequestParams, self._discover)
        resources.register(self, app)
        prompts.register(self)
        completions.register(self, app)

    async def _discover(self, ctx: ServerRequestContext[Any, Any], params: RequestParams) -> DiscoverResult:
        """The SDK's `server/discover` answer, with the MCP Apps extension advertised only to a client that declared it."""
        found = await self._lowlevel_server._handle_discover(ctx, params)  # the SDK's own answer, whatever it holds
        return found.model_copy(update={"capabilities": apps.capabilities_for_client(found.capabilities, ctx)})

    async def run_stdio_async(self) -> None:
        """Serve over stdio with `server/stdio.py`: every bad line is answered, Ctrl-C and SIGTERM end it at once."""
        async with stdio_streams() as (read_stream, write_stream):
            await self._lowlevel_server.run(read_stream, write_stream, self._lowlevel_server.create_initialization_options())

    async def list_tools(self) -> list[MCPTool]:
        # What the host's controls list (server/toolsets.py `lists`): a listing (--listed), an allow-list, or the default
        # list; every served tool stays callable by name. `_meta.ui` only for a client that renders views (server/apps.py);
        # a stage listing's turn_start carries the roles' shapes and first instructions in its schema (tools/stage_listing.py).
        has_model, views = self.app.llm is not None, apps.client_declared_apps()
        return [
            MCPTool(
                name=c.name,
                title=c.title,
                description=description,
                input_schema=input_schema,
                output_schema=c.output_schema,
                annotations=ToolAnnotations.model_validate(c.annotations),
                _meta=apps.listed_meta(c),
            )
            for c in self.contracts.values()
            if self.host.lists(c, has_model=has_model, renders_views=views)
            for description, input_schema in [listed_schema(c, self.host)]
        ]

    async def list_resources(self) -> list[MCPResource]:
        """Every resource; the `ui://` views only for a client that declared MCP Apps."""
        found = await super().list_resources()
        return found if apps.client_declared_apps() else [r for r in found if not apps.is_view_uri(r.uri)]

    async def read_resource(self, uri: Any, context: Context[AlfredApp, Any] | None = None) -> Any:
        """The SDK's read, with its errors made safe: no raw id the client sent is echoed back (`session_args`)."""
        try:
            with knowing_ids():  # the leak guard knows the ids this read handles (state/known_ids.py)
                return await super().read_resource(uri, context)
        except ResourceError as error:
            raise resource_failure(error, str(uri)) from None

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        """The schema the SDK checks `Mcp-Param-*` headers against; None when the tool declares none
        (no `x-mcp-header`), which spares the walk of the whole schema the SDK makes on every call."""
        return self._header_schemas.get(name)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[AlfredApp, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        refusal = self.host.refusal(name)
        if refusal is not None:
            raise ToolError(refusal)
        contract = self.contracts.get(name)
        if contract is None:
            shown = redact_raw_ids(name)  # a client's text is echoed, never a raw id in it
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {shown}. Tools: {', '.join(self.contracts)}.",
                           data={"name": shown})
        instead = await host_controls.confirm(self.app, contract, arguments, context)
        if instead is not None:
            return instead
        outcome, result = await run_tool_call(self.app, contract, arguments, context, self.observers)
        if result is not None:
            await notify_changes(self.app, context, name, arguments, result, read_only=contract.hint("readOnlyHint"),
                                 subscriptions=self.subscriptions)
        return outcome

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context[AlfredApp, Any] | None = None
    ) -> GetPromptResult | InputRequiredResult:
        """A role prompt; a client's mistake is -32602 naming the prompt or argument, a server fault -32603."""
        prompts.check_prompt_call(await self.list_prompts(), name, arguments)
        try:
            with knowing_ids():
                return await super().get_prompt(name, arguments, context)
        except ValueError:  # the SDK wraps whatever a prompt function raised (other than MCPError) as ValueError
            logger.exception("prompt %s failed", name)
            raise MCPError(code=INTERNAL_ERROR, message=f"Internal error in the {name} prompt; the server log has details.") from None


@asynccontextmanager
async def _lifespan(server: MCPServer[AlfredApp]) -> AsyncIterator[AlfredApp]:
    app = server.app  # type: ignore[attr-defined]
    await app.open()
    try:
        async with app.writing_behind():
            yield app
    finally:
        with anyio.CancelScope(shield=True):  # closes the store even when Ctrl-C cancelled the server
            await app.close()


@cache
def _header_schemas() -> dict[str, dict[str, Any]]:
    """The input schemas of the tools that declare an `x-mcp-header` (found once per process)."""
    return {name: c.input_schema for name, c in load_contracts().items() if "x-mcp-header" in json.dumps(c.input_schema)}


def build_server(app: AlfredApp, *, many_users: bool = False) -> AlfredServer:
    return AlfredServer(app, many_users=many_users)
