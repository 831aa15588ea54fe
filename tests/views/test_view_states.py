"""Every view in every state a person meets, at a phone's width (400 px) and a desktop's (1000 px): the content
fits without sideways scrolling or a word broken in two, an error or a cancelled call replaces the loading
placeholder with its message, refs are never shown as words, dislikes are marked on their lines, and the meal
plan's button shows what it will add before adding (already listed lines marked), adds once however often it is
pressed, says so when it is done, and shows the message of a call that fails or cannot complete."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, timedelta
from typing import Any

import pytest
from playwright.async_api import expect

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.dates import day_text, span_text
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPE_INGREDIENTS, RECIPES, SHOPPING_LIST
from alfred_mcp.kitchen.sections import section_order
from alfred_mcp.server.mcp_server import build_server
from tests.e2e.helpers import call, eq

from .conftest import add_peanut_noodles, apps_client, save_screenshot

pytestmark = pytest.mark.anyio
WEEK = {"from": "2026-01-12", "to": "2026-01-18"}
WIDTHS = [400, 1000]
"""A phone and a desktop; the meal plan stacks its days below 700 px."""
REF = re.compile(r"\b(?:gen_)?[a-z]+_[1-9][0-9]*\b")
"""A ref as the model reads it (recipe_6, meal_12): never text a person is shown."""
BUTTON = re.compile(r"^Add \d+ meals? to the shopping list$")
CONFIRM = re.compile(r"^(?:Add \d+ lines?(?: and top up \d+)?|Top up \d+ lines?)$")
"""The preview's button: the same count of new lines and top-ups as its title and the status after adding."""


def _tally(lines: list[dict[str, Any]], *, done: bool) -> str:
    """'add 17 lines and top up 1' (before) or 'added 17 lines and topped up 1' (after), as the view counts them."""
    fresh = sum(line["action"] == "added" for line in lines)
    topped = len(lines) - fresh
    new = f"{fresh} line{'' if fresh == 1 else 's'}"
    up = f"{topped}" if fresh else f"{topped} line{'' if topped == 1 else 's'}"
    words = ("added", "topped up") if done else ("add", "top up")
    return " and ".join(part for part in (f"{words[0]} {new}" if fresh else "", f"{words[1]} {up}" if topped else "") if part)

# For every word of the visible text: did the browser lay it out on more than one line (broken mid-word)?
BROKEN_WORDS = """() => {
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement || !node.parentElement.offsetParent || node.parentElement.closest(".sr-only")) continue;
    for (const match of node.textContent.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, match.index); range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) broken.push(match[0]);
    }
  }
  return broken;
}"""
OVERFLOW = """() => [...document.querySelectorAll("body, body *")]
  .filter((node) => node.offsetParent !== null && !node.closest(".sr-only") && node.scrollWidth > node.clientWidth + 1
          && getComputedStyle(node).overflowX !== "visible")
  .map((node) => node.id || node.className || node.tagName)"""
WORDS_OUTSIDE_REFS = """() => {
  const words = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (parent && parent.offsetParent && !parent.closest(".ref, .sr-only, script, style")) words.push(node.textContent);
  }
  return words.join(" ");
}"""
"""The visible text a person reads as words: a ref may appear only as small secondary text (class ref)."""
PAGE_FITS = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"


async def _frame(shown: Any) -> Any:
    handle = await shown.page.locator("#view").element_handle()
    return await handle.content_frame()


async def _assert_reads_whole(shown: Any) -> None:
    """No sideways scrolling anywhere, no word broken across lines, no ref among the words."""
    frame = await _frame(shown)
    assert await frame.evaluate(PAGE_FITS)
    assert await frame.evaluate(OVERFLOW) == []
    assert await frame.evaluate(BROKEN_WORDS) == []
    words = await frame.evaluate(WORDS_OUTSIDE_REFS)
    assert REF.findall(words) == [], words


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_meal_plan_shows_every_day_whole_at_phone_and_desktop_width(app: AlfredApp, mount: Any, width: int) -> None:
    await add_peanut_noodles(app)
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "meal_plan_show", WEEK, width=width)
        view = shown.view
        await expect(view.locator("#range")).to_have_text(re.compile("11 meals"))
        if width < 700:
            await expect(view.locator("#days > li")).to_have_count(7)
            await expect(view.locator("#grid")).to_be_hidden()
            await expect(view.locator("#days .slot.conflict")).to_have_count(1)
        else:
            await expect(view.locator("#days")).to_be_hidden()
            await expect(view.locator("thead th")).to_have_count(7)
        for dish in ("Miso-Glazed Salmon with Bok Choy", "Greek Lemon Chicken and Potatoes", "Lemon Garlic Baked Cod"):
            await expect(view.locator(".meal").locator("visible=true").filter(has_text=dish)).to_have_count(1)
        await _assert_reads_whole(shown)
        if width == 400:
            save_screenshot(await shown.screenshot(), "meal-plan-400px")
        shown.assert_clean()


