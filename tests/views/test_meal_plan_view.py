"""The week's plan in a real browser: days as columns, meal types as rows, conflicts marked, and the button
that puts the shown range on the shopping list through shopping_list_from."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from playwright.async_api import expect

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import SHOPPING_LIST
from alfred_mcp.server.mcp_server import build_server

from .conftest import DARK, add_peanut_noodles, apps_client, save_screenshot

pytestmark = pytest.mark.anyio
WEEK = {"from": "2026-01-12", "to": "2026-01-18"}
DINNERS = ["Miso-Glazed Salmon with Bok Choy", "Greek Lemon Chicken and Potatoes", "Chicken Fajitas", "Mushroom Risotto",
           "takeout night", "Spaghetti Carbonara", "Lemon Garlic Baked Cod"]


async def _shopping_lines(app: AlfredApp) -> list[dict[str, Any]]:
    return await app.store.select(SHOPPING_LIST, Query(limit=1_000), user_id=app.user_id)


async def test_the_plan_shows_days_as_columns_meal_types_as_rows_and_marks_the_conflict(app: AlfredApp, mount: Any) -> None:
    await add_peanut_noodles(app)
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "meal_plan_show", WEEK)
        view = shown.view
        await expect(view.locator("#range")).to_have_text("Mon Jan 12 to Sun Jan 18 · 11 meals")
        await expect(view.locator("thead th .date")).to_have_text([f"Jan {day}" for day in range(12, 19)])
        await expect(view.locator("tbody th")).to_have_text(["Breakfast", "Lunch", "Dinner"])
        await expect(view.locator("tbody tr").nth(2).locator("td")).to_have_text([re.compile(re.escape(dish)) for dish in DINNERS])
        takeout = view.locator("tbody tr").nth(2).locator("td").nth(4)  # no recipe: what it is first, then servings
        await expect(takeout.locator(".meal > span").first).to_have_text("takeout night")
        await expect(takeout.locator(".meal > span").first).to_have_class("dish")
        lunch = view.locator("tbody tr").nth(1).locator("td")
        await expect(lunch).to_have_text(["", "", re.compile("leftover Greek chicken"), re.compile("Red Lentil Soup"),
                                          re.compile("Peanut Noodles.*⚠ peanuts"), "", ""])
        await expect(lunch.nth(4)).to_have_class("conflict")
        await expect(view.locator("td.conflict")).to_have_count(1)
        greek = view.locator("tbody tr").nth(2).locator("td").nth(1)  # optional olives, disliked: what to skip, quietly
        await expect(greek.locator(".mark")).to_have_text(["skip olives"])
        await expect(greek.locator(".mark")).to_have_class(["mark skip"])
        await expect(view.locator("td.caution")).to_have_count(0)
        await expect(view.locator("#conflict-list li")).to_have_text(
            ["Tue Jan 13 dinner: Greek Lemon Chicken and Potatoes — leave out the optional Kalamata olives (you don't like olives)",
             "⚠ Fri Jan 16 lunch: Peanut Noodles — contains peanut butter, roasted peanuts (allergy: peanuts)"])
        save_screenshot(await shown.screenshot(), "meal-plan-light")
        await shown.page.evaluate("vars => testHost.setContext({theme: 'dark', styles: {variables: vars}})", DARK)
        color = await view.locator("h1").evaluate("h => getComputedStyle(h).color")
        assert color == "rgb(245, 244, 239)"
        save_screenshot(await shown.screenshot(), "meal-plan-dark")
        shown.assert_clean()


async def test_the_button_puts_the_shown_range_on_the_shopping_list(app: AlfredApp, mount: Any) -> None:
    """From the keyboard: the button previews the shown range (preview: true), Enter on "Add N lines" adds it."""
    before = await _shopping_lines(app)
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "meal_plan_show", WEEK)
        button = shown.view.get_by_role("button", name=re.compile("^Add .* to the shopping list$"))
        await button.focus()
        await shown.page.keyboard.press("Enter")
        confirm = shown.view.get_by_role("button", name=re.compile(r"^Add \d+ lines(?: and top up \d+)?$"))
        await confirm.focus()
        await shown.page.keyboard.press("Enter")
        await expect(shown.view.get_by_role("status")).to_have_text(re.compile(r"^Added \d+ lines\b"))
    session = shown.result["structuredContent"]["session"]
    calls = [params for method, params in shown.forwarded if method == "tools/call"]
    assert calls == [{"name": "shopping_list_from", "arguments": {"meal_plans": WEEK, "preview": True, "session": session}},
                     {"name": "shopping_list_from", "arguments": {"meal_plans": WEEK, "session": session}}]
    after = await _shopping_lines(app)
    added = [row["name"] for row in after if row["id"] not in {old["id"] for old in before}]
    assert added and len(after) > len(before)
    status = await shown.view.get_by_role("status").text_content()
    assert status is not None and status.startswith(f"Added {len(added)} lines")
    shown.assert_clean()


async def test_a_refused_shopping_list_from_is_shown_and_changes_nothing(app: AlfredApp, mount: Any) -> None:
    """Under --read-only the view's button meets the server's refusal, and the view shows it."""
    app.settings = replace(app.settings, read_only=True)
    before = await _shopping_lines(app)
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "meal_plan_show", WEEK)
        await shown.view.get_by_role("button", name=re.compile("^Add .* to the shopping list$")).click()
        await expect(shown.view.get_by_role("alert")).to_have_text(
            "This kitchen is read-only: nothing can be added to the shopping list.")
    assert await _shopping_lines(app) == before
    shown.assert_clean()


@pytest.mark.parametrize("width", [400, 1000])
@pytest.mark.parametrize("cooked", ["two", "all"])
async def test_a_cooked_meal_reads_as_done_and_the_button_counts_only_what_is_left(
    app: AlfredApp, mount: Any, width: int, cooked: str,
) -> None:
    """Meals meal_cooked logged are marked "✓ Cooked" in the layout shown (table or stacked days), the range says how
    many, and "Add to shopping list" counts only the meals left to cook; with every one cooked it is off and says why."""
    async with apps_client(build_server(app)) as client:
        plan = (await client.call_tool("meal_plan_show", WEEK)).structured_content or {}
        with_recipe = [meal["ref"] for meal in plan["meals"] if meal["recipe"]]
        done = with_recipe[:2] if cooked == "two" else with_recipe
        for ref in done:
            assert not (await client.call_tool("meal_cooked", {"meal": ref})).is_error
        shown = await mount(client, "meal_plan_show", WEEK, width=width)
        view = shown.view
        await expect(view.locator("#range")).to_have_text(f"Mon Jan 12 to Sun Jan 18 · {len(plan['meals'])} meals ({len(done)} cooked)")
        await expect(view.locator(".meal.cooked:visible")).to_have_count(len(done))
        await expect(view.locator(".meal.cooked:visible .done")).to_have_text(["✓ Cooked"] * len(done))
        await expect(view.locator(".meal:not(.cooked):visible .done")).to_have_count(0)
        left = len(with_recipe) - len(done)
        button = view.locator("#shop")
        if left:
            await expect(button).to_have_text(f"Add {left} meals to the shopping list")
            await expect(button).to_be_enabled()
        else:
            await expect(button).to_have_text("All cooked: nothing to shop for")
            await expect(button).to_be_disabled()
        shown.assert_clean()
