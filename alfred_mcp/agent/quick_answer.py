"""Quick mode's answer: the rows of its one lookup, worded as a person would say them.

No refs, no column names, amounts as a cook writes them ("6 oz", "1 1/2 cups", not "6.0 oz"), dates as a
calendar shows them ("Wed Jan 14"). One row is one sentence; more are a short list under one line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from alfred_mcp.kitchen.measures import Amount, amount_to_buy, held
from alfred_mcp.kitchen.plurals import counted_name
from alfred_mcp.kitchen.recipe_times import duration_text, total_minutes
from alfred_mcp.kitchen.schema import TABLES, row_label, short_date

Row = dict[str, Any]


def quick_answer(result: dict[str, Any], *, filtered: bool = False) -> str:
    """The answer to a quick lookup (a db_read result: table, rows, truncated). A `filtered` read found the rows that
    matched, never the whole table ('2 meals matched in your meal plan', not 'Your meal plan has 2 meals'); a read cut
    at its limit says how many it shows."""
    table = result["table"]
    rows: list[Row] = result["rows"]
    place = _PLACES.get(table)
    if not rows:
        return f"Nothing matched {place[1]}." if place else f"No {counted_name(TABLES[table].noun, 2)} matched."
    lines = [_line(table, row) for row in rows]  # every row the read returned: its limit (at most 100) is what was asked
    tail = (f"{'That is the first one' if len(rows) == 1 else f'Those are the first {len(rows)}'}; there are more, ask to see the rest."
            if result.get("truncated") else "")
    if table == "preferences":
        return _preferences(rows[0])
    one = len(rows) == 1
    count = "one" if one else str(len(rows))
    if filtered and table in _MATCHED:
        head = f"{count.capitalize()} {counted_name(_MATCHED[table], len(rows))} matched {place[1] if place else ''}".strip()
    else:
        head = place[0].format(n=count, s="" if one else "s") if place else f"{count.capitalize()} {counted_name(TABLES[table].noun, len(rows))}"
    if one:
        return f"{head}: {lines[0]}." + (f" {tail}" if tail else "")
    return "\n".join([f"{head}:", *(f"- {line}" for line in lines), *([tail] if tail else [])])


_PLACES: dict[str, tuple[str, str]] = {
    "inventory": ("In your pantry, {n} item{s}", "in your pantry"),
    "shopping_list": ("On your shopping list, {n} item{s}", "on your shopping list"),
    "recipes": ("I found {n} recipe{s}", "among your recipes"),
    "meal_plans": ("Your meal plan has {n} meal{s}", "in your meal plan"),
    "tasks": ("You have {n} task{s}", "among your tasks"),
    "cooking_log": ("You cooked {n} time{s}", "in your cooking log"),
}
"""Per table: the line over the rows, and where nothing was found."""
_MATCHED = {"inventory": "item", "shopping_list": "item", "meal_plans": "meal", "tasks": "task", "cooking_log": "entry",
            "recipe_ingredients": "recipe ingredient", "ingredients": "catalog ingredient"}
"""What a filtered read found, by table: rows that matched, not all there are (a recipe search says 'I found')."""


def _line(table: str, row: Row) -> str:
    name = row_label(TABLES[table], row)
    if table == "meal_plans":
        recipe = row.get("recipe_id_label") or ("no recipe" if "recipe_id" in row and row["recipe_id"] is None else None)
        name = f"{name.replace(' [', ', ').rstrip(']')}" + (f": {recipe}" if recipe else "")
    details = [part for part in _DETAILS[table](row) if part] if table in _DETAILS else []
    return name + (f" ({', '.join(details)})" if details else "")


def _amount(row: Row) -> str | None:
    """What the pantry holds, never rounded away ('1 head + 8 cloves' of garlic, '7/8 bunch' of parsley)."""
    quantity = row.get("quantity")
    return held(Amount(float(quantity), row.get("unit")), str(row.get("name") or "")) if isinstance(quantity, (int, float)) else row.get("unit")


def _to_buy(row: Row) -> str | None:
    """A shopping line's amount as the list shows it ('1 bunch, need 3/4 tsp' of thyme)."""
    quantity = row.get("quantity")
    return amount_to_buy(float(quantity), row.get("unit"), str(row.get("name") or "")) if isinstance(quantity, (int, float)) else row.get("unit")


def _minutes(row: Row) -> str | None:
    minutes = total_minutes(row)
    return duration_text(minutes) if minutes else None


def _where(row: Row) -> str | None:
    location = row.get("location")
    if not isinstance(location, str) or not location:
        return None
    return f"{'on' if location.lower() in _SURFACES else 'in'} the {location}"


_SURFACES = frozenset({"counter", "countertop", "shelf", "table", "windowsill", "rack"})
_PREFERENCE_WORDS = {
    "allergies": "allergies", "dietary_restrictions": "diet", "disliked_ingredients": "dislikes", "favorite_cuisines": "favourite cuisines",
    "available_equipment": "equipment", "nutrition_goals": "goals", "cooking_skill_level": "skill", "time_budget_minutes": "time",
    "household_adults": "adults", "household_kids": "kids", "household_babies": "babies",
}


def _preferences(row: Row) -> str:
    """'Your preferences: allergies: shellfish; diet: vegetarian; …' (what is set, in a cook's words)."""
    parts = []
    for column, word in _PREFERENCE_WORDS.items():
        value = row.get(column)
        if isinstance(value, list) and value:
            parts.append(f"{word}: {', '.join(str(v) for v in value)}")
        elif isinstance(value, (int, str)) and value not in ("", 0) and not isinstance(value, bool):
            parts.append(f"{word}: {duration_text(int(value))}" if column == "time_budget_minutes" else f"{word}: {value}")
    return "Your preferences: " + "; ".join(parts) + "." if parts else "You have no preferences set yet."


_DETAILS: dict[str, Callable[[Row], list[str | None]]] = {
    "inventory": lambda row: [_amount(row), _where(row), f"use by {short_date(row['expiry_date'])}" if row.get("expiry_date") else None],
    "shopping_list": lambda row: [_to_buy(row), "bought" if row.get("is_purchased") else None],
    "recipes": lambda row: [row.get("cuisine"), _minutes(row)],
    "meal_plans": lambda row: [row.get("notes")],
    "tasks": lambda row: [f"due {short_date(row['due_date'])}" if row.get("due_date") else None, "done" if row.get("completed") else None],
}
"""What a cook wants to know of each row, beside its name."""
