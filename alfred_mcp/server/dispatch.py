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

import logging
import time
from collections.abc import Sequence
from typing import Any

from jsonschema.exceptions import ValidationError
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent
from pydantic import ValidationError as PydanticValidationError
from pydantic_core import to_json

from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import ToolContract
from alfred_mcp.errors import AlfredError, SessionConflictError
from alfred_mcp.kitchen.plurals import counted
from alfred_mcp.kitchen.text import is_large
from alfred_mcp.kitchen.view_texts import TEXTS
from alfred_mcp.operations.importing import source_kind
from alfred_mcp.operations.offload import off_loop
from alfred_mcp.operations.progress import Reporter, reporting_to
from alfred_mcp.server.call_context import serving
from alfred_mcp.server.leak_guard import UuidLeakError, assert_no_uuid, find_uuid
from alfred_mcp.server.observe import CallObserver, ToolCall, outcome_of
from alfred_mcp.server.tools import HANDLERS
from alfred_mcp.server.tools.common import ToolArgs, ToolResult
from alfred_mcp.state.known_ids import knowing_ids
from alfred_mcp.state.note_facts import for_the_client

logger = logging.getLogger(__name__)


async def run_tool_call(
    app: AlfredApp, contract: ToolContract, arguments: ToolArgs, context: Context[AlfredApp, Any] | None,
    observers: Sequence[CallObserver] = (),
) -> tuple[CallToolResult, ToolResult | None]:
    """The call's result for the client, and its structured result when it succeeded (None on error).

    Each of `observers` is told the finished call: its tool, outcome, error code, duration and user."""
    started = time.perf_counter()
    sent, result = await _run(app, contract, arguments, context, observers)
    if observers:
        outcome, code = outcome_of(sent, ERROR_META)
        request_id = context.request_id if context is not None else None
        call = ToolCall(contract.name, outcome, code, time.perf_counter() - started, app.acting_user(),
                        None if request_id is None else str(request_id), fetched=_fetches(contract.name, arguments))
        for observer in observers:
            observer.tool_call(call)
    return sent, result


def _fetches(tool: str, arguments: ToolArgs) -> bool:
    source = arguments.get("source") if tool == "recipes_import" else None
    return isinstance(source, str) and source_kind(source) == "url"


async def _run(
    app: AlfredApp, contract: ToolContract, arguments: ToolArgs, context: Context[AlfredApp, Any] | None,
    observers: Sequence[CallObserver],
) -> tuple[CallToolResult, ToolResult | None]:
    """The call's result for the client, and its structured result when it succeeded (None on error).

    The leak guard checks the result against the ids this call handled (`state/known_ids.py`)."""
    with knowing_ids():
        return await _run_tool_call(app, contract, arguments, context, observers)


async def _run_tool_call(
    app: AlfredApp, contract: ToolContract, arguments: ToolArgs, context: Context[AlfredApp, Any] | None,
    observers: Sequence[CallObserver],
) -> tuple[CallToolResult, ToolResult | None]:
    name = contract.name
    completed = False
    try:
        # a large call (a batch of drafts, a pasted page) is checked in a parsing thread, never holding the loop
        admitted = await off_loop(contract.admit_arguments, arguments) if is_large(arguments) else contract.admit_arguments(arguments)
        with serving(context), reporting_to(_progress_reporter(context)):
            result = await _handled(app, name, admitted.value, observers)
        completed = True
        result = for_the_client(result)
        if app.settings.check_results:
            contract.check_result(result)
        body = to_json(result).decode()  # built once: the text block carries it, the leak guard reads it
        assert_no_uuid(body, where=f"{name} result")
        text = TEXTS[name](result) if name in TEXTS else f"{summary_line(name, result)}\n{body}"
    except AlfredError as error:
        return _error_result(error), None
    except (UuidLeakError, ValidationError):
        logger.exception("tool %s produced a result that breaks its contract", name)
        return internal_error(name, completed=completed), None
    except Exception as error:
        logger.exception("tool %s failed", name)
        return internal_error(name, completed=completed, cause=error), None
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=result), result


CONFLICT_ATTEMPTS = 8
"""How often a call runs when another process keeps saving the same session first (nothing of a conflicted try is saved)."""


async def _handled(app: AlfredApp, name: str, arguments: ToolArgs, observers: Sequence[CallObserver]) -> ToolResult:
    """The handler's result; a try refused by a session conflict (another process saved the session first,
    nothing of this try was saved) runs again on the fresh session, a few times, before the conflict is the answer."""
    for attempt in range(2, CONFLICT_ATTEMPTS + 1):
        try:
            return await HANDLERS[name](app, arguments)
        except SessionConflictError:
            logger.info("tool %s: the session was saved by another call meanwhile; running it again (try %d)", name, attempt)
            for observer in observers:
                observer.session_conflict(name, retried=True)
    try:
        return await HANDLERS[name](app, arguments)
    except SessionConflictError:
        for observer in observers:
            observer.session_conflict(name, retried=False)
        raise


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
        head = f"{name}: {counted(result['count'], 'row')} in {result['table']}"
    elif "refs" in result:
        head = f"{name}: {counted(result['count'], 'ref')}"
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
        field = error.fields.get("field")
        safe_field = field if isinstance(field, str) and find_uuid(field) is None else None
        where = f"{safe_field}: " if safe_field else ""
        fields = {"code": error.code, "message": f"{where}the value was refused ({error.code}); it is not shown because it holds a raw id.",
                  "field": safe_field or "arguments"}
    logger.info("refused (%s): %s", fields["code"], fields["message"])
    return error_result(fields)


def internal_error(name: str, *, completed: bool = False, cause: BaseException | None = None) -> CallToolResult:
    """An internal error naming the tool and, when a model check failed, the field and its limit.

    It never claims that nothing changed: `completed` says the call's work was committed and only
    its result failed; otherwise the call's own unit of work was rolled back.
    """
    detail = _limit_detail(cause)
    fields: dict[str, Any] = {"code": "internal_error", "tool": name}
    if completed:
        what = f"Internal error in {name} after it completed: its changes were kept, but its result could not be sent"
    else:
        what = f"Internal error in {name}: the call stopped and its own writes were rolled back"
    if detail is not None:
        fields["field"], fields["limit"] = detail
        what += f" ({detail[0]}: {detail[1]})"
    fields["message"] = f"{what}. The server log has details."
    if find_uuid(fields) is not None:
        fields = {"code": "internal_error", "tool": name, "message": f"Internal error in {name}. The server log has details."}
    return error_result(fields)


def _limit_detail(cause: BaseException | None) -> tuple[str, str] | None:
    """(field, broken rule) of a pydantic validation failure inside the call, when that is what failed."""
    if not isinstance(cause, PydanticValidationError):
        return None
    first = cause.errors(include_url=False, include_input=False)[0]
    where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"]).lstrip(".")
    return f"{cause.title}.{where}" if where else cause.title, first["msg"]