CONFLICT_REASON = "contains peanut butter, roasted peanuts (allergy: peanuts)"
MARK_BOX = """(mark) => { const box = mark.getBoundingClientRect(); const cell = mark.closest("td, .slot").getBoundingClientRect();
  return {left: box.left, right: box.right, cellRight: cell.right + 1, room: document.documentElement.clientWidth,
          clipped: mark.scrollWidth > mark.clientWidth + 1 || mark.scrollHeight > mark.clientHeight + 1}; }"""


@pytest.mark.parametrize("width", [400, 560, 1000])
async def test_a_conflict_cell_says_what_it_is_about_where_the_meal_is(app: AlfredApp, mount: Any, width: int) -> None:
    """The cell of a meal with a conflict says what it is about ('⚠ peanuts'), not only '⚠ conflict', and briefly (the
    cook's QA: the whole sentence made an eleven-line cell; the list under the plan says it whole): at a phone's width
    it is read in the day it belongs to, inside its cell and the view, nothing cut off."""
    await add_peanut_noodles(app)
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "meal_plan_show", WEEK, width=width)
        marks = shown.view.locator(".meal .mark:not(.skip)").locator("visible=true")  # an optional one to skip is apart
        await expect(marks).to_have_text(["⚠ peanuts"])
        await expect(marks.first).to_have_attribute("title", CONFLICT_REASON)
        await expect(shown.view.locator("#conflict-list li:not(.caution)")).to_have_text([re.compile(re.escape(CONFLICT_REASON))])
        box = await marks.first.evaluate(MARK_BOX)
        assert 0 <= box["left"] < box["right"] <= min(box["cellRight"], box["room"]) and not box["clipped"], box
        await _assert_reads_whole(shown)
        if width == 400:
            save_screenshot(await shown.screenshot(), "meal-plan-conflict-400px")
        shown.assert_clean()


async def test_the_views_write_every_day_as_the_server_does(app: AlfredApp, mount: Any) -> None:
    """One date format: the view's dayLabel and spanLabel write each day of four years (a leap day among them) as
    kitchen/dates.py does, whatever the host's locale."""
    days = [(date(2026, 1, 1) + timedelta(days=n)).isoformat() for n in range(4 * 366)]
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "meal_plan_show", WEEK)
        await shown.page.evaluate("() => testHost.setContext({locale: 'de-DE'})")
        frame = await _frame(shown)
        written = await frame.evaluate("(days) => days.map((day) => window.alfredView.dayLabel(day))", days)
        spans = await frame.evaluate("(days) => days.map((day, n) => window.alfredView.spanLabel(days[0], day))", days[:40])
        assert written == [day_text(day) for day in days]
        assert spans == [span_text(days[0], day) for day in days[:40]]
        shown.assert_clean()


async def test_a_four_week_plan_stacks_its_days_on_a_desktop_rather_than_scroll_sideways(app: AlfredApp, mount: Any) -> None:
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "meal_plan_show", {"from": "2026-01-05", "to": "2026-02-01"}, width=1000)
        await expect(shown.view.locator("#days > li")).to_have_count(28)
        await expect(shown.view.locator("#grid")).to_be_hidden()
        await _assert_reads_whole(shown)
        shown.assert_clean()


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_shopping_list_and_recipe_card_read_whole_at_every_width(app: AlfredApp, mount: Any, width: int) -> None:
    async with apps_client(build_server(app)) as client:
        await call(client, "shopping_list_from", meal_plans=WEEK)
        listed = await mount(client, "shopping_list_show", {}, width=width)
        await expect(listed.view.locator("#counts")).to_have_text(re.compile(r"\d+ to buy"))
        await expect(listed.view.locator("li", has_text="oregano")).to_have_count(1)
        await _assert_reads_whole(listed)
        ref = (await call(client, "db_read", table="recipes", filters=[eq("name", "Mushroom Risotto")]))["rows"][0]["id"]
        card = await mount(client, "recipe_show", {"recipe": ref}, width=width)
        await expect(card.view.locator("h1")).to_have_text("Mushroom Risotto")
        await _assert_reads_whole(card)
        listed.assert_clean()
        card.assert_clean()


