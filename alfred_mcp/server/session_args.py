"""Which session a resource, prompt or completion names, and errors a client can act on."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp import MCPError
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp.types import INVALID_PARAMS

from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import AlfredError
from alfred_mcp.server.leak_guard import UuidLeakError, assert_no_uuid
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


@asynccontextmanager
async def session_for_resource(app: AlfredApp, name: str | None, resource: str) -> AsyncIterator[UnitOfWork]:
    """A unit of work on the named session; an unknown name is a not-found error naming the choices."""
    try:
        async with app.work(f"resource:{resource}", session=session_arg(name), log_refusals=False) as work:
            yield work
    except AlfredError as error:
        raise ResourceNotFoundError(_safe(error.message)) from None


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
    try:
        assert_no_uuid(message, where="error")
    except UuidLeakError:
        return "The request was refused."
    return message
