"""Which session a resource, prompt or completion names, their arguments checked at the door, and
errors a client can act on: each names the argument, and none repeats a raw id the client sent."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp import MCPError
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS

from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import AlfredError, UnknownSessionError
from alfred_mcp.kitchen.raw_ids import redact_raw_ids
from alfred_mcp.kitchen.text import admit
from alfred_mcp.server.leak_guard import UuidLeakError, assert_no_uuid, find_uuid
from alfred_mcp.session import UnitOfWork

CURRENT = "current"
LABEL_SEPARATOR = " — "


def session_arg(name: str | None) -> str | None:
    """'current' (or nothing) means the user's current session; anything else is a session name."""
    name = (name or "").strip()
    return None if name in ("", CURRENT) else name


def bare_ref(value: str) -> str:
    """'recipe_1 — Thai Curry' (a completion value) -> 'recipe_1'."""
    return value.split(LABEL_SEPARATOR, 1)[0].strip()


def admitted_args(**args: str) -> dict[str, str]:
    """Prompt arguments checked at the door like tool arguments (`kitchen/text.py`): a control
    character is refused naming the argument; UUID-shaped text is kept as given.

    Raises:
        MCPError: INVALID_PARAMS, naming the argument.
    """
    try:
        return {name: admit(value, name).value for name, value in args.items()}
    except AlfredError as error:
        raise invalid_params(error) from None


def resource_arg(name: str, value: str) -> str:
    """A resource URI's parameter checked at the door; refused (not found, naming it) otherwise.

    Raises:
        ResourceNotFoundError: a control character or a raw id in the parameter.
    """
    if find_uuid(value) is not None:
        raise ResourceNotFoundError(f"{name}: a raw id (UUID) is not a {name}; resources are named by refs and session names.")
    try:
        return str(admit(value, name).value)
    except AlfredError as error:
        raise ResourceNotFoundError(_safe(error.message)) from None


def resource_failure(error: ResourceError, uri: str) -> MCPError:
    """A resource error as the client sees it: the SDK's codes, the URI in `data` with any raw id redacted."""
    code = INVALID_PARAMS if isinstance(error, ResourceNotFoundError) else INTERNAL_ERROR
    return MCPError(code=code, message=_safe(str(error)), data={"uri": redact_raw_ids(uri)})


def served_app(ctx: Context[Any, Any]) -> AlfredApp:
    """The app of the server serving this request: the resource templates and prompts are built once per process and
    shared by every server (building them is the SDK's costliest step), so each finds its app here.

    Raises:
        RuntimeError: the request's server holds no AlfredApp (a server that is not an AlfredServer).
    """
    app = getattr(ctx.mcp_server, "app", None)
    if not isinstance(app, AlfredApp):
        raise RuntimeError(f"{type(ctx.mcp_server).__name__} serves no AlfredApp")
    return app


@asynccontextmanager
async def session_for_resource(app: AlfredApp, name: str | None, resource: str) -> AsyncIterator[UnitOfWork]:
    """A unit of work on the named session; an unknown name is a not-found error naming the choices."""
    if name is not None:
        name = resource_arg("session", name)
    try:
        async with app.work(f"resource:{resource}", session=session_arg(name), log_refusals=False) as work:
            yield work
    except AlfredError as error:
        where = "session: " if isinstance(error, UnknownSessionError) else ""
        raise ResourceNotFoundError(where + _safe(error.message)) from None


def to_json(payload: Any, *, where: str) -> str:
    """JSON text for a resource, refused if a raw id slipped in."""
    text = json.dumps(payload, ensure_ascii=False, indent=2)
    try:
        assert_no_uuid(text, where=where)
    except UuidLeakError:
        raise ResourceError(f"{where} could not be shown; the server log has details.") from None
    return text


def checked_text(text: str, *, where: str) -> str:
    try:
        assert_no_uuid(text, where=where)
    except UuidLeakError:
        raise MCPError(code=INVALID_PARAMS, message=f"{where} could not be built; the server log has details.") from None
    return text


def invalid_params(error: AlfredError) -> MCPError:
    """An AlfredError as the JSON-RPC error prompts and completions answer with."""
    return MCPError(code=INVALID_PARAMS, message=_safe(error.message))


def _safe(message: str) -> str:
    """`message` with any raw id it repeats redacted (errors name the argument, never echo an id)."""
    return redact_raw_ids(message)
