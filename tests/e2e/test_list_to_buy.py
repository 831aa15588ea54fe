"""The shopping list as a shopper uses it, through the real client: shopping_list_show with `to_buy` shows only the lines
still to buy (the counts stay the whole list's), and a line with no amount ticked bought stocks nothing, which the
result says as a fact a person reads (round 9: only the notice said it, and a reply claiming the pantry got it passed)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from alfred_mcp.state.note_facts import fact_sentence, note_text

from .helpers import call

pytestmark = pytest.mark.anyio
WEEK = {"from": "2026-01-12", "to": "2026-01-18"}


def _shown(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [line for section in result["sections"] for line in section["lines"]]


@pytest.mark.parametrize("ticked", [0, 1, 3])
async def test_to_buy_shows_every_open_line_and_no_bought_one(client: Client, ticked: int) -> None:
    await call(client, "shopping_list_from", meal_plans=WEEK)
    every = _shown(await call(client, "shopping_list_show"))
    assert len(every) > ticked
    bought = [line["ref"] for line in every if not line["bought"]][:ticked]
    if bought:
        await call(client, "shopping_list_check", items=bought, bought=True)
    whole = await call(client, "shopping_list_show")
    left = await call(client, "shopping_list_show", to_buy=True)
    assert [line["ref"] for line in _shown(left)] == [line["ref"] for line in _shown(whole) if not line["bought"]]
    assert (left["open"], left["bought"]) == (whole["open"], whole["bought"]) == (len(_shown(left)), len(_shown(whole)) - len(_shown(left)))
    assert not any(section["lines"] == [] for section in left["sections"]), left


async def test_to_buy_that_is_not_a_boolean_is_refused_naming_it(client: Client) -> None:
    refused = await client.call_tool("shopping_list_show", {"to_buy": "yes"})
    assert refused.is_error and "to_buy" in str(refused.content), refused


@pytest.mark.parametrize("names", [["eggs"], ["eggs", "oat milk", "basil"]])
async def test_a_line_with_no_amount_ticked_stocks_nothing_and_the_result_says_so_as_a_fact(client: Client, names: list[str]) -> None:
    before = (await call(client, "db_read", table="inventory", limit=500))["rows"]
    lines = (await call(client, "db_create", table="shopping_list", data=[{"name": f"yuzu {name}"} for name in names]))["rows"]
    ticked = await call(client, "shopping_list_check", items=[line["id"] for line in lines], bought=True)
    assert (await call(client, "db_read", table="inventory", limit=500))["rows"] == before
    fact = {"kind": "nothing_stocked", "names": [f"yuzu {name}" for name in names]}
    assert note_text(fact) in ticked["notes"] and "note_facts" not in ticked, ticked  # the fact stays with the account
    said = fact_sentence(fact, lambda ref: None)
    assert said is not None and "nothing was added to your pantry" in said and all(f"yuzu {name}" in said.lower() for name in names), said


async def test_a_line_with_an_amount_ticked_gives_no_such_fact(client: Client) -> None:
    (line,) = (await call(client, "db_create", table="shopping_list", data=[{"name": "yuzu", "quantity": 2}]))["rows"]
    ticked = await call(client, "shopping_list_check", items=[line["id"]], bought=True)
    assert ticked["stocked"] and not any("nothing was put in the pantry" in note for note in ticked.get("notes", ())), ticked
