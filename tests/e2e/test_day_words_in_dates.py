"""Every date argument takes day words ('today', 'friday', 'this week') as well as YYYY-MM-DD, resolved on the server's
clock: a session's first turn has not told its model the date. The same call with the words and with the dates they
name answers alike; a word that names no day is refused naming its argument, changing nothing. (Real client, real
SQLite, the demo kitchen, the clock on its day.)"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.day_words import WEEKDAYS
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import MEAL_PLANS

from .helpers import call, call_error

pytestmark = pytest.mark.anyio


def _days(first: str, last: str) -> tuple[str, str]:
    """The days `first`..`last` name today (last: a span's end)."""
    today = date.today()
    words = {"today": today, "tomorrow": today + timedelta(days=1), "this week": today,
             **{name: today + timedelta(days=(index - today.weekday()) % 7) for index, name in enumerate(WEEKDAYS)}}
    return words[first].isoformat(), (today + timedelta(days=6) if last == "this week" else words[last]).isoformat()


SPANS = [("today", "this week"), ("this week", "this week"), ("tomorrow", "friday"), ("monday", "sunday")]


@pytest.mark.parametrize(("first", "last"), SPANS)
async def test_the_meal_plan_shows_the_days_the_words_name(client: Client, first: str, last: str) -> None:
    start, end = _days(first, last)  # the clock is on a Monday: every span runs forwards
    said = await call(client, "meal_plan_show", **{"from": first, "to": last})
    dated = await call(client, "meal_plan_show", **{"from": start, "to": end})
    assert (said["from"], said["to"]) == (start, end) and said["days"] == dated["days"]


@pytest.mark.parametrize(("first", "last"), SPANS[:2])
async def test_a_shopping_preview_of_the_weeks_meals_takes_the_words(client: Client, first: str, last: str) -> None:
    start, end = _days(first, last)
    said = await call(client, "shopping_list_from", meal_plans={"from": first, "to": last}, preview=True)
    dated = await call(client, "shopping_list_from", meal_plans={"from": start, "to": end}, preview=True)
    assert said["lines"] == dated["lines"] and said["lines"]


@pytest.mark.parametrize("op", ["gte", "lte", "eq", "in"])
async def test_a_read_filtered_on_a_date_takes_the_words(client: Client, op: str) -> None:
    value: Any = ["today", "tomorrow"] if op == "in" else "this week"
    start, end = _days("this week", "this week")
    dated: Any = [start, _days("tomorrow", "tomorrow")[0]] if op == "in" else end if op == "lte" else start
    said = await call(client, "db_read", table="meal_plans", filters=[{"field": "date", "op": op, "value": value}])
    plain = await call(client, "db_read", table="meal_plans", filters=[{"field": "date", "op": op, "value": dated}])
    assert said["rows"] == plain["rows"]


async def test_a_meal_planned_for_a_weekday_is_stored_on_its_date(client: Client, app: AlfredApp) -> None:
    created = await call(client, "db_create", table="meal_plans", data={"date": "Friday", "meal_type": "snack"})
    assert created["rows"][0]["date"] == _days("friday", "friday")[0]
    updated = await call(client, "db_update", table="meal_plans", filters=[{"field": "id", "op": "eq", "value": created["rows"][0]["id"]}],
                         data={"date": "tomorrow"})
    assert updated["rows"][0]["date"] == _days("tomorrow", "tomorrow")[0]


@pytest.mark.parametrize(("tool", "arguments", "field"), [
    ("meal_plan_show", {"from": "someday"}, "from"),
    ("meal_plan_show", {"to": "last month"}, "to"),
    ("shopping_list_from", {"meal_plans": {"from": "today", "to": "soon"}}, "meal_plans.to"),
    ("db_create", {"table": "meal_plans", "data": {"date": "the day after", "meal_type": "dinner"}}, "date"),
])
async def test_a_word_that_names_no_day_is_refused_naming_its_argument(
    client: Client, app: AlfredApp, tool: str, arguments: dict[str, Any], field: str,
) -> None:
    before = await app.store.select(MEAL_PLANS, Query(limit=500), user_id=app.user_id)
    error = await call_error(client, tool, **arguments)
    assert error["field"] == field and "today, tomorrow, a weekday" in error["message"], error
    assert await app.store.select(MEAL_PLANS, Query(limit=500), user_id=app.user_id) == before


async def test_a_meal_or_task_drafted_for_a_day_word_holds_its_date(client: Client) -> None:
    (meal,) = (await call(client, "draft_create", entity_type="meal", items=[{"date": "friday", "meal_type": "dinner"}]))["drafts"]
    (task,) = (await call(client, "draft_create", entity_type="task", items=[{"title": "Thaw the cod", "due_date": "tomorrow"}]))["drafts"]
    revised = (await call(client, "draft_revise", ref=meal["ref"], patch={"date": "this week"}))["draft"]
    read = {draft["ref"]: draft["content"] for draft in (await call(client, "draft_read", refs=[meal["ref"], task["ref"]]))["drafts"]}
    assert read[task["ref"]]["due_date"] == _days("tomorrow", "tomorrow")[0]
    assert read[meal["ref"]]["date"] == _days("today", "today")[0] and revised["ref"] == meal["ref"]