ERRORS = [
    ("recipe_show", {"recipe": "recipe_999"}, "Recipe not shown", "That recipe could not be found."),
    ("meal_plan_show", {"from": "2026-01-18", "to": "2026-01-12"}, "Meal plan not shown", None),
    ("meal_plan_show", {"from": "2026-01-12", "to": "2026-03-15"}, "Meal plan not shown",
     "A plan shows at most 28 days; Mon Jan 12 to Sun Mar 15 is 63 days."),
]
"""(tool, arguments, the placeholder, what a person reads: None for the server's own message without the argument it
names). A ref the view was asked to show that is not there is said in a sentence for people; the model's text names
refs and how to get them; a sentence the server starts with the argument's name ('to: a plan shows at most 28 days')
starts with its own first word (cook's QA 2 G17)."""


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(("tool", "arguments", "placeholder", "said"), ERRORS, ids=["unknown-ref", "range", "too-long"])
async def test_an_error_result_replaces_the_loading_placeholder_with_its_message(
        app: AlfredApp, mount: Any, tool: str, arguments: dict[str, Any], placeholder: str, said: str | None, width: int) -> None:
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, tool, arguments, width=width)
        assert shown.result.get("isError") is True
        server = shown.result["content"][0]["text"].removeprefix("Error: ")
        field = shown.result.get("_meta", {}).get("alfred/error", {}).get("field")
        unnamed = server.removeprefix(f"{field}: ") if field else server
        message = said or unnamed[:1].upper() + unnamed[1:]
        assert REF.search(server) or tool != "recipe_show"  # the model's text keeps the precise refs
        view = shown.view
        await expect(view.get_by_text("Loading")).to_have_count(0)
        await expect(view.get_by_text(placeholder)).to_be_visible()
        await expect(view.get_by_role("alert")).to_have_text(message)
        for ref in REF.findall(message):
            await expect(view.get_by_role("alert").locator(".ref", has_text=ref)).to_have_count(1)
        await expect(view.locator("[data-needs-result]:visible")).to_have_count(0)
        assert (await view.get_by_role("alert").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 15
        await _assert_reads_whole(shown)


@pytest.mark.parametrize(("tool", "arguments", "placeholder"), [
    ("recipe_show", {"recipe": "recipe_1"}, "Recipe not shown"), ("meal_plan_show", WEEK, "Meal plan not shown"),
    ("shopping_list_show", {}, "Shopping list not shown"),
], ids=["recipe", "meal-plan", "shopping-list"])
async def test_a_cancelled_call_replaces_the_loading_placeholder_and_says_so(
        app: AlfredApp, mount: Any, tool: str, arguments: dict[str, Any], placeholder: str) -> None:
    async with apps_client(build_server(app)) as client:
        await call(client, "db_read", table="recipes", limit=1)
        shown = await mount(client, tool, arguments, width=400, cancelled=True)
        await expect(shown.view.get_by_text("Loading")).to_have_count(0)
        await expect(shown.view.get_by_text(placeholder)).to_be_visible()
        await expect(shown.view.get_by_role("alert")).to_have_text(re.compile("cancelled"))
        shown.assert_clean()


async def test_a_disliked_ingredient_is_marked_on_its_line_like_an_allergen(app: AlfredApp, mount: Any) -> None:
    """The demo user dislikes olives: the card marks the olives line, not only a banner naming them."""
    (recipe,) = await app.store.insert(RECIPES, [{"name": "Olive Salad", "servings": 2, "instructions": ["Toss."]}],
                                       user_id=app.user_id)
    await app.store.insert(RECIPE_INGREDIENTS, [
        {"recipe_id": recipe["id"], "position": 1, "name": "kalamata olives", "quantity": 0.5, "unit": "cup"},
        {"recipe_id": recipe["id"], "position": 2, "name": "cucumber", "quantity": 1},
    ], user_id=app.user_id)
    async with apps_client(build_server(app)) as client:
        ref = (await call(client, "db_read", table="recipes", filters=[eq("name", "Olive Salad")]))["rows"][0]["id"]
        shown = await mount(client, "recipe_show", {"recipe": ref}, width=400)
        await expect(shown.view.locator("#ingredients li.disliked")).to_have_count(1)
        await expect(shown.view.locator("#ingredients li.disliked")).to_contain_text("Kalamata olives")  # a place name, capitalised on the card
        await expect(shown.view.locator("#ingredients li.disliked .badge")).to_have_text("disliked: olives")
        await expect(shown.view.locator("#ingredients li", has_text="cucumber")).not_to_have_class("disliked")
        for reason in await shown.view.locator("#conflicts li").all_inner_texts():  # a sentence (cook's QA 2 G18)
            assert reason[:1].isupper(), reason
        for kept in (True, False):  # an optional disliked line: the banner says to leave it out, as a sentence
            await app.store.update(RECIPE_INGREDIENTS, Where(all_of=(Filter("recipe_id", "eq", recipe["id"]), Filter("position", "eq", 1))),
                                   {"is_optional": kept}, user_id=app.user_id)
            again = await mount(client, "recipe_show", {"recipe": ref}, width=400)
            reasons = await again.view.locator("#conflicts li").all_inner_texts()
            assert reasons and all(reason[:1].isupper() for reason in reasons), reasons
            assert not kept or any(reason.startswith("Leave out the optional") for reason in reasons), reasons
        shown.assert_clean()


@pytest.mark.parametrize("width", WIDTHS)
async def test_a_dislike_is_a_caution_in_amber_everywhere_and_an_allergy_a_danger(app: AlfredApp, mount: Any, width: int) -> None:
    """The demo user dislikes olives and is allergic to peanuts: in the meal plan the olive salad is marked amber in
    the user's words ('you don't like olives', Kalamata spelled as the card spells it), never with the allergy's red
    and ⚠; the peanut noodles stay red; a shopping line of olives is marked as the recipe card marks it."""
    await add_peanut_noodles(app)
    (recipe,) = await app.store.insert(RECIPES, [{"name": "Olive Salad", "servings": 2, "instructions": ["Toss."]}],
                                       user_id=app.user_id)
    await app.store.insert(RECIPE_INGREDIENTS, [
        {"recipe_id": recipe["id"], "position": 1, "name": "kalamata olives", "quantity": 0.5, "unit": "cup"}], user_id=app.user_id)
    await app.store.insert(MEAL_PLANS, [{"date": "2026-01-14", "meal_type": "lunch", "recipe_id": recipe["id"], "servings": 2}],
                           user_id=app.user_id)
    async with apps_client(build_server(app)) as client:
        await call(client, "db_create", table="shopping_list", data=[{"name": "kalamata olives", "quantity": 1, "unit": "jar"}])
        shown = await mount(client, "meal_plan_show", WEEK, width=width)
        salad = shown.view.locator(".meal:visible", has_text="Olive Salad")
        await expect(salad.locator(".mark")).to_have_text(["olives"])
        await expect(salad.locator(".mark")).to_have_class("mark caution")
        noodles = shown.view.locator(".meal:visible", has_text="Peanut Noodles")
        await expect(noodles.locator(".mark")).to_have_text(["⚠ peanuts"])
        await expect(shown.view.locator("#conflict-list li.caution")).to_have_text([  # the chicken's optional olives to skip, then the salad's
            re.compile("^Tue Jan 13 dinner: Greek Lemon Chicken and Potatoes — leave out the optional Kalamata olives"),
            re.compile("^Wed Jan 14 lunch: Olive Salad — ")])
        colors = await shown.view.locator(".mark:visible").evaluate_all("marks => marks.map(m => getComputedStyle(m).color)")
        assert len(set(colors)) == 2, colors  # amber and red, not one colour for both
        listed = await mount(client, "shopping_list_show", {}, width=width)
        olives = listed.view.locator("li.disliked")
        await expect(olives).to_have_count(1)
        await expect(olives.locator(".badge")).to_have_text("disliked: olives")
        shown.assert_clean()
        listed.assert_clean()


def _list_calls(shown: Any) -> list[dict[str, Any]]:
    """The view's shopping_list_from calls, in order, as the host forwarded them."""
    return [params["arguments"] for method, params in shown.forwarded if method == "tools/call" and params["name"] == "shopping_list_from"]


async def _listed(app: AlfredApp) -> list[dict[str, Any]]:
    return list(await app.store.select(SHOPPING_LIST, Query(limit=1_000), user_id=app.user_id))


@pytest.mark.parametrize("width", WIDTHS)
async def test_the_add_button_shows_what_it_will_add_adds_once_on_a_double_press_and_then_says_already_added(
        app: AlfredApp, mount: Any, width: int) -> None:
    """The first press previews (nothing written): the merged lines as they will read, those topping up a line marked;
    "Add N lines" pressed twice adds them once, exactly as previewed; shown again, the plan has nothing to add, every
    ingredient marked already on the list, and the button reads Already added."""
    async with apps_client(build_server(app)) as client:
        expected = await call(client, "shopping_list_from", meal_plans=WEEK, preview=True)
        before = await _listed(app)
        shown = await mount(client, "meal_plan_show", WEEK, width=width)
        button = shown.view.get_by_role("button", name=BUTTON)
        await expect(button).to_have_text("Add 8 meals to the shopping list")  # the week's 8 meals with a recipe
        await button.dblclick()
        await expect(shown.view.locator("#preview-title")).to_have_text(f"Will {_tally(expected['lines'], done=False)} on the shopping list")
        items = shown.view.locator("#preview-lines li:not(.kept):not(.aisle)")
        await expect(items).to_have_text([re.compile(f"^{re.escape(line['name'])}: .+ → .+ \\(\\+{re.escape(line['adds'])}\\)" if line.get("was")
                                                     else "^" + re.escape(line["text"])) for line in expected["lines"]])
        await expect(shown.view.locator("#preview-lines li .badge", has_text="tops up a line")).to_have_count(
            sum(line["action"] == "updated" for line in expected["lines"]))
        sections = list(dict.fromkeys(line["section"] for line in expected["lines"]))  # F15: by store section, as the list
        assert sections == sorted(sections, key=section_order) and len(sections) > 1
        await expect(shown.view.locator("#preview-lines li.aisle")).to_have_text([section.capitalize() for section in sections])
        optional = re.search(r"Optional, not added: .*$", expected.get("message", ""))
        assert optional, expected.get("message")  # the week's recipes have optional ingredients: the preview names them
        await expect(shown.view.locator("#preview-lines li.kept", has_text="Optional, not added")).to_have_text(optional.group(0))
        await _assert_reads_whole(shown)
        assert _list_calls(shown) == [{"meal_plans": WEEK, "preview": True, "session": shown.result["structuredContent"]["session"]}]
        assert await _listed(app) == before

        confirm = shown.view.get_by_role("button", name=_tally(expected["lines"], done=False).capitalize())
        await confirm.dblclick()
        await expect(shown.view.get_by_role("status")).to_have_text(re.compile(  # said briefly: the list names each line
            f"^{re.escape(_tally(expected['lines'], done=True).capitalize())}\\.(?: [^:]*)?$"))
        await expect(shown.view.get_by_role("button", name="Already added")).to_be_disabled()
        await expect(shown.view.locator("#preview-title")).to_have_text("Added to the shopping list")
        await expect(confirm).to_be_hidden()
        assert [("preview" in arguments) for arguments in _list_calls(shown)] == [True, False]
        listed = await _listed(app)
        new_lines = [row for row in listed if row["id"] not in {old["id"] for old in before}]
        assert len(new_lines) == sum(line["action"] == "added" for line in expected["lines"])
        await _assert_reads_whole(shown)

        again = await mount(client, "meal_plan_show", WEEK, width=width)
        await again.view.get_by_role("button", name=BUTTON).click()
        await expect(again.view.locator("#preview-title")).to_have_text("Nothing to add")
        await expect(again.view.get_by_role("status")).to_have_text(re.compile("already on the list"))
        await expect(again.view.get_by_role("status")).not_to_contain_text("Optional, not added")  # the box says it, once
        await expect(again.view.get_by_text(re.compile("Optional, not added"))).to_have_count(1)
        await expect(again.view.locator("#preview-lines li.kept .badge").first).to_have_text("already on the list")
        await expect(again.view.get_by_role("button", name="Already added")).to_be_disabled()
        await expect(again.view.locator("#confirm")).to_be_hidden()
        assert await _listed(app) == listed
        await _assert_reads_whole(again)
        shown.assert_clean()
        again.assert_clean()


@pytest.mark.parametrize("width", WIDTHS)
async def test_a_preview_marks_what_is_already_on_the_list_and_adds_only_the_rest(app: AlfredApp, mount: Any, width: int) -> None:
    """Two days of the week already listed: the week's preview marks their ingredients already on the list, adds the
    rest, and Cancel leaves everything as it was."""
    async with apps_client(build_server(app)) as client:
        await call(client, "shopping_list_from", meal_plans={"from": "2026-01-12", "to": "2026-01-13"})
        expected = await call(client, "shopping_list_from", meal_plans=WEEK, preview=True)
        assert expected["lines"] and expected["already_listed"]
        before = await _listed(app)
        shown = await mount(client, "meal_plan_show", WEEK, width=width)
        await shown.view.get_by_role("button", name=BUTTON).click()
        kept = shown.view.locator("#preview-lines li.kept", has=shown.view.locator(".badge", has_text="already on the list"))
        await expect(kept).to_have_text([re.compile("^" + re.escape(item["name"])) for item in expected["already_listed"]
                                         if item.get("note") != "bought already"])
        bought = shown.view.locator("#preview-lines li.kept", has=shown.view.locator(".badge", has_text="bought"))
        await expect(bought).to_have_text([re.compile("^" + re.escape(item["name"])) for item in expected["already_listed"]
                                           if item.get("note") == "bought already"])
        await expect(bought.filter(has_text="— bought already")).to_have_count(0)  # the badge says it once
        await _assert_reads_whole(shown)
        await shown.view.get_by_role("button", name="Cancel").click()
        await expect(shown.view.locator("#preview")).to_be_hidden()
        await expect(shown.view.get_by_role("button", name=BUTTON)).to_be_enabled()
        assert await _listed(app) == before
        shown.assert_clean()


async def _assert_next_to_the_buttons(shown: Any) -> None:
    """The message stands right under the button pressed, on a phone too: never below the week."""
    button, message = shown.view.locator("#shop"), shown.view.locator("#status:not(:empty), #error:not(:empty)").first
    top, under = await button.bounding_box(), await message.bounding_box()
    assert top is not None and under is not None and 0 <= under["y"] - top["y"] < 200, (top, under)


@pytest.mark.parametrize("width", WIDTHS)
async def test_a_meal_holding_an_allergen_leaves_its_lines_out_and_the_rest_of_the_week_is_added(
        app: AlfredApp, mount: Any, width: int) -> None:
    """Friday's Peanut Noodles hold the user's allergen: the preview lists the week's other lines, and each line left
    out with the meal it was for and why, in a cook's words; adding adds the rest and says what was left out."""
    await add_peanut_noodles(app)
    async with apps_client(build_server(app)) as client:
        expected = await call(client, "shopping_list_from", meal_plans=WEEK, preview=True)
        assert [item["name"] for item in expected["left_out"]] == ["peanut butter", "roasted peanuts"] and expected["lines"]
        shown = await mount(client, "meal_plan_show", WEEK, width=width)
        await shown.view.get_by_role("button", name=BUTTON).click()
        left = shown.view.locator("#preview-lines li.left-out")
        await expect(left).to_have_text([re.compile("^" + re.escape(item["text"])) for item in expected["left_out"] if "text" in item])
        await expect(left.first).to_have_text(re.compile(  # each line with its meal and why
            "^Left out peanut butter, for Peanut Noodles \\(Fri Jan 16 lunch, for 2\\): it contains peanuts, and you are allergic"))
        await expect(shown.view.locator("#error")).to_be_empty()
        await shown.view.get_by_role("button", name=CONFIRM).click()
        await expect(shown.view.get_by_role("status")).to_contain_text("Left out peanut butter and roasted peanuts, for Peanut Noodles (Fri Jan 16 lunch, for 2)")
        await _assert_next_to_the_buttons(shown)
        await _assert_reads_whole(shown)
        assert not [row for row in await _listed(app) if "peanut" in row["name"]]
        shown.assert_clean()


@pytest.mark.parametrize("width", WIDTHS)
async def test_more_servings_after_listing_top_lines_up_saying_what_each_was_and_adds(app: AlfredApp, mount: Any, width: int) -> None:
    """The week listed, then a meal raised to more servings: the preview shows each top-up as what the line was, what it
    becomes and what it adds, each ingredient once; added, each carries one badge and the summary says "Topped up"."""
    async with apps_client(build_server(app)) as client:
        await call(client, "shopping_list_from", meal_plans=WEEK)
        (meal,) = (await call(client, "db_read", table="meal_plans", filters=[eq("date", "2026-01-15"), eq("meal_type", "dinner")]))["rows"]
        await call(client, "db_update", table="meal_plans", filters=[eq("id", meal["id"])], data={"servings": 6})
        expected = await call(client, "shopping_list_from", meal_plans=WEEK, preview=True)
        topped = [line for line in expected["lines"] if line["action"] == "updated"]
        assert topped and not {line["name"] for line in expected["lines"]} & {item["name"] for item in expected["already_listed"]}
        shown = await mount(client, "meal_plan_show", WEEK, width=width)
        await shown.view.get_by_role("button", name=BUTTON).click()
        items = shown.view.locator("#preview-lines li:not(.kept):not(.aisle)")
        await expect(items).to_have_text([re.compile(f"^{re.escape(line['name'])}: .+ → .+ \\(\\+{re.escape(line['adds'])}\\)")
                                          if line["action"] == "updated" else re.compile("^" + re.escape(line["text"]))
                                          for line in expected["lines"]])
        await expect(shown.view.get_by_role("button", name=CONFIRM)).to_have_text(_tally(expected["lines"], done=False).capitalize())
        await shown.view.get_by_role("button", name=CONFIRM).click()
        await expect(shown.view.get_by_role("status")).to_have_text(re.compile(f"^{re.escape(_tally(expected['lines'], done=True).capitalize())}\\."))
        for item in await items.all():
            await expect(item.locator(".badge")).to_have_count(1)
        await _assert_reads_whole(shown)
        shown.assert_clean()


@pytest.mark.parametrize("width", WIDTHS)
async def test_only_the_pantry_amounts_to_check_are_shown_and_what_it_covers_is_folded(app: AlfredApp, mount: Any, width: int) -> None:
    """What the pantry holds in an amount to check (or short of) is shown with its note, one line each, the badge not
    saying 'check' again; what the pantry covers is folded into one line a cook can open (its count, then each name),
    so the preview stays about what will be added."""
    async with apps_client(build_server(app)) as client:
        await call(client, "db_update", table="inventory", filters=[{"field": "name", "op": "eq", "value": "arborio rice"}],
                   data={"unit": "box"})  # rice by the box: an amount nothing compares, to check
        expected = await call(client, "shopping_list_from", meal_plans=WEEK, preview=True)
        to_check = [item for item in expected["covered"] if item["note"] and not item["note"].endswith(": covered")]
        covered = [item for item in expected["covered"] if item not in to_check]
        assert to_check and covered
        shown = await mount(client, "meal_plan_show", WEEK, width=width)
        await shown.view.get_by_role("button", name=BUTTON).click()
        checked = shown.view.locator("#preview-lines > li.kept", has=shown.view.locator(".badge", has_text=re.compile("^in the pantry")))
        await expect(checked).to_have_text([re.compile(re.escape(item["name"]) + ".*" + re.escape(item["note"])) for item in to_check])
        await expect(checked.locator(".badge", has_text="check")).to_have_count(0)
        folded = shown.view.locator("#preview-lines > li.pantry details")
        await expect(folded.locator("summary")).to_have_text(f"{len(covered)} things the pantry covers, not added")
        await expect(folded.locator("li").first).to_be_hidden()
        await folded.locator("summary").click()
        await expect(folded.locator("li")).to_have_text([re.compile("^" + re.escape(item["name"])) for item in covered])
        await _assert_reads_whole(shown)
        shown.assert_clean()


@pytest.mark.parametrize("width", WIDTHS)
async def test_an_error_result_of_the_add_shows_its_message_and_adds_nothing(app: AlfredApp, mount: Any, width: int) -> None:
    """The plan changed after the preview (its meals removed): adding is refused, the view shows the server's message,
    nothing is added, and the button does not claim it was."""
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "meal_plan_show", WEEK, width=width)
        await shown.view.get_by_role("button", name=BUTTON).click()
        confirm = shown.view.get_by_role("button", name=CONFIRM)
        await expect(confirm).to_be_visible()
        meals = await app.store.select(MEAL_PLANS, Query(columns=("id",), limit=1_000), user_id=app.user_id)
        await app.store.delete(MEAL_PLANS, Where(all_of=(Filter("id", "in", [row["id"] for row in meals]),)), user_id=app.user_id)
        before = await _listed(app)
        await confirm.click()
        await expect(shown.view.get_by_role("alert")).to_have_text(
            "No meals with a recipe are planned from Mon Jan 12 to Sun Jan 18 any more; nothing was added.")
        await _assert_next_to_the_buttons(shown)
        await expect(shown.view.get_by_role("button", name="Already added")).to_have_count(0)
        await expect(shown.view.locator("#preview")).to_be_hidden()
        assert await _listed(app) == before
        await _assert_reads_whole(shown)
        shown.assert_clean()


