"""Top-ups over servings changes in the demo week: what a topped-up line says it adds is what its shown amount grew
by, a line whose shown amount does not change is not reported as topped up, and a line names each use once."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from alfred_mcp.kitchen.measures import convert, dimension
from alfred_mcp.kitchen.shopping_lines import parsed_amount, source_entries

from .helpers import call, eq

pytestmark = pytest.mark.anyio
WEEK = {"from": "2026-01-12", "to": "2026-01-18"}


def _shown(text: str, name: str) -> tuple[float, str | None] | None:
    """The amount a line's text shows before its name: '1 1/2 tbsp black pepper' -> (1.5, 'tbsp')."""
    at = text.find(name.split(" ")[0][:-1] if name.endswith("s") else name.split(" ")[0])
    return parsed_amount(text[:at].strip()) if at > 0 else None


@pytest.mark.parametrize("more", [1, 2, 3])
async def test_raising_the_servings_of_the_weeks_meals_tops_up_by_what_the_lines_show(client: Client, more: int) -> None:
    """List the week, raise every planned recipe's servings by `more`, list it again: each topped-up line's `adds` is
    its shown amount now less its shown amount before (same unit kind), never a line that shows the same amount; a
    third listing adds nothing; every line's source names each use once."""
    await call(client, "shopping_list_from", meal_plans=WEEK)
    meals = [meal for meal in (await call(client, "db_read", table="meal_plans", limit=100))["rows"] if meal.get("recipe_id")]
    for meal in meals:
        await call(client, "db_update", table="meal_plans", filters=[eq("id", meal["id"])],
                   data={"servings": int(meal.get("servings") or 1) + more})
    preview = await call(client, "shopping_list_from", meal_plans=WEEK, preview=True)
    topped = [line for line in preview["lines"] if line["action"] == "updated"]
    assert topped, "more servings of every meal tops some line up"
    checked = 0
    for line in topped:
        assert line["was"] != line["text"] and line["adds"], line
        was, now, adds = _shown(line["was"], line["name"]), _shown(line["text"], line["name"]), parsed_amount(line["adds"])
        if was is None or now is None or adds is None or not dimension(was[1]) == dimension(now[1]) == dimension(adds[1]):
            continue
        assert was != now, line
        assert abs(convert(was[0], was[1], now[1]) + convert(adds[0], adds[1], now[1]) - now[0]) < 1e-6, line
        checked += 1
    assert checked, [(line["was"], line["text"], line["adds"]) for line in topped]
    added = await call(client, "shopping_list_from", meal_plans=WEEK)
    assert [line["text"] for line in added["lines"]] == [line["text"] for line in preview["lines"]]
    again = await call(client, "shopping_list_from", meal_plans=WEEK)
    assert again["lines"] == [], "listed for these servings, the week adds nothing more"
    rows: list[dict[str, Any]] = (await call(client, "db_read", table="shopping_list", limit=500))["rows"]
    for row in rows:
        identities = [entry.identity for entry in source_entries(row.get("source"))]
        assert len(identities) == len(set(identities)), row["source"]


async def _list_texts(client: Client) -> dict[str, str]:
    shown = (await call(client, "shopping_list_show"))["sections"]
    return {line["name"]: line["text"] for section in shown for line in section["lines"]}


@pytest.mark.parametrize(("first", "then"), [(10, 12), (2, 3), (5, 7), (6, 9), (3, 11)])
async def test_a_recipe_listed_again_for_more_servings_reads_as_if_listed_once_for_them(
        client: Client, first: int, then: int) -> None:
    """Cook's QA 2 G2: carbonara for 10 then for 12 read '4 eggs' where listing it once for 12 gives 2 (12 eggs with the
    yolks, less the pantry's 10). For every demo recipe, listed for `first` then for `then` servings on an empty list,
    each line reads as listing it once for `then` does (its preview before anything was written)."""
    recipes = (await call(client, "db_read", table="recipes", columns=["name", "servings"], limit=100))["rows"]
    assert len(recipes) >= 10
    differ = {}
    for recipe in recipes:
        await call(client, "db_delete", table="shopping_list", all=True)
        ref = recipe["id"]
        once = await call(client, "shopping_list_from", recipes=[ref], servings={ref: then}, preview=True)
        await call(client, "shopping_list_from", recipes=[ref], servings={ref: first})
        await call(client, "shopping_list_from", recipes=[ref], servings={ref: then})
        now = await _list_texts(client)
        wrong = {line["name"]: (line["text"], now.get(line["name"])) for line in once["lines"] if now.get(line["name"]) != line["text"]}
        if wrong or len(now) != len(once["lines"]):
            differ[recipe["name"]] = (wrong, sorted(set(now) - {line["name"] for line in once["lines"]}))
    assert differ == {}
