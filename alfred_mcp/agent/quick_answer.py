"""Quick mode's answer: the rows of its one lookup, worded as a person would say them.

No refs, no column names, amounts as a cook writes them ("6 oz", "1 1/2 cups", "1/2 gallon" as stored), dates as a
calendar shows them ("Wed Jan 14", with the year when it is far off). One row is one sentence; more are a short list
under one line. The line names what the lookup asked ("2 items in your fridge", "one meal in your meal plan on Fri
Nov 27"), the pantry flags what is past its date or to use soon as the dashboard does, and the shopping list is
grouped by store section as its checklist is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from alfred_mcp.kitchen.measures import Amount, held, line_text
from alfred_mcp.kitchen.plurals import counted_name
from alfred_mcp.kitchen.recipe_times import duration_text, total_minutes
from alfred_mcp.kitchen.schema import TABLES, row_label, short_date
from alfred_mcp.kitchen.sections import section_order, store_section
from alfred_mcp.kitchen.shopping_lines import shopping_text
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.operations.dashboard import HORIZON_DAYS

Row = dict[str, Any]
Filters = Sequence[Mapping[str, Any]]


def quick_answer(result: dict[str, Any], *, filters: Filters = (), today: date | None = None) -> str:
    """The answer to a quick lookup (a db_read result: table, rows, truncated) as of `today` (dates and use-by flags).
    A read with `filters` found the rows that matched, never the whole table, and says what it asked ('2 items in your
    fridge', not 'In your pantry, 2 items'); a filter it cannot put in words is said as 'matched'. A read cut at its
    limit says how many it shows."""
    table = result["table"]
    rows: list[Row] = result["rows"]
    if table == "preferences":
        return _preferences(rows[0]) if rows else "You have no preferences set yet."
    head = _head(table, len(rows), filters, today)
    if not rows:
        return f"{head}."
    said = {str(where.get("field")) for where in filters if where.get("op", "eq") == "eq"}
    lines = [_line(table, row, today, said) for row in rows]  # every row the read returned: its limit (at most 100) is what was asked
    tail = (f"{'That is the first one' if len(rows) == 1 else f'Those are the first {len(rows)}'}; there are more, ask to see the rest."
            if result.get("truncated") else "")
    if table == "inventory" and today is not None:
        head += _expiry_tally(rows, today)
    if len(rows) == 1:
        return f"{head}: {lines[0]}." + (f" {tail}" if tail else "")
    listed = _by_section(rows, lines) if table == "shopping_list" else [f"- {line}" for line in lines]
    return "\n".join([f"{head}:", *listed, *([tail] if tail else [])])


def quick_refs(result: Mapping[str, Any]) -> str | None:
    """The refs of a quick lookup's rows, for the client's model beside the person's answer (never in it), so a next
    turn can name a row without another lookup: 'Refs of these rows (...): inv_1 salmon fillets, inv_2 avocado'.
    None without rows."""
    table = TABLES.get(str(result.get("table")))
    rows = [row for row in result.get("rows") or () if isinstance(row, Mapping) and isinstance(row.get("id"), str)]
    if table is None or not rows:
        return None
    named = ", ".join(f"{row['id']} {row_label(table, dict(row))}".strip() for row in rows)
    return f"Refs of these rows (for your next turn; the answer to the person leaves them out): {named}"


def _head(table: str, count: int, filters: Filters, today: date | None) -> str:
    """The line over the rows: 'In your pantry, 3 items', '19 items in your fridge', '2 meals matched in your meal
    plan' (a filter not put in words); with no rows, the whole answer: 'No meals in your meal plan on Fri Nov 27',
    'Nothing matched in your pantry'."""
    noun, place = _NOUNS.get(table, TABLES[table].noun), _PLACES.get(table)
    number = "one" if count == 1 else str(count)
    words = [_filter_words(table, where, today) for where in filters]
    where_in = next((word[1:] for word in words if word and word.startswith("@")), None)
    qualifiers = [word for word in words if word and not word.startswith("@")]
    where = where_in or (place[1] if place else "")
    matched = None in words
    if table in _SAID_BY_NOUN and qualifiers and not matched:
        where = ""
    if count == 0:
        if place is None:
            return f"No {counted_name(noun, 2)}" + (" matched" if words else "")
        if matched or not words:
            return f"Nothing {'matched ' if words else ''}{where}"
        return " ".join(part for part in ("No", counted_name(noun, 2), where, *qualifiers) if part)
    if not words:
        return place[0].format(n=number, s="" if count == 1 else "s") if place else f"{number.capitalize()} {counted_name(noun, count)}"
    if table == "recipes":
        return " ".join([f"I found {number} {counted_name(noun, count)}", *qualifiers])
    return " ".join(part for part in (number.capitalize(), counted_name(noun, count), *(["matched"] if matched else []), where, *qualifiers) if part)


_PLACES: dict[str, tuple[str, str]] = {
    "inventory": ("In your pantry, {n} item{s}", "in your pantry"),
    "shopping_list": ("On your shopping list, {n} item{s}", "on your shopping list"),
    "recipes": ("I found {n} recipe{s}", "among your recipes"),
    "meal_plans": ("Your meal plan has {n} meal{s}", "in your meal plan"),
    "tasks": ("You have {n} task{s}", "among your tasks"),
    "cooking_log": ("You cooked {n} time{s}", "in your cooking log"),
}
"""Per table: the line over all its rows, and where a lookup looked."""
_NOUNS = {"inventory": "item", "shopping_list": "item", "meal_plans": "meal", "tasks": "task", "cooking_log": "entry",
          "recipe_ingredients": "recipe ingredient", "ingredients": "catalog ingredient"}
"""What a row is called in an answer, by table (else the table's own noun)."""
_SAID_BY_NOUN = frozenset({"tasks", "cooking_log"})
"""Tables whose noun says where they are ('5 tasks still open', not '5 tasks among your tasks still open')."""
_DAY_OPS = {"eq": "on", "gt": "after", "gte": "from", "lt": "before", "lte": "until"}
_DAY_COLUMNS = {"date": "", "expiry_date": "to use ", "due_date": "due ", "cooked_at": "cooked ", "purchase_date": "bought "}
_FLAGS = {("is_purchased", True): "already bought", ("is_purchased", False): "still to buy",
          ("completed", True): "done", ("completed", False): "still open", ("is_favorite", True): "among your favourites"}


def _filter_words(table: str, where: Mapping[str, Any], today: date | None) -> str | None:
    """A filter as a person says it ('on Fri Nov 27', 'still to buy', 'for dinner'); '@in your fridge' is where the
    rows were looked for; None: a filter not put in words (said as 'matched')."""
    field, op, value = where.get("field"), where.get("op", "eq"), where.get("value")
    if field == "location" and op == "eq" and isinstance(value, str) and value:
        return f"@{'on' if value.lower() in _SURFACES else 'in'} your {value}"
    if field == "category" and op == "eq" and isinstance(value, str) and value and table == "shopping_list":
        return f"in the {value} section"
    if field in _DAY_COLUMNS and op in _DAY_OPS and isinstance(value, str):
        op_word = "by" if field in ("expiry_date", "due_date") and op == "lte" else _DAY_OPS[op]
        return f"{_DAY_COLUMNS[field]}{op_word} {short_date(value, today=today)}"
    if isinstance(value, bool) and op in ("eq", "neq"):
        return _FLAGS.get((field, value if op == "eq" else not value)) if isinstance(field, str) else None
    if field == "meal_type" and op in ("eq", "in") and value:
        return "for " + " or ".join(str(v) for v in (value if isinstance(value, list) else [value]))
    if field in TABLES[table].label_columns and op in ("eq", "ilike") and isinstance(value, str) and value.strip("%").strip():
        word = "name" if field == "name" else str(field).replace("_", " ")
        return f'with "{value.strip("%").strip()}" in the {word}' if op == "ilike" else f'{word}d "{value}"' if word == "name" else f'with the {word} "{value}"'
    if isinstance(field, str) and op == "eq" and isinstance(value, (str, int)) and not isinstance(value, bool) \
            and _is_plain_column(table, field):
        return f"with {field.replace('_', ' ')} {value}"
    return None


def _is_plain_column(table: str, field: str) -> bool:
    """A column whose value can be said as it is (text or a number, not an id)."""
    column = TABLES[table].column(field) if TABLES[table].has_column(field) else None
    return column is not None and column.type in ("text", "int", "numeric") and not field.endswith("_id")


def _line(table: str, row: Row, today: date | None, said: set[str]) -> str:
    """One row as a person writes it, without what the line over the rows said already (the fridge of '19 items in
    your fridge')."""
    if table == "shopping_list":
        return shopping_text(row) + (" (bought)" if row.get("is_purchased") else "")
    if table == "recipe_ingredients" and row.get("name"):  # '2 tbsp olive oil (Lemon Garlic Baked Cod)', as its card shows it
        quantity = row.get("quantity")
        text = line_text(float(quantity) if isinstance(quantity, (int, float)) else None, row.get("unit"), str(row["name"]))
        return text + (f" ({row['recipe_id_label']})" if row.get("recipe_id_label") else "")
    name = row_label(TABLES[table], row, today=today)
    if table == "meal_plans":
        recipe = row.get("recipe_id_label") or ("no recipe" if "recipe_id" in row and row["recipe_id"] is None else None)
        name = f"{name.replace(' [', ', ').rstrip(']')}" + (f": {recipe}" if recipe else "")
    if table == "cooking_log" and row.get("recipe_id_label"):
        name = f"{row['recipe_id_label']}, {name[0].lower()}{name[1:]}"
    if "location" in said:
        row = {**row, "location": None}
    details = [part for part in _DETAILS[table](row, today) if part] if table in _DETAILS else []
    return name + (f" ({', '.join(details)})" if details else "")


def _by_section(rows: list[Row], lines: list[str]) -> list[str]:
    """The lines under their store sections, in the order a shopper walks (as the shopping list's checklist shows)."""
    taxonomy = default_taxonomy()
    sections: dict[str, list[str]] = {}
    for row, line in zip(rows, lines, strict=True):
        sections.setdefault(store_section(str(row.get("name") or ""), row.get("category"), taxonomy, row.get("unit")), []).append(line)
    return [text for section in sorted(sections, key=section_order)
            for text in (section.capitalize(), *(f"- {line}" for line in sections[section]))]


def _days_left(row: Row, today: date | None) -> int | None:
    expiry = row.get("expiry_date")
    if today is None or not isinstance(expiry, str):
        return None
    try:
        return (date.fromisoformat(expiry[:10]) - today).days
    except ValueError:
        return None


def _use_by(row: Row, today: date | None) -> str | None:
    """'use by Mon Dec 14'; flagged as the dashboard flags it: 'past its use-by date, Thu Nov 26', 'use by today',
    'use soon, by Sat Nov 28' (within its horizon)."""
    if not row.get("expiry_date"):
        return None
    day, left = short_date(row["expiry_date"], today=today), _days_left(row, today)
    if left is None or left > HORIZON_DAYS:
        return f"use by {day}"
    if left < 0:
        return f"past its use-by date, {day}"
    return "use by today" if left == 0 else f"use soon, by {day}"


def _expiry_tally(rows: list[Row], today: date) -> str:
    """' (1 past its date, 2 to use soon)' over a list of pantry items; '' when none is."""
    lefts = [left for left in (_days_left(row, today) for row in rows) if left is not None]
    past, soon = sum(1 for left in lefts if left < 0), sum(1 for left in lefts if 0 <= left <= HORIZON_DAYS)
    parts = ([f"{past} past {'its' if past == 1 else 'their'} date"] if past else []) + ([f"{soon} to use soon"] if soon else [])
    return f" ({', '.join(parts)})" if parts and len(rows) > 1 else ""


def _amount(row: Row) -> str | None:
    """What the pantry holds, never rounded away ('1 head + 8 cloves' of garlic, '7/8 bunch' of parsley, '1/2 gallon' of milk)."""
    quantity = row.get("quantity")
    return held(Amount(float(quantity), row.get("unit")), str(row.get("name") or "")) if isinstance(quantity, (int, float)) else row.get("unit")


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


_DETAILS: dict[str, Callable[[Row, date | None], list[str | None]]] = {
    "inventory": lambda row, today: [_amount(row), _where(row), _use_by(row, today)],
    "recipes": lambda row, today: [row.get("cuisine"), _minutes(row)],
    "meal_plans": lambda row, today: [row.get("notes")],
    "cooking_log": lambda row, today: [f"{row['servings']} servings" if row.get("servings") else None,
                                       f"rated {row['rating']}/5" if row.get("rating") else None, row.get("notes")],
    "tasks": lambda row, today: [f"due {short_date(row['due_date'], today=today)}" if row.get("due_date") else None,
                                 "done" if row.get("completed") else None],
}
"""What a cook wants to know of each row, beside its name."""