@pytest.mark.parametrize("width", WIDTHS)
async def test_an_error_result_of_the_preview_shows_its_message_and_changes_nothing(app: AlfredApp, mount: Any, width: int) -> None:
    """Under --read-only the preview meets the server's refusal: the message is shown, no preview, nothing written."""
    app.settings = replace(app.settings, read_only=True)
    before = await _listed(app)
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "meal_plan_show", WEEK, width=width)
        await shown.view.get_by_role("button", name=BUTTON).click()
        await expect(shown.view.get_by_role("alert")).to_have_text(
            "This kitchen is read-only: nothing can be added to the shopping list.")
        await _assert_next_to_the_buttons(shown)
        await expect(shown.view.locator("#preview")).to_be_hidden()
        await expect(shown.view.get_by_role("button", name=BUTTON)).to_be_enabled()
        await _assert_reads_whole(shown)
    assert await _listed(app) == before
    shown.assert_clean()


@pytest.mark.parametrize("width", WIDTHS)
async def test_an_empty_plan_and_an_empty_list_say_so_and_offer_nothing_to_add(app: AlfredApp, mount: Any, width: int) -> None:
    rows = await app.store.select(SHOPPING_LIST, Query(columns=("id",), limit=1_000), user_id=app.user_id)
    await app.store.delete(SHOPPING_LIST, Where(all_of=(Filter("id", "in", [row["id"] for row in rows]),)), user_id=app.user_id)
    async with apps_client(build_server(app)) as client:
        plan = await mount(client, "meal_plan_show", {"from": "2027-03-01", "to": "2027-03-07"}, width=width)
        await expect(plan.view.locator("#empty")).to_be_visible()
        await expect(plan.view.locator("#shop")).to_be_hidden()  # the cook's QA: no "Add 0 meals" button
        await expect(plan.view.locator("#days")).to_be_hidden()  # nor seven empty days before the message
        await expect(plan.view.locator("#grid")).to_be_hidden()
        await _assert_reads_whole(plan)
        listed = await mount(client, "shopping_list_show", {}, width=width)
        await expect(listed.view.locator("#empty")).to_have_text("The shopping list is empty.")
        await expect(listed.view.locator("#counts")).to_have_text("0 to buy · 0 bought")
        await _assert_reads_whole(listed)
        plan.assert_clean()
        listed.assert_clean()


