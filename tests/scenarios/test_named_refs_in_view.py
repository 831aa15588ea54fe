"""Refs Understand names (referenced_refs) are in view for Think and Act, even one the model only saw in the background
or the dashboard (known, not read): no "None in view yet" beside the refs it named. Through the real client, sent
ahead on the stage listing, generated over every background ref of a first turn."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server

from .scripts import plan, step

pytestmark = pytest.mark.anyio
MESSAGE = "Make a shopping list for this week's meals."


def _background_refs(context: str) -> list[str]:
    return re.findall(r"^- ([a-z]+_\d+): ", context.split("### Background", 1)[1].split("\n## ", 1)[0], flags=re.M)


def _in_view(context: str) -> str:
    return context.split("## Entities in context", 1)[1].split("\n## ", 1)[0]


async def test_every_ref_understand_names_is_in_view_for_think_and_act(app: AlfredApp) -> None:
    app.settings = replace(app.settings, listed=("stages",))
    async with Client(build_server(app)) as client:
        await call(client, "session_start")
        refs = _background_refs((await call(client, "turn_start", message=MESSAGE))["next"]["context"])
        await call(client, "turn_abandon")
    assert len(refs) >= 3
    for ref in refs:
        async with Client(build_server(app)) as client:
            await call(client, "session_start")
            await call(client, "turn_start", message=MESSAGE)
            think = await call(client, "turn_submit", role="understand", output={"referenced_refs": [ref]})
            act = await call(client, "turn_submit", role="think",
                             output=plan("Shop for the week", step("read", "Read the week's meals", "meal_plans")))
            full = await call(client, "turn_context", full=True)
        assert act["expected_role"] == "act"
        for context in (think["next"]["context"], full["context"]):
            entities = _in_view(context)
            assert re.search(rf"^- {ref}\b", entities, flags=re.M) and "None in view yet" not in entities, (ref, entities)
