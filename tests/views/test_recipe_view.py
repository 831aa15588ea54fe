"""The recipe card in a real browser: what a person sees, and the servings control calling recipes_scale."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from playwright.async_api import expect

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server
from tests.e2e.helpers import call, eq

from .conftest import DARK, add_peanut_noodles, apps_client, save_screenshot

pytestmark = pytest.mark.anyio
LINES = ["200 g rice noodles", "3 tbsp peanut butter", "2 tbsp soy sauce", "1 lime, juiced", "1/4 cup roasted peanuts, chopped"]


async def _noodles(client: Any) -> str:
    return str((await call(client, "db_read", table="recipes", filters=[eq("name", "Peanut Noodles")]))["rows"][0]["id"])


async def test_the_card_shows_ingredients_steps_and_allergens_and_scales_through_recipes_scale(app: AlfredApp, mount: Any) -> None:
    await add_peanut_noodles(app)
    async with apps_client(build_server(app)) as client:
        ref = await _noodles(client)
        shown = await mount(client, "recipe_show", {"recipe": ref})
        view = shown.view
        await expect(view.locator("h1")).to_have_text("Peanut Noodles")
        await expect(view.locator("#facts")).to_have_text("Prep 10 min · Cook 10 min · Total 20 min · Thai · Easy")
        await expect(view.locator("#ingredients li")).to_contain_text(LINES)
        await expect(view.locator("#steps li")).to_have_text(
            ["Cook the noodles.", "Whisk the peanut butter, soy sauce and lime juice.", "Toss the noodles in the sauce and top with the peanuts."])
        await expect(view.locator("#allergens")).to_have_text(
            "⚠ Allergy: peanut butter, roasted peanuts — you are allergic to peanuts.")
        await expect(view.locator("#ingredients li.allergen")).to_contain_text(["peanut butter", "roasted peanuts"])
        await expect(view.locator("#servings")).to_have_text("2")
        save_screenshot(await shown.screenshot(), "recipe-light")

        await view.get_by_role("button", name="More servings").focus()
        await shown.page.keyboard.press("Enter")
        await expect(view.locator("#servings")).to_have_text("3")
        await expect(view.locator("#ingredients li").first).to_contain_text("300 g rice noodles")
        await expect(view.locator("#scaled")).to_have_text("Amounts for 3, scaled from 2.")
        await expect(view.locator("#ingredients li.allergen")).to_have_count(2)
        session = shown.result["structuredContent"]["session"]
        assert ("tools/call", {"name": "recipes_scale", "arguments": {"recipe": ref, "servings": 3, "session": session}}) in shown.forwarded
        assert any(ref in str(request["params"]) for request in await shown.host_requests()
                   if request["method"] == "ui/update-model-context")

        await shown.page.evaluate("vars => testHost.setContext({theme: 'dark', styles: {variables: vars}})", DARK)
        background = await view.locator("body").evaluate("body => getComputedStyle(body).backgroundColor")
        assert background == "rgb(31, 30, 29)"
        save_screenshot(await shown.screenshot(), "recipe-dark")
        log = await shown.host_log()
        assert log[:2] == ["in ui/initialize", "out response"] and "in ui/notifications/size-changed" in log
        shown.assert_clean()


async def test_a_refused_scale_is_shown_and_the_card_stays_as_it_was(app: AlfredApp, mount: Any) -> None:
    """recipes_scale outside the host's allow-list (--tools views,db_read) is refused; the view says so."""
    app.settings = replace(app.settings, tools=("views", "db_read"))
    await add_peanut_noodles(app)
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "recipe_show", {"recipe": await _noodles(client)})
        await shown.view.get_by_role("button", name="More servings").click()
        await expect(shown.view.get_by_role("alert")).to_have_text(
            "recipes_scale is not available: it is not in this server's tool allow-list (--tools).")
        await expect(shown.view.locator("#servings")).to_have_text("2")
        await expect(shown.view.locator("#ingredients li").first).to_contain_text("200 g rice noodles")
        shown.assert_clean()