@pytest.mark.parametrize("width", WIDTHS)
async def test_a_call_the_host_cannot_complete_shows_its_message_and_adds_nothing(app: AlfredApp, mount: Any, width: int) -> None:
    """The host's connection to the server is gone when the person confirms (the call fails or is cancelled on the
    way): the view shows the host's message, adds nothing, and lets the person try again."""
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "meal_plan_show", WEEK, width=width)
        await shown.view.get_by_role("button", name=BUTTON).click()
        confirm = shown.view.get_by_role("button", name=CONFIRM)
        await expect(confirm).to_be_visible()
    before = await _listed(app)
    await confirm.click()
    await expect(shown.view.get_by_role("alert")).not_to_be_empty()
    await expect(shown.view.locator("#status")).to_be_empty()
    await expect(confirm).to_be_enabled()
    await expect(shown.view.get_by_role("button", name="Already added")).to_have_count(0)
    assert await _listed(app) == before
    await _assert_reads_whole(shown)
    shown.assert_clean()


async def test_a_disliked_line_in_the_add_preview_is_marked_as_the_list_marks_it(app: AlfredApp, mount: Any) -> None:
    """Cook's QA 2 G25: the meal plan's preview marked a disliked line only by grey text ('4 oz blue cheese — you don't
    like blue cheese'); it carries the amber 'disliked: olives' badge, as the card and the list do, said once."""
    (recipe,) = await app.store.insert(RECIPES, [{"name": "Olive Bowl", "servings": 2, "instructions": ["Toss."]}],
                                       user_id=app.user_id)
    await app.store.insert(RECIPE_INGREDIENTS, [
        {"recipe_id": recipe["id"], "position": 1, "name": "kalamata olives", "quantity": 0.5, "unit": "cup"}], user_id=app.user_id)
    await app.store.insert(MEAL_PLANS, [{"date": "2026-01-14", "meal_type": "lunch", "recipe_id": recipe["id"], "servings": 2}],
                           user_id=app.user_id)
    async with apps_client(build_server(app)) as client:
        shown = await mount(client, "meal_plan_show", WEEK, width=400)
        await shown.view.get_by_role("button", name=BUTTON).click()
        olives = shown.view.locator("#preview-lines li.disliked")
        await expect(olives).to_have_count(1)
        await expect(olives).to_contain_text("kalamata olives")
        await expect(olives.locator(".badge.warning")).to_have_text("disliked: olives")
        await expect(olives).not_to_contain_text("you don't like")
        shown.assert_clean()
