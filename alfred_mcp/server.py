"""The MCP server: advertises the `tools/*.json` contracts exactly and maps errors. No domain logic."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from jsonschema.exceptions import ValidationError
from mcp.server import MCPServer
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from mcp.types import Tool as MCPTool

from alfred_mcp import __version__
from alfred_mcp.app import AlfredApp
from alfred_mcp.auth import ActingUserMiddleware, TokenUsers
from alfred_mcp.call_context import CallContext, Reporter, enter_call, leave_call
from alfred_mcp.contracts import ToolContract, load_contracts
from alfred_mcp.errors import AlfredError
from alfred_mcp.handlers import HANDLERS
from alfred_mcp.leak_guard import UuidLeakError, assert_no_uuid
from alfred_mcp.surface import completions, prompts, resources
from alfred_mcp.surface.notify import notify_changes

logger = logging.getLogger(__name__)

INSTRUCTIONS = (
    "alfred-mcp holds a kitchen's truth: recipes with ordered ingredients, pantry, shopping list, "
    "meal plans, tasks, preferences and a cooking log. Every row is named by a ref such as recipe_1 "
    "or inv_4; use refs for ids and foreign keys, never invent them. Refs persist across turns of a "
    "session: call turn_begin at the start of each user turn. describe_table gives columns and allowed values."
)


class AlfredServer(MCPServer[AlfredApp]):
    """MCPServer whose tools are the published JSON contracts, dispatched to `handlers.py`."""

    def __init__(self, app: AlfredApp, *, tokens: Mapping[str, str] | None = None, url: str = "http://127.0.0.1") -> None:
        """`tokens` (bearer token → user handle) serve many users over HTTP at `url`; none: the local user."""
        self.app = app
        self.contracts: dict[str, ToolContract] = load_contracts()
        missing = set(self.contracts) ^ set(HANDLERS)
        if missing:
            raise RuntimeError(f"tool contracts and handlers differ: {sorted(missing)}")
        auth = None
        if tokens is not None:
            app.serves_many = True
            auth = AuthSettings(issuer_url=url, resource_server_url=f"{url}/mcp", validate_token_resource=False)  # type: ignore[arg-type]
        super().__init__(
            "alfred-mcp", version=__version__, instructions=INSTRUCTIONS, lifespan=_lifespan,
            token_verifier=TokenUsers(tokens) if tokens is not None else None, auth=auth,
        )
        if tokens is not None:
            self.middleware.append(ActingUserMiddleware(app))
        resources.register(self)
        prompts.register(self)
        completions.register(self)

    async def list_tools(self) -> list[MCPTool]:
        return [
            MCPTool(
                name=c.name,
                title=c.title,
                description=c.description,
                input_schema=c.input_schema,
                output_schema=c.output_schema,
                annotations=ToolAnnotations.model_validate(c.annotations),
            )
            for c in self.contracts.values()
        ]

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        contract = self.contracts.get(name)
        return None if contract is None else contract.input_schema

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[AlfredApp, Any] | None = None
    ) -> CallToolResult:
        contract = self.contracts.get(name)
        if contract is None:
            raise ToolError(f"Unknown tool: {name}. Available: {', '.join(self.contracts)}.")
        try:
            contract.check_arguments(arguments)
            token = enter_call(CallContext(reporter=_progress_reporter(context), mcp_context=context))
            try:
                result = await HANDLERS[name](self.app, arguments)
            finally:
                leave_call(token)
            if self.app.settings.check_results:
                contract.check_result(result)
            body = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
            assert_no_uuid(body, where=f"{name} result")
        except AlfredError as error:
            return _error_result(error)
        except (UuidLeakError, ValidationError):
            logger.exception("tool %s produced a result that breaks its contract", name)
            return _internal_error(name)
        except Exception:
            logger.exception("tool %s failed", name)
            return _internal_error(name)
        await notify_changes(self.app, context, name, arguments, result, read_only=contract.annotations["readOnlyHint"])
        text = f"{summary_line(name, result)}\n{body}"
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=result)


def _progress_reporter(context: Context[AlfredApp, Any] | None) -> Reporter | None:
    """Progress notifications go to the caller when it sent a progress token (a no-op otherwise)."""
    if context is None:
        return None

    async def report(done: float, total: float | None, message: str | None) -> None:
        assert_no_uuid(message or "", where="progress message")
        await context.report_progress(done, total, message)

    return report


def summary_line(name: str, result: dict[str, Any]) -> str:
    """One line for people; the full result follows it as JSON for models that read only text."""
    if "rows" in result:
        head = f"{name}: {result['count']} row(s) in {result['table']}"
    elif "refs" in result:
        head = f"{name}: {result['count']} ref(s)"
    else:
        head = name
    if "session" in result:
        head += f" ({result['session']}, turn {result['turn']})"
    return head


def _error_result(error: AlfredError) -> CallToolResult:
    payload = {"error": error.to_dict()}
    try:
        assert_no_uuid(payload, where="error")
    except UuidLeakError:
        logger.error("an error message carried a raw id; replaced: %s", type(error).__name__)
        payload = {"error": {"code": error.code, "message": "The request was refused; nothing was changed."}}
    return CallToolResult(
        content=[TextContent(type="text", text=f"Error: {payload['error']['message']}")],
        structured_content=payload,
        is_error=True,
    )


def _internal_error(name: str) -> CallToolResult:
    message = f"Internal error in {name}; nothing was changed. The server log has details."
    return CallToolResult(
        content=[TextContent(type="text", text=message)],
        structured_content={"error": {"code": "internal_error", "message": message}},
        is_error=True,
    )


@asynccontextmanager
async def _lifespan(server: MCPServer[AlfredApp]) -> AsyncIterator[AlfredApp]:
    app = server.app  # type: ignore[attr-defined]
    await app.open()
    try:
        yield app
    finally:
        await app.close()


def build_server(app: AlfredApp, *, tokens: Mapping[str, str] | None = None, url: str = "http://127.0.0.1") -> AlfredServer:
    return AlfredServer(app, tokens=tokens, url=url)
