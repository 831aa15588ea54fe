"""shopping_list_from's card in a turn says the lines already bought apart from those still to buy: a recipe whose
lines are all bought is reported as bought, never as 'already on the list'. Through the real client, the call run as
a step's `call` sent ahead, generated over seeded recipes."""

from __future__ import annotations

import re

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.agent.act_tools import NAMES_SHOWN
from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server

from .scripts import plan, step

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("recipe", [f"recipe_{n}" for n in range(1, 12)])
async def test_lines_bought_already_are_said_apart_from_lines_still_to_buy(app: AlfredApp, recipe: str) -> None:
    async with Client(build_server(app)) as client:
        await call(client, "session_start")
        await call(client, "db_read", table="recipes", limit=20)
        first = await call(client, "shopping_list_from", recipes=[recipe])
        bought = [line["ref"] for line in first["lines"]]
        names = [line["name"] for line in first["lines"]]
        if not bought:  # the pantry covers it: nothing to buy, so nothing bought to say apart
            assert first["added"] == 0 and "Nothing added" in first["message"]
            return
        await call(client, "db_update", table="shopping_list", filters=[{"field": "id", "op": "in", "value": bought}],
                   data={"is_purchased": True})
        writes = step("write", "Put the recipe on the shopping list", "shopping", call={"tool": "shopping_list_from",
                                                                                        "arguments": {"recipes": [recipe]}})
        answer = await call(client, "turn_start", message="Shop for it", then=[
            {"role": "understand", "output": {"referenced_refs": [recipe]}},
            {"role": "think", "output": plan("Shop for the recipe", writes)}])
    notice = answer.get("notice") or ""
    said = notice.split("bought already, not on the list to buy (not added again): ", 1)
    assert len(said) == 2, notice
    listed = said[1].split("; ", 1)[0]
    count = int(said[0].rsplit(": ", 1)[1])
    shown = listed.removesuffix(f" and {count - NAMES_SHOWN} more").split(", ")
    assert count >= len(names) and len(shown) == min(count, NAMES_SHOWN), (names, listed)
    assert count > NAMES_SHOWN or all(name in listed for name in names), (names, listed)
    assert not re.search(r"already_listed[^\n]*\bbought\b", notice), notice
    assert '"note":"bought already"' not in notice and "bought already\"" not in notice, notice
