"""Views in a real browser: headless Chromium (Debian's `chromium`, driven by PyPI playwright) loads each
`ui://` view in a test host page that speaks the MCP Apps host protocol (`host.html`), fed by the real
server's tool result over a real MCP client; the view's tool calls go back through that client.

One browser per test package; each test gets a fresh page. Chromium comes from $CHROMIUM or
/usr/bin/chromium; without it the tests skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.extension import advertise
from mcp.server.apps import APP_MIME_TYPE, EXTENSION_ID
from playwright.async_api import async_playwright, expect

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPE_INGREDIENTS, RECIPES
from tests.e2e.conftest import app  # noqa: F401 (the seeded demo kitchen on a fresh SQLite file)

HOST_URL = "http://host.test/host.html"
"""Never resolved: page.route serves host.html at it and aborts every other request."""
HOST_HTML = (Path(__file__).parent / "host.html").read_text(encoding="utf-8")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--font-render-hinting=none"]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "views"
expect.set_options(timeout=15_000)  # generous on a loaded 2-core CI machine; a passing check returns at once
DARK = {
    "--color-background-primary": "#1f1e1d", "--color-background-secondary": "#2a2927", "--color-background-tertiary": "#353330",
    "--color-text-primary": "#f5f4ef", "--color-text-secondary": "#b4afa6", "--color-border-primary": "#45423e",
    "--color-ring-primary": "#8fb1ff", "--font-sans": "'DejaVu Sans', sans-serif", "--border-radius-md": "10px",
}
"""A dark host's theme variables (a subset, as hosts send): the views must take them over their own."""


def apps_client(server: Any, **kwargs: Any) -> Client:
    """A real MCP client that declares the MCP Apps extension, as a host that renders views does."""
    return Client(server, extensions=[advertise(EXTENSION_ID, {"mimeTypes": [APP_MIME_TYPE]})], **kwargs)


def dump(model: Any) -> dict[str, Any]:
    return dict(model.model_dump(by_alias=True, exclude_none=True, mode="json"))


@pytest.fixture(scope="package")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="package")
def chromium() -> str:
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        message = f"Chromium not found at {path}: apt-get install chromium (or set CHROMIUM)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="package")
async def browser(chromium: str) -> AsyncIterator[Any]:
    async with async_playwright() as driver:
        launched = await driver.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        yield launched
        await launched.close()


@dataclass
class Mounted:
    """A view mounted in the test host: what the page shows, and what happened on the way."""

    page: Any
    tool: dict[str, Any]
    result: dict[str, Any]
    requested: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    forwarded: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def view(self) -> Any:
        return self.page.frame_locator("#view")

    async def host_log(self) -> list[str]:
        return list(await self.page.evaluate("testHost.log.map(e => e.dir + ' ' + (e.msg.method || 'response'))"))

    async def host_requests(self) -> list[dict[str, Any]]:
        return list(await self.page.evaluate("testHost.requests"))

    async def screenshot(self) -> bytes:
        """The view's frame as a host shows it (sized by the view's own size-changed notifications)."""
        shot: bytes = await self.page.locator("#view").screenshot()
        return shot

    def assert_clean(self) -> None:
        """No console error, no uncaught exception, and no request beyond the host page itself."""
        assert self.errors == [], self.errors
        assert self.requested == [HOST_URL], self.requested


@pytest.fixture
async def mount(browser: Any) -> AsyncIterator[Any]:
    """`await mount(client, tool, arguments, theme=..., styles=...)`: the tool's view showing its real result."""
    pages: list[Any] = []

    async def mount_view(client: Client, name: str, arguments: dict[str, Any], *, theme: str = "light",
                         styles: dict[str, str] | None = None, width: int = 720, cancelled: bool = False) -> Mounted:
        """`width`: the page's (the host's) width in px; `cancelled`: the host cancels the call instead of sending its result."""
        tools = [dump(tool) for tool in (await client.list_tools()).tools]
        tool = next(tool for tool in tools if tool["name"] == name)
        content = (await client.read_resource(tool["_meta"]["ui"]["resourceUri"])).contents[0]
        assert content.mime_type == APP_MIME_TYPE
        result = dump(await client.call_tool(name, arguments))
        page = await browser.new_page(viewport={"width": width, "height": 900})
        pages.append(page)
        mounted = Mounted(page, tool, result)
        page.on("request", lambda request: mounted.requested.append(request.url))
        page.on("console", lambda message: mounted.errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: mounted.errors.append(str(error)))

        async def route(found: Any) -> None:
            if found.request.url == HOST_URL:
                await found.fulfill(content_type="text/html", body=HOST_HTML)
            else:
                await found.abort()

        async def forward(source: dict[str, Any], method: str, params: dict[str, Any]) -> dict[str, Any]:
            if source["frame"] != page.main_frame:  # bindings reach every frame: only the host may use this one
                raise PermissionError("hostForward called from inside the view")
            mounted.forwarded.append((method, params))
            if method == "tools/call":
                return dump(await client.call_tool(params["name"], params.get("arguments") or {}))
            return dump(await client.read_resource(params["uri"]))

        await page.route("**/*", route)
        await page.expose_binding("hostForward", forward)
        await page.goto(HOST_URL)
        host_context: dict[str, Any] = {"theme": theme, **({"styles": {"variables": styles}} if styles else {})}
        await page.evaluate("options => testHost.mount(options)", {
            "html": content.text, "csp": (content.meta or {}).get("ui", {}).get("csp"), "tool": tool, "tools": tools,
            "toolArguments": arguments, "toolResult": result, "hostContext": host_context, "cancelled": cancelled,
        })
        await page.wait_for_function("testHost.settled")  # so a click cannot land while the frame is still resizing
        return mounted

    yield mount_view
    for page in pages:
        await page.close()


def save_screenshot(shot: bytes, name: str) -> None:
    """Screenshots in docs/views/ are replaced from a test run with ALFRED_UPDATE_SCREENSHOTS=1."""
    assert shot[:8] == b"\x89PNG\r\n\x1a\n" and len(shot) > 2_000
    if os.environ.get("ALFRED_UPDATE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        (SCREENSHOTS / f"{name}.png").write_bytes(shot)


async def add_peanut_noodles(kitchen: AlfredApp) -> None:
    """A recipe holding the demo user's allergen (peanuts), planned for Friday's lunch of the demo week.

    Written through the store, as rows a kitchen may hold from before the allergy was recorded."""
    (recipe,) = await kitchen.store.insert(RECIPES, [{
        "name": "Peanut Noodles", "servings": 2, "prep_time_minutes": 10, "cook_time_minutes": 10, "cuisine": "thai",
        "difficulty": "easy", "instructions": ["Cook the noodles.", "Whisk the peanut butter, soy sauce and lime juice.",
                                               "Toss the noodles in the sauce and top with the peanuts."],
    }], user_id=kitchen.user_id)
    parts = [("rice noodles", 200, "g", None), ("peanut butter", 3, "tbsp", None), ("soy sauce", 2, "tbsp", None),
             ("lime", 1, "piece", "juiced"), ("roasted peanuts", 0.25, "cup", "chopped")]
    await kitchen.store.insert(RECIPE_INGREDIENTS, [
        {"recipe_id": recipe["id"], "position": n, "name": name, "quantity": quantity, "unit": unit, "notes": notes}
        for n, (name, quantity, unit, notes) in enumerate(parts, 1)
    ], user_id=kitchen.user_id)
    await kitchen.store.insert(MEAL_PLANS, [{"date": "2026-01-16", "meal_type": "lunch", "recipe_id": recipe["id"], "servings": 2}],
                           user_id=kitchen.user_id)
