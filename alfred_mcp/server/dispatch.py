"""One tool call from the wire to its handler and back: arguments checked, errors mapped, no raw id out.

An `AlfredError` becomes an `isError` result naming the field; anything else is an internal
error that names only the tool (the log has the rest). Every result and error passes the leak
guard before it leaves.

An error result carries no `structuredContent`: a tool's outputSchema describes its success, and
clients that validate structured content against it (the TypeScript SDK, the Inspector) would
otherwise throw away the error. Its text says what went wrong; its fields (code, field, valid
values, ...) travel in `_meta["alfred/error"]` for clients and tests that want them.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from jsonschema.exceptions import ValidationError
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent

from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import ToolContract
from alfred_mcp.errors import AlfredError
from alfred_mcp.operations.progress import Reporter, reporting_to
from alfred_mcp.server.call_context import serving
from alfred_mcp.server.leak_guard import UuidLeakError, assert_no_uuid
from alfred_mcp.server.tools import HANDLERS
from alfred_mcp.server.tools.common import ToolArgs, ToolResult
from alfred_mcp.server.tools.view_texts import TEXTS

logger = logging.getLogger(__name__)


async def run_tool_call(
    app: AlfredApp, contract: ToolContract, arguments: ToolArgs, context: Context[AlfredApp, Any] | None
) -> tuple[CallToolResult, ToolResult | None]:
    """The call's result for the client, and its structured result when it succeeded (None on error)."""
    name = contract.name
    try:
        contract.check_arguments(arguments)
        with serving(context), reporting_to(_progress_reporter(context)):
            result = await HANDLERS[name](app, arguments)
        if app.settings.check_results:
            contract.check_result(result)
        body = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
        assert_no_uuid(body, where=f"{name} result")
        text = TEXTS[name](result) if name in TEXTS else f"{summary_line(name, result)}\n{body}"
    except AlfredError as error:
        return _error_result(error), None
    except (UuidLeakError, ValidationError):
        logger.exception("tool %s produced a result that breaks its contract", name)
        return _internal_error(name), None
    except Exception:
        logger.exception("tool %s failed", name)
        return _internal_error(name), None
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=result), result


def _progress_reporter(context: Context[AlfredApp, Any] | None) -> Reporter | None:
    """Progress notifications go to the caller when it sent a progress token (a no-op otherwise)."""
    if context is None:
        return None

    async def report(done: float, total: float | None, message: str | None) -> None:
        assert_no_uuid(message or "", where="progress message")
        await context.report_progress(done, total, message)

    return report


def summary_line(name: str, result: ToolResult) -> str:
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


ERROR_META = "alfred/error"
"""The `_meta` key of an error result's fields."""


def error_result(fields: dict[str, Any]) -> CallToolResult:
    """An isError result: the message as text, every field in `_meta` (never structuredContent)."""
    return CallToolResult(
        content=[TextContent(type="text", text=f"Error: {fields['message']}")], is_error=True, _meta={ERROR_META: fields}
    )


def _error_result(error: AlfredError) -> CallToolResult:
    fields = error.to_dict()
    try:
        assert_no_uuid(fields, where="error")
    except UuidLeakError:
        logger.error("an error message carried a raw id; replaced: %s", type(error).__name__)
        fields = {"code": error.code, "message": "The request was refused; nothing was changed."}
    logger.info("refused (%s): %s", fields["code"], fields["message"])
    return error_result(fields)


def _internal_error(name: str) -> CallToolResult:
    return error_result({"code": "internal_error", "message": f"Internal error in {name}; nothing was changed. The server log has details."})
