"""Recipe tools people expect of a recipe manager: recipes_import, recipes_export, recipes_scale."""

from __future__ import annotations

import ipaddress

from alfred_mcp.app import AlfredApp
from alfred_mcp.operations import exporting, importing, scaling
from alfred_mcp.operations.constraint_warnings import draft_warnings
from alfred_mcp.operations.fetching import FetchPolicy
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult, work_on
from alfred_mcp.server.tools.common import session_context as _context
from alfred_mcp.server.tools.drafts import draft_view


def fetch_policy(app: AlfredApp) -> FetchPolicy:
    """Serving many users, non-public addresses are refused unless the host allows their networks."""
    networks = tuple(ipaddress.ip_network(n, strict=False) for n in app.settings.import_allow_networks)
    return FetchPolicy(block_private=app.serves_many, allowed_networks=networks)


async def recipes_import(app: AlfredApp, args: ToolArgs) -> ToolResult:
    read = await importing.read_source(
        args["source"], policy=fetch_policy(app), local_files=not app.serves_many, offset=args.get("offset", 0),
        isolate=app.serves_many,
    )
    async with work_on(app, "recipes_import", args) as work:
        drafts, warnings = await importing.draft_recipes(work.session, read)
        warnings += await draft_warnings(work, drafts)
        source = {"kind": read.kind, **({"url": read.url} if read.url else {})}
        return {
            "drafts": [draft_view(d) for d in drafts], "count": len(drafts), "source": source, "warnings": warnings,
            "remaining": read.total - read.offset - len(drafts), **_context(work.session),
        }


async def recipes_export(app: AlfredApp, args: ToolArgs) -> ToolResult:
    fmt = args.get("format", "schema.org")
    async with work_on(app, "recipes_export", args) as work:
        ref, content = await exporting.export_recipe(work, args["recipe"], fmt)
        return {"recipe": ref, "format": fmt, "content": content, **_context(work.session)}


async def recipes_scale(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "recipes_scale", args) as work:
        scaled = await scaling.scale_recipe(work, args["recipe"], args["servings"])
        return {
            "recipe": scaled.ref, "name": scaled.name, "servings": scaled.servings, "from_servings": scaled.from_servings,
            "factor": scaled.factor, "ingredients": scaled.ingredients,
            **({"steps": scaled.steps} if scaled.steps is not None else {}),
            **({"steps_note": scaled.steps_note} if scaled.steps_note else {}), **_context(work.session),
        }


HANDLERS: dict[str, Handler] = {
    "recipes_import": recipes_import,
    "recipes_export": recipes_export,
    "recipes_scale": recipes_scale,
}