@pytest.mark.parametrize(("times", "facts"), [
    ({"prep_time_minutes": 20, "cook_time_minutes": 60}, "Prep 20 min · Cook 1 hr · Total 1 hr 20 min"),
    ({"prep_time_minutes": 15, "cook_time_minutes": 70, "total_time_minutes": 85}, "Prep 15 min · Cook 1 hr 10 min · Total 1 hr 25 min"),
    ({"total_time_minutes": 45}, "Total 45 min"),
])
async def test_the_card_writes_times_and_scaled_amounts_as_a_cook_does(app: AlfredApp, mount: Any, times: dict[str, int],
                                                                       facts: str) -> None:
    """Times in hours and minutes (the total read as prep + cook when none is stored); at 6 servings from 4, 3 tbsp of
    oil is 4 1/2 tbsp, a 14-oz can is 1 1/2 cans and one onion 1 1/2."""
    async with apps_client(build_server(app)) as client:
        created = await call(client, "db_create", table="recipes", data={"name": "Quux Stew", "servings": 4, "instructions": ["Stew."], **times})
        ref = str(created["rows"][0]["id"])
        await call(client, "db_create", table="recipe_ingredients", data=[
            {"recipe_id": ref, "position": 1, "name": "olive oil", "quantity": 3, "unit": "tbsp"},
            {"recipe_id": ref, "position": 2, "name": "crushed tomatoes", "quantity": 14, "unit": "oz"},
            {"recipe_id": ref, "position": 3, "name": "red onion", "quantity": 1, "unit": "piece"}])
        shown = await mount(client, "recipe_show", {"recipe": ref})
        view = shown.view
        await expect(view.locator("#facts")).to_have_text(facts)
        for _ in range(2):
            await view.get_by_role("button", name="More servings").click()
        await expect(view.locator("#servings")).to_have_text("6")
        await expect(view.locator("#ingredients li")).to_contain_text(
            ["4 1/2 tbsp olive oil", "1 1/2 (14-oz) cans crushed tomatoes", "1 1/2 red onions"])
        shown.assert_clean()


@pytest.mark.parametrize(("servings", "presses"), [(1, -3), (8, 4)])
async def test_the_stepper_scales_the_ingredient_amounts_inside_the_steps_and_reset_restores_them(
        app: AlfredApp, mount: Any, servings: int, presses: int) -> None:
    """Tikka for 4 says '1 tsp garam masala … and 1 tsp salt' in its first step: scaled on the card, the step says
    what recipes_scale says for that many servings; back to 4, the steps are as written again."""
    async with apps_client(build_server(app)) as client:
        ref = next(row["id"] for row in (await call(client, "db_read", table="recipes", columns=["name"], limit=50))["rows"]
                   if row["name"] == "Chicken Tikka Masala")
        scaled = await call(client, "recipes_scale", recipe=ref, servings=servings)
        shown = await mount(client, "recipe_show", {"recipe": ref})
        view = shown.view
        written = await view.locator("#steps li").all_text_contents()
        button = view.get_by_role("button", name="More servings" if presses > 0 else "Fewer servings")
        for step in range(1, abs(presses) + 1):
            await button.click()
            await expect(view.locator("#servings")).to_have_text(str(4 + step * (1 if presses > 0 else -1)))
        await expect(view.locator("#servings")).to_have_text(str(servings))
        await expect(view.locator("#steps li")).to_have_text(scaled["steps"])
        assert scaled["steps"] != written and "garam masala" in scaled["steps"][0] and "1 tsp garam masala" not in scaled["steps"][0]
        await view.get_by_role("button", name=re.compile("^Reset")).click()
        await expect(view.locator("#steps li")).to_have_text(written)
        shown.assert_clean()


async def test_a_draft_says_it_is_not_saved_and_a_cuisine_and_packs_read_as_a_cook_writes_them(app: AlfredApp, mount: Any) -> None:
    """The cook's QA: an imported recipe's card looked saved; 'middle-eastern' read 'Middle-eastern'; a bag scaled from
    3 servings to 7 read '2 1/2 bags' (it is 2 1/3: the one rule for packs, `measures.count_cut`)."""
    async with apps_client(build_server(app)) as client:
        imported = await call(client, "recipes_import", source="Weeknight Dal\nServes 3\nIngredients\n1 cup red lentils\n"
                                                               "1 bag baby spinach\nSteps\n1. Simmer the lentils.\n2. Stir in the spinach.")
        draft = next(value for value in re.findall(r"gen_recipe_\d+", str(imported)))
        shown = await mount(client, "recipe_show", {"recipe": draft})
        await expect(shown.view.locator("#facts")).to_contain_text("Draft, not saved yet")
        for _ in range(4):
            await shown.view.get_by_role("button", name="More servings").click()
        await expect(shown.view.locator("#servings")).to_have_text("7")
        await expect(shown.view.locator("#ingredients li")).to_contain_text(["2 1/3 bags baby spinach"])
        shown.assert_clean()
        created = await call(client, "db_create", table="recipes", data={"name": "Mujadara", "servings": 4, "cuisine": "middle-eastern",
                                                                         "difficulty": "easy", "instructions": ["Cook."]})
        saved = await mount(client, "recipe_show", {"recipe": str(created["rows"][0]["id"])})
        await expect(saved.view.locator("#facts")).to_have_text("Middle Eastern · Easy")
        saved.assert_clean()
