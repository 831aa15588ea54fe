"""Tools with an MCP Apps view: recipe_show, meal_plan_show, shopping_list_show, and shopping_list_check (the
shopping list view's checkboxes). Each result is the structured data its view renders; `view_texts.py`
(in kitchen/) gives the text a client without views shows instead.
"""

from __future__ import annotations

from datetime import date

from alfred_mcp.app import AlfredApp
from alfred_mcp.operations import meal_week, recipe_card, shopping_checklist
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult, iso_date, work_on
from alfred_mcp.server.tools.common import session_context as _context


async def recipe_show(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "recipe_show", args) as work:
        return {**await recipe_card.recipe_card(work, args["recipe"]), **_context(work.session)}


async def meal_plan_show(app: AlfredApp, args: ToolArgs) -> ToolResult:
    first, last = meal_week.plan_range(_date(args, "from"), _date(args, "to"), today=date.today())
    async with work_on(app, "meal_plan_show", args) as work:
        return {**await meal_week.meal_plan(work, first, last), **_context(work.session)}


async def shopping_list_show(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "shopping_list_show", args) as work:
        return {**await shopping_checklist.checklist(work, to_buy=bool(args.get("to_buy"))), **_context(work.session)}


async def shopping_list_check(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "shopping_list_check", args) as work:
        return {**await shopping_checklist.mark_bought(work, args["items"], args["bought"], date.today()), **_context(work.session)}


def _date(args: ToolArgs, field: str) -> date | None:
    return None if args.get(field) is None else iso_date(args[field], field, end=field == "to")


HANDLERS: dict[str, Handler] = {
    "recipe_show": recipe_show,
    "meal_plan_show": meal_plan_show,
    "shopping_list_show": shopping_list_show,
    "shopping_list_check": shopping_list_check,
}
