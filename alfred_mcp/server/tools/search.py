"""Search tools: recipes by category, ingredient, cuisine, time or equipment; what can be made."""

from __future__ import annotations

from datetime import date

from alfred_mcp.app import AlfredApp
from alfred_mcp.operations import search, understanding
from alfred_mcp.operations.dashboard import NextMeal, meals_on
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult, work_on
from alfred_mcp.server.tools.common import session_context as _context


async def recipes_search(app: AlfredApp, args: ToolArgs) -> ToolResult:
    honor = args.get("honor_constraints", True)
    query = search.RecipeQuery(
        category=args.get("category"), ingredient=args.get("ingredient"), cuisine=args.get("cuisine"),
        max_minutes=args.get("max_minutes"), equipment=_tag(args.get("equipment")), honor_constraints=honor,
        limit=args.get("limit", 20),
    )
    async with work_on(app, "recipes_search", args) as work:
        compiled = await understanding.compiled_constraints(work) if honor else None
        found = await search.search_recipes(work, query, compiled)
        return {
            "recipes": found.recipes, "count": len(found.recipes), "truncated": found.truncated,
            "category": found.category, "expanded": list(found.expanded), "excluded": found.excluded,
            "constraints_applied": honor, **_context(work.session),
        }


def _tag(equipment: str | None) -> str | None:
    """'Air Fryer' -> 'air-fryer', the form equipment tags are stored in."""
    return "-".join(equipment.lower().split()) if equipment else None


async def recipes_makeable(app: AlfredApp, args: ToolArgs) -> ToolResult:
    honor = args.get("honor_constraints", True)
    async with work_on(app, "recipes_makeable", args) as work:
        compiled = await understanding.compiled_constraints(work)  # not honored: flagged on the recipes it suggests
        found = await search.makeable_recipes(work, compiled, min_coverage=args.get("min_coverage", 0.0), limit=args.get("limit", 10),
                                              flag_only=not honor, today=date.today())
        planned = [planned_line(meal) for meal in await meals_on(work, date.today()) if not meal.get("cooked")]
        return {
            "recipes": found.recipes, "count": len(found.recipes), "pantry_items": found.pantry_items,
            "excluded": found.excluded, "constraints_applied": honor, **({"planned_today": planned} if planned else {}),
            **_context(work.session),
        }


def planned_line(meal: NextMeal) -> str:
    """'dinner: meal_4 Chicken Fajitas (recipe_5)', 'lunch: meal_3 "leftover chicken"': a meal planned today, which
    "what can I cook tonight" answers with before any suggestion."""
    what = f"{meal['recipe_label']} ({meal['recipe']})" if meal.get("recipe") else f'"{meal["note"]}"' if meal.get("note") else "no recipe yet"
    return f"{meal['meal_type']}: {meal['ref']} {what}"


HANDLERS: dict[str, Handler] = {
    "recipes_search": recipes_search,
    "recipes_makeable": recipes_makeable,
}
