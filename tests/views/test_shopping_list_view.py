"""The shopping list in a real browser: a checklist by store section; ticking a line marks it bought in the
database through shopping_list_check, unticking restores it."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from playwright.async_api import expect

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import SHOPPING_LIST
from alfred_mcp.server.mcp_server import build_server
from tests.e2e.helpers import call

from .conftest import DARK, apps_client, save_screenshot

pytestmark = pytest.mark.anyio


async def _bought(app: AlfredApp, name: str) -> bool:
    where = Where(all_of=(Filter("name", "eq", name),))
    (row,) = await app.store.select(SHOPPING_LIST, Query(where=where), user_id=app.user_id)
    return bool(row["is_purchased"])


async def test_ticking_a_line_marks_it_bought_and_unticking_restores_it(app: AlfredApp, mount: Any) -> None:
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "shopping_list_show", {})
        view = shown.view
        await expect(view.locator("#counts")).to_have_text("9 to buy · 3 bought")
        await expect(view.locator("section h2")).to_have_text(["Produce", "Bakery", "Meat", "Dairy", "Condiments", "Beverages"])
        await expect(view.locator("section").first.locator(".item")).to_have_text(["1 bag arugula", "2 heads baby bok choy", "3 shallots"])
        await expect(view.locator("section").first.locator(".from")).to_have_text(
            ["for a side salad", "for Miso-Glazed Salmon with Bok Choy", "for Mushroom Risotto"])
        await expect(view.get_by_role("checkbox", name=re.compile("flour tortillas"))).to_be_checked()

        shallots = view.get_by_role("checkbox", name=re.compile("3 shallots"))
        await shallots.focus()
        await shown.page.keyboard.press("Space")
        await expect(view.locator("#counts")).to_have_text("8 to buy · 4 bought")
        await expect(view.locator("li.bought", has_text="3 shallots")).to_have_count(1)
        assert await _bought(app, "shallots")
        assert await shallots.evaluate("box => document.activeElement === box")
        listed = await call(client, "shopping_list_show")
        (ref,) = [line["ref"] for s in listed["sections"] for line in s["lines"] if line["name"] == "shallots" and line["bought"]]
        save_screenshot(await shown.screenshot(), "shopping-list-light")

        await shallots.click()
        await expect(view.locator("#counts")).to_have_text("9 to buy · 3 bought")
        await expect(shallots).not_to_be_checked()
        assert not await _bought(app, "shallots")
        await shown.page.evaluate("vars => testHost.setContext({theme: 'dark', styles: {variables: vars}})", DARK)
        save_screenshot(await shown.screenshot(), "shopping-list-dark")
    ticks = [params["arguments"] for method, params in shown.forwarded if params.get("name") == "shopping_list_check"]
    session = shown.result["structuredContent"]["session"]
    assert ticks == [{"items": [ref], "bought": True, "session": session}, {"items": [ref], "bought": False, "session": session}]
    shown.assert_clean()


async def test_a_refused_tick_is_shown_and_the_line_stays_open(app: AlfredApp, mount: Any) -> None:
    """Under --read-only shopping_list_check is refused; the box springs back and the view says why."""
    app.settings = replace(app.settings, read_only=True)
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "shopping_list_show", {})
        shallots = shown.view.get_by_role("checkbox", name=re.compile("3 shallots"))
        await shallots.click()
        await expect(shown.view.get_by_role("alert")).to_have_text(
            "shopping_list_check is not available: this server is read-only (--read-only).")
        await expect(shallots).not_to_be_checked()
        await expect(shown.view.locator("#counts")).to_have_text("9 to buy · 3 bought")
    assert not await _bought(app, "shallots")
    shown.assert_clean()


async def test_fresh_produce_and_cans_are_listed_as_the_shop_sells_them(app: AlfredApp, mount: Any) -> None:
    """A recipe's spoons of thyme and ginger, an ounce of mushrooms and 28 oz of crushed tomatoes, listed and shown:
    a person reads what to take from the shelf and the amount needed after it."""
    async with apps_client(build_server(app)) as client:
        created = await call(client, "db_create", table="recipes", data={"name": "Quux Ragu", "servings": 4, "instructions": ["Simmer."]})
        ref = str(created["rows"][0]["id"])
        await call(client, "db_create", table="recipe_ingredients", data=[
            {"recipe_id": ref, "position": 1, "name": "quux thyme", "quantity": 0.75, "unit": "tsp"},
            {"recipe_id": ref, "position": 2, "name": "quux fresh ginger", "quantity": 1.5, "unit": "tsp"},
            {"recipe_id": ref, "position": 3, "name": "quux cremini mushrooms", "quantity": 1, "unit": "oz"},
            {"recipe_id": ref, "position": 4, "name": "quux crushed tomatoes", "quantity": 28, "unit": "oz"}])
        await call(client, "shopping_list_from", recipes=[ref])
        shown = await mount(client, "shopping_list_show", {})
        items = shown.view.locator(".item")
        for text in ("1 bunch quux thyme (need 3/4 tsp)", "1 piece quux fresh ginger (need 1 1/2 tsp)",
                     "1 pack quux cremini mushrooms (need 1 oz)", "2 cans quux crushed tomatoes (need 1 3/4 lb)"):
            await expect(items.filter(has_text=text)).to_have_count(1)
        shown.assert_clean()


async def test_ticking_a_line_short_of_the_pantry_says_what_the_pantry_holds_now(app: AlfredApp, mount: Any) -> None:
    """The cook's QA: ticking '1 lemon (the pantry has 3)' said 'Bought: 1 lemon (the pantry has 3).', the note of when
    it was listed; the status says what was bought and what the pantry holds now, and unticking what it holds then."""
    async with apps_client(build_server(app)) as client:
        await call(client, "shopping_list_from", meal_plans={"from": "2026-01-12", "to": "2026-01-18"})
        listed = await call(client, "shopping_list_show")
        short = [line for section in listed["sections"] for line in section["lines"]
                 if "(short " in line["text"] and "the pantry has" in line["text"] and not line["bought"]]
        assert short, "the demo week lists some line short of the pantry"
        line = short[0]
        shown = await mount(client, "shopping_list_show", {})
        await shown.view.get_by_role("checkbox", name=re.compile(re.escape(line["text"]))).click()
        bought = line["text"].split(" (")[0]
        await expect(shown.view.locator("#status")).to_have_text(re.compile(rf"^Bought {re.escape(bought)}; the pantry now has .+\.$"))
        await shown.view.get_by_role("checkbox", name=re.compile(re.escape(line["text"]))).click()
        await expect(shown.view.locator("#status")).to_have_text(re.compile(rf"^Back on the list: {re.escape(bought)}(;.*)?\.$"))
        shown.assert_clean()


async def test_a_line_only_for_a_meal_since_cooked_is_marked_and_stays(app: AlfredApp, mount: Any) -> None:
    """The demo's bok choy is listed for the salmon; once the salmon's meal is cooked, the line says it was for a meal
    already cooked (quietly, as a badge) and is still there to delete or keep; the other lines say nothing."""
    async with apps_client(build_server(app)) as client:
        week = await call(client, "meal_plan_show", **{"from": "2026-01-12", "to": "2026-01-18"})
        (salmon,) = [meal["ref"] for meal in week["meals"] if meal["name"] == "Miso-Glazed Salmon with Bok Choy"]
        cooked = await call(client, "meal_cooked", meal=salmon)
        assert [said.split(" ", 1)[1] for said in cooked["still_listed"]] == ["2 heads baby bok choy"]
        shown = await mount(client, "shopping_list_show", {})
        view = shown.view
        await expect(view.locator("#counts")).to_have_text("9 to buy · 3 bought")
        await expect(view.locator("li .badge.cooked")).to_have_count(1)
        await expect(view.locator("li", has_text="baby bok choy").locator(".badge.cooked")).to_have_text("for a meal already cooked")
        save_screenshot(await shown.screenshot(), "shopping-list-cooked")
        shown.assert_clean()
