"""Names where a ref is asked (`operations/ref_names.py`): resolved before the handler runs, answered beside its result.

The names become refs in a unit of work of their own, which keeps the refs it registered (the row meant, or the
candidates an unmatched name lists) whether or not the call then runs; an unmatched name is the call's refusal,
logged as any other, with nothing changed. The result says what each name became (`named`), so a client uses the
ref from then on.
"""

from __future__ import annotations

from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import UnmatchedNameError
from alfred_mcp.operations.ref_names import (
    DATA_TOOLS,
    FILTER_TOOLS,
    NAME_ARGUMENTS,
    REF_LISTS,
    NamedArgument,
    named_arguments,
    ref_for_name,
    with_refs,
)
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult, work_on

NAMING_TOOLS = frozenset(NAME_ARGUMENTS) | FILTER_TOOLS | DATA_TOOLS | frozenset(REF_LISTS)


def with_names(handlers: dict[str, Handler]) -> dict[str, Handler]:
    """`handlers`, those of tools that take a name where a ref is asked first turning names into refs."""
    return {tool: _naming(tool, handler) if tool in NAMING_TOOLS else handler for tool, handler in handlers.items()}


def _naming(tool: str, handler: Handler) -> Handler:
    async def handle(app: AlfredApp, args: ToolArgs) -> ToolResult:
        named = named_arguments(tool, args)
        if not named:
            return await handler(app, args)
        refs = await _refs_for(app, tool, args, named)
        result = await handler(app, with_refs(args, refs))
        return {**result, "named": {argument.value: refs[argument.path] for argument in named}}

    return handle


async def _refs_for(app: AlfredApp, tool: str, args: ToolArgs, named: list[NamedArgument]) -> dict[tuple[str | int, ...], str]:
    refusal: UnmatchedNameError | None = None
    refs: dict[tuple[str | int, ...], str] = {}
    async with work_on(app, tool, args) as work:
        for argument in named:
            try:
                refs[argument.path] = await ref_for_name(work, tool, argument)
            except UnmatchedNameError as error:
                refusal = refusal or error
    if refusal is not None:
        async with work_on(app, tool, args):
            raise refusal  # the call's refusal, in its call log; the candidates' refs were kept above
    return refs
