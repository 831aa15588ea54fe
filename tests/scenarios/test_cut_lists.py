"""A list a result cuts says it is cut and how to get the rest: meal_plan_show's range is a cut of the plan, so it
counts the meals planned past its end and names the call that shows them. Through the real client on a seeded
kitchen, generated over ranges ending on every day the seeded plan spans."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server

pytestmark = pytest.mark.anyio


async def test_a_meal_plan_range_says_how_many_meals_lie_past_it_and_how_to_see_them(app: AlfredApp) -> None:
    async with Client(build_server(app)) as client:
        rows = (await call(client, "db_read", table="meal_plans", columns=["date"], limit=500))["rows"]
        dates = sorted(date.fromisoformat(row["date"]) for row in rows)
        assert len(set(dates)) > 3, "the seeded plan spans several days"
        for end in sorted(set(dates))[:-1] + [dates[-1]]:
            start = max(dates[0], end - timedelta(days=6))
            result = await client.call_tool("meal_plan_show", {"from": start.isoformat(), "to": end.isoformat()})
            plan, text = result.structured_content or {}, result.content[0].text  # type: ignore[union-attr]
            past = sum(1 for day in dates if day > end)
            assert plan.get("planned_after", 0) == past, (end, plan.get("planned_after"), past)
            marker = f"planned after {end.strftime('%a %b')} {end.day}: meal_plan_show from {end + timedelta(days=1)} shows them)"
            assert (marker in text) == (past > 0), (end, text.splitlines()[-1])
            if past:
                later = await call(client, "meal_plan_show", **{"from": (end + timedelta(days=1)).isoformat(),
                                                               "to": min(dates[-1], end + timedelta(days=27)).isoformat()})
                assert len(later["meals"]) + later.get("planned_after", 0) == past


async def test_the_background_meals_say_how_many_more_are_planned_and_how_to_see_them(app: AlfredApp) -> None:
    """Understand's background lists a few upcoming meals; the last says how many more are planned from today, which
    is every upcoming meal the kitchen holds less those listed."""
    async with Client(build_server(app)) as client:
        await call(client, "session_start")
        context = (await call(client, "turn_start", message="What's planned?"))["next"]["context"]
        upcoming = (await call(client, "db_read", table="meal_plans", columns=["date"], limit=500,
                               filters=[{"field": "date", "op": "gte", "value": date.today().isoformat()}]))["count"]
    background = context.split("### Background", 1)[1].split("\n## ", 1)[0]
    planned = [line for line in background.splitlines() if " — planned: " in line]
    assert planned and upcoming > len(planned)
    assert planned[-1].endswith(f"(+{upcoming - len(planned)} more planned after it: meal_plan_show or db_read meal_plans shows them)")
    assert all("more planned" not in line for line in planned[:-1])
