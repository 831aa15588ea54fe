"""The test host isolates a view as hosts do, so "no request left the page" in the view tests means something:
a view that reaches for another origin is blocked by the CSP built from its empty `_meta.ui.csp` before the
request reaches the network, and the attempt shows up as a console error (and, in DevTools' request events,
as a request blocked by CSP: the view tests therefore require no request event at all)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import HOST_HTML, HOST_URL

pytestmark = pytest.mark.anyio
LEAKY = """<!doctype html><html><head></head><body><script>
new Image().src = "https://cdn.example.com/x.png";
fetch("https://api.example.com/data").catch((e) => { document.body.dataset.failed = e.message; });
</script></body></html>"""
"""Reaches out at run time: a resource written in the markup could be fetched by Chromium's preload scanner
before the host's CSP meta applies (the views have no URL in their markup at all: tests/e2e/test_views.py)."""


async def test_a_view_reaching_for_another_origin_is_blocked_and_seen(browser: Any) -> None:
    page = await browser.new_page()
    routed: list[str] = []
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))

    async def route(found: Any) -> None:
        routed.append(found.request.url)
        await (found.fulfill(content_type="text/html", body=HOST_HTML) if found.request.url == HOST_URL else found.abort())

    await page.route("**/*", route)
    await page.goto(HOST_URL)
    await page.evaluate("o => testHost.mount(o)", {"html": LEAKY, "csp": {}, "tool": {"name": "leaky"}, "hostContext": {}})
    await page.frame_locator("#view").locator("body[data-failed]").wait_for(state="attached")
    await page.close()
    assert routed == [HOST_URL], console
    blocked = [line for line in console if "violates the following Content Security Policy" in line]
    assert any('"img-src' in line for line in blocked) and any('"connect-src' in line for line in blocked), console
