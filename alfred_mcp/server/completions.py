"""Completions for prompt and resource-template arguments: refs, sessions, tables, step types.

A ref completes as `recipe_1 — Thai Curry`, most recently used first: completion values are
plain strings, and a label beside the ref is what lets a person pick the right one. Every
argument that takes a ref also accepts that form (the part before ' — ' is the ref), so a
client that inserts the whole value still works.

A completion for a prompt or template this server does not have, or for an argument it does not
take, is JSON-RPC invalid params (-32602) naming what exists; an argument that takes free text
completes to nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from mcp import MCPError
from mcp.server import MCPServer
from mcp.types import (
    INVALID_PARAMS,
    Completion,
    CompletionArgument,
    CompletionContext,
    PromptReference,
    ResourceTemplateReference,
)

from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import AlfredError
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.server.session_args import CURRENT, LABEL_SEPARATOR, invalid_params, session_arg
from alfred_mcp.state.context import STEP_KINDS
from alfred_mcp.state.known_ids import knowing_ids
from alfred_mcp.state.registry import SessionIdRegistry

MAX_VALUES = 100


def register(server: MCPServer[AlfredApp], app: AlfredApp) -> None:
    """Add the completion handler to `server`."""

    @server.completion()  # type: ignore[no-untyped-call, untyped-decorator]  # the SDK's decorator is unannotated
    async def complete(
        ref: PromptReference | ResourceTemplateReference, argument: CompletionArgument, context: CompletionContext | None
    ) -> Completion | None:
        _check_argument(argument.name, await _arguments_of(server, ref), ref)
        known = (context.arguments or {}) if context is not None else {}
        with knowing_ids():  # the leak guard knows the ids this completion handles (state/known_ids.py)
            try:
                values = await _values(app, argument.name, argument.value, known.get("session"))
            except AlfredError as error:
                raise invalid_params(error) from None
            return None if values is None else _completion(values)


async def _arguments_of(server: MCPServer[AlfredApp], ref: PromptReference | ResourceTemplateReference) -> list[str]:
    """The argument names of the referenced prompt or resource template.

    Raises:
        MCPError: -32602, the server has no such prompt or template.
    """
    if isinstance(ref, PromptReference):
        prompts = await server.list_prompts()
        prompt = next((p for p in prompts if p.name == ref.name), None)
        if prompt is None:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown prompt: {ref.name}. Prompts: {', '.join(p.name for p in prompts)}.",
                           data={"name": ref.name})
        return [a.name for a in prompt.arguments or []]
    templates = [t.uri_template for t in await server.list_resource_templates()]
    if ref.uri not in templates:
        raise MCPError(code=INVALID_PARAMS, message=f"Unknown resource template: {ref.uri}. Templates: {', '.join(templates)}.",
                       data={"uri": ref.uri})
    return re.findall(r"\{(\w+)\}", ref.uri)


def _check_argument(name: str, arguments: list[str], ref: PromptReference | ResourceTemplateReference) -> None:
    if name not in arguments:
        target = f"Prompt {ref.name}" if isinstance(ref, PromptReference) else f"Template {ref.uri}"
        raise MCPError(code=INVALID_PARAMS, message=f"{target} has no argument {name!r}; it takes: {', '.join(arguments) or 'none'}.",
                       data={"argument": name, "arguments": arguments})


async def _values(app: AlfredApp, name: str, typed: str, session: str | None) -> list[str] | None:
    if name == "session":
        return await session_values(app, typed)
    if name == "table":
        return [table for table in TABLES if table.startswith(typed)]
    if name == "step_type":
        return [kind for kind in STEP_KINDS if kind.startswith(typed)]
    if name == "ref":
        async with app.work("completion", session=session_arg(session), log_refusals=False) as work:
            return ref_values(work.session.registry, typed)
    return None


async def session_values(app: AlfredApp, typed: str) -> list[str]:
    """'current', then the user's sessions newest first (numbers are never reused or skipped)."""
    record = await app.store.current_session(app.user_id)
    newest = record.number if record is not None else 0
    names = [CURRENT, *(f"session_{n}" for n in range(newest, 0, -1))]
    return [name for name in names if name.startswith(typed)]


def ref_values(registry: SessionIdRegistry, typed: str) -> list[str]:
    """Live refs whose ref starts with, or whose label contains, what was typed: 'ref — label', recent first."""
    needle = typed.split(LABEL_SEPARATOR, 1)[0].strip().lower()
    matches = [
        entry for entry in registry.entries()
        if entry.deleted_turn is None and (entry.ref.startswith(needle) or needle in (entry.label or "").lower())
    ]
    matches.sort(key=lambda e: (-e.turn_last_ref, e.entity_type, e.ref.startswith("gen_"), _number(e.ref)))
    return [f"{e.ref}{LABEL_SEPARATOR}{e.label}" if e.label else e.ref for e in matches]


def _number(ref: str) -> int:
    return int(ref.rsplit("_", 1)[1])


def _completion(values: Iterable[str]) -> Completion:
    found = [value for value in values if find_uuid(value) is None]
    return Completion(values=found[:MAX_VALUES], total=len(found), has_more=len(found) > MAX_VALUES)
