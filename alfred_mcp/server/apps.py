"""MCP Apps (`io.modelcontextprotocol/ui`): the `ui://alfred/*.html` views and who is offered them.

The SDK's `Apps` extension serves the views as resources (`text/html;profile=mcp-app`, empty CSP
domains: nothing outside the document) and advertises the extension in the server's capabilities.
Its `@apps.tool` is not used: AlfredServer lists and calls the published contracts itself, and a
contract names its view in `_meta.ui`. What a client sees depends on what it declared, request by
request (the 2025-11-25 handshake or the 2026-07-28 per-request capabilities): `AppsClientMiddleware`
records it, and a client that did not declare the extension gets no `_meta.ui`, no `ui://` resource
in resources/list and no view-only tool in tools/list, only the text and structured results every tool gives.

The views are single documents: `alfred_mcp/views/<view>.html` with `base.css` and the hand-written
host bridge `bridge.js` inlined where the template says `/*INLINE:<file>*/`.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from mcp.server.apps import EXTENSION_ID, Apps, ResourceCsp, client_supports_apps
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.types import ServerCapabilities

from alfred_mcp.contracts import ToolContract

VIEW_DIR = Path(__file__).resolve().parents[1] / "views"
MAX_VIEW_BYTES = 150_000
_INLINE = re.compile(r"/\*INLINE:([a-z.-]+)\*/")


@dataclass(frozen=True)
class View:
    """One `ui://` view: its template file and how it is listed."""

    uri: str
    file: str
    title: str
    description: str


VIEWS: tuple[View, ...] = (
    View("ui://alfred/recipe.html", "recipe.html", "Recipe card",
         "A recipe to cook from: servings control, ingredients with allergens marked, numbered steps."),
    View("ui://alfred/meal-plan.html", "meal-plan.html", "Meal plan",
         "Days as columns, meal types as rows, conflicts marked; adds the shown range to the shopping list."),
    View("ui://alfred/shopping-list.html", "shopping-list.html", "Shopping list",
         "A checklist by store section; ticking a line marks it bought."),
)

_declared: ContextVar[bool] = ContextVar("alfred_mcp_client_declared_apps", default=False)


@cache
def render_view(file: str) -> str:
    """The view as served: its template with every `/*INLINE:<file>*/` replaced by that file's text.

    Raises:
        FileNotFoundError: a view or an inlined part is missing from the package.
    """
    template = (VIEW_DIR / file).read_text(encoding="utf-8")
    return _INLINE.sub(lambda found: (VIEW_DIR / found.group(1)).read_text(encoding="utf-8"), template)


def build_apps() -> Apps:
    """The Apps extension with every view registered (no external origin allowed: empty CSP domains)."""
    apps = Apps()
    for view in VIEWS:
        apps.add_html_resource(view.uri, render_view(view.file), name=view.file.removesuffix(".html"), title=view.title,
                               description=view.description, csp=ResourceCsp(), prefers_border=True)
    return apps


class AppsClientMiddleware:
    """Records, for the handlers of this request, whether its client declared the MCP Apps extension."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        token = _declared.set(client_supports_apps(ctx))
        try:
            return await call_next(ctx)
        finally:
            _declared.reset(token)


def client_declared_apps() -> bool:
    """True while serving a request whose client declared `io.modelcontextprotocol/ui` (never with --no-ui)."""
    return _declared.get()


def listed_meta(contract: ToolContract) -> dict[str, Any] | None:
    """The `_meta` a tool is listed with: its view link (`ui`) for a client that renders views, nothing otherwise.
    The contract's other `_meta` keys (`alfred/step`: which Act steps may call it) are the server's own."""
    ui = (contract.meta or {}).get("ui")
    return {"ui": ui} if ui is not None and client_declared_apps() else None


def capabilities_for_client(capabilities: ServerCapabilities, ctx: ServerRequestContext[Any, Any]) -> ServerCapabilities:
    """The server's capabilities as advertised to this client: the MCP Apps entry only if the client declared it."""
    extensions = capabilities.extensions or {}
    if EXTENSION_ID not in extensions or client_supports_apps(ctx):
        return capabilities
    others = {name: settings for name, settings in extensions.items() if name != EXTENSION_ID}
    return capabilities.model_copy(update={"extensions": others or None})


def is_view_uri(uri: object) -> bool:
    return str(uri).startswith("ui://")
