"""The text result of each tool that has a view: what a client without MCP Apps shows, complete on its own.

A person (or a model reading only text) gets the recipe card, the week or the checklist as plain
lines with every ref, so nothing the view shows is lost without it. The same text is what a turn's
stage answers show for these tools (agent.act_tools.result_card): one rendering, never two.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from alfred_mcp.kitchen.dates import day_text
from alfred_mcp.kitchen.plurals import counted
from alfred_mcp.kitchen.recipe_times import duration_text, total_minutes

ToolResult = dict[str, Any]
TextRenderer = Callable[[ToolResult], str]


FOR_COOKED = "for a meal already cooked"
"""What an open shopping line listed only for cooked meals says (shopping_list_show's `for_cooked`)."""
DRAFT_FACT = "draft, not saved"
"""What a draft's card says first after its name and ref: it is not in the recipes yet."""


def recipe_text(card: ToolResult) -> str:
    facts = [DRAFT_FACT if card.get("draft") else None, f"serves {card['servings']}" if card.get("servings") else None,
             _minutes("prep", card.get("prep_time_minutes")), _minutes("cook", card.get("cook_time_minutes")),
             _minutes("total", _total(card)),
             _titled(card.get("cuisine")), _titled(card.get("difficulty"))]
    lines = [f"{card['name']} ({card['recipe']})" + "".join(f" · {fact}" for fact in facts if fact)]
    if card.get("description"):
        lines.append(card["description"])
    lines += [f"Allergy warning: {', '.join(hit['ingredients'])} ({hit['allergen']})." for hit in card["allergens"]]
    lines += [f"Conflict: {reason}." for reason in card["conflicts"]]
    lines.append("Ingredients:")
    lines += [f"- {_ingredient(line)}" for line in card["ingredients"]] or ["- (none recorded)"]
    lines.append("Steps:")
    lines += [f"{n}. {step}" for n, step in enumerate(card["steps"], 1)] or ["(none recorded)"]
    if card.get("source_url"):
        lines.append(f"Source: {card['source_url']}")
    return "\n".join(lines)


def meal_plan_text(plan: ToolResult) -> str:
    meals = plan["meals"]
    cooked = sum(1 for meal in meals if meal.get("cooked"))
    lines = [f"Meal plan {plan['from']} to {plan['to']}: {counted(len(meals), 'meal')}" + (f" ({cooked} cooked)." if cooked else ".")]
    for day in plan["days"]:
        todays = [meal for meal in meals if meal["date"] == day]
        lines.append(f"{_day(day)} ({day})" + ("" if todays else ": nothing planned"))
        lines += [f"  {_meal(meal)}" for meal in todays]
    if plan.get("planned_after"):
        lines.append(f"(+{counted(plan['planned_after'], 'more meal')} planned after {_day(plan['to'])}: meal_plan_show "
                     f"from {_next_day(plan['to'])} shows them)")
    return "\n".join(lines)


def shopping_list_text(checklist: ToolResult) -> str:
    lines = [f"Shopping list: {checklist['open']} to buy, {checklist['bought']} bought."]
    for section in checklist["sections"]:
        lines.append(section["section"].capitalize())
        lines += [f"  {_shopping_line(line)}" for line in section["lines"]]
    if checklist.get("truncated"):
        lines.append("(more lines not shown: db_read shopping_list pages through every line, with its cursor)")
    return "\n".join(lines)


def shopping_check_text(result: ToolResult) -> str:
    changed = "; ".join(_shopping_line(line) for line in result["lines"])
    pantry = [_pantry_change(item) for item in (*result.get("stocked", ()), *result.get("unstocked", ()))]
    said = f"\nPantry: {'; '.join(pantry)}" if pantry else ""
    return f"{changed}{said}\nShopping list: {result['open']} to buy, {result['bought']} bought."


def _pantry_change(item: dict[str, Any]) -> str:
    """What ticking (or unticking) did to one pantry row: '+6 oz pancetta (inv_1, now 6 oz)'."""
    if "ref" not in item:
        return f"{item['name']}: {item.get('note', 'not stocked')}"
    moved = f"+{item['added']}" if "added" in item else f"-{item['taken']}"
    now = "gone" if item.get("gone") else f"now {item['now']}"
    return f"{moved} {item['name']} ({item['ref']}, {now})"


def _titled(text: Any) -> str | None:
    """'middle-eastern' as the card writes it: 'Middle Eastern'; None for nothing."""
    return " ".join(word.capitalize() for word in re.split(r"[\s-]+", str(text)) if word) or None if text else None


def _total(card: ToolResult) -> int | None:
    """The stored total, else prep + cook when both are known (one alone says the total already)."""
    both = card.get("prep_time_minutes") and card.get("cook_time_minutes")
    return card.get("total_time_minutes") or (total_minutes(card) if both else None)


def _minutes(label: str, minutes: Any) -> str | None:
    return f"{label} {duration_text(minutes)}" if minutes else None


def _ingredient(line: dict[str, Any]) -> str:
    text = str(line["text"]) + (f", {line['notes']}" if line.get("notes") else "")
    if line.get("optional"):
        text += " (optional)"
    if line.get("allergen"):
        text += f" [allergen: {line['allergen']}]"
    return text


def _meal(meal: dict[str, Any]) -> str:
    dish = f"{meal['name']} ({meal['recipe']})" if meal.get("recipe") else "no recipe"
    text = f"{meal['meal_type']}: {dish}, {meal['ref']}"
    if meal.get("servings"):
        text += f", {counted(meal['servings'], 'serving')}"
    if meal.get("cooked"):  # done: nothing to cook or shop for
        text += ", cooked"
    if meal.get("notes"):
        text += f" - {meal['notes']}"
    text += "".join(f" [conflict: {reason}]" for reason in meal["conflicts"])
    return text


def _shopping_line(line: dict[str, Any]) -> str:
    text = f"[{'x' if line['bought'] else ' '}] {line['text']} ({line['ref']})"
    if line.get("source"):
        text += f" for {line['source']}"
    if line.get("for_cooked"):
        text += f" ({FOR_COOKED})"
    if line.get("notes"):
        text += f" - {line['notes']}"
    return text


def _day(iso: str) -> str:
    return day_text(iso)


def _next_day(iso: str) -> str:
    return (date.fromisoformat(iso) + timedelta(days=1)).isoformat()


TEXTS: dict[str, TextRenderer] = {
    "recipe_show": recipe_text,
    "meal_plan_show": meal_plan_text,
    "shopping_list_show": shopping_list_text,
    "shopping_list_check": shopping_check_text,
}
