"""What a kitchen holds, as a person would check it: names, amounts and dates, never ids or timestamps.

Read straight from the SQLite file (the live recording's and the replay's alike), so two runs of one
conversation can be compared turn by turn. Dates are kept as dates: replays run on the recording's day.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

Digest = dict[str, list[list[Any]]]

_QUERIES: dict[str, str] = {
    "recipes": "SELECT r.name, r.servings, r.prep_time_minutes, r.cook_time_minutes,"
               " (SELECT count(*) FROM recipe_ingredients i WHERE i.recipe_id = r.id) FROM recipes r",
    "recipe_ingredients": "SELECT r.name, i.name, i.quantity, i.unit, i.is_optional"
                          " FROM recipe_ingredients i JOIN recipes r ON r.id = i.recipe_id",
    "meal_plans": "SELECT m.date, m.meal_type, r.name, m.servings FROM meal_plans m LEFT JOIN recipes r ON r.id = m.recipe_id",
    "shopping_list": "SELECT name, quantity, unit, is_purchased FROM shopping_list",
    "inventory": "SELECT name, quantity, unit, location FROM inventory",
    "cooking_log": "SELECT r.name, c.servings, c.rating FROM cooking_log c LEFT JOIN recipes r ON r.id = c.recipe_id",
    "tasks": "SELECT t.title, t.due_date, t.completed FROM tasks t",
    "preferences": "SELECT allergies, disliked_ingredients FROM preferences",
}


def kitchen_digest(db: Path | str) -> Digest:
    """Every user row of the kitchen in `db`, as sorted lists of what a person reads."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {table: sorted(([_plain(v) for v in row] for row in connection.execute(sql)), key=repr)
                for table, sql in _QUERIES.items()}
    finally:
        connection.close()


def _plain(value: Any) -> Any:
    """Numbers as floats rounded for comparison (a quantity stored as 2 or 2.0 reads the same)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return round(float(value), 4)
    return str(value)


def digest_changes(before: Digest, after: Digest) -> dict[str, dict[str, list[list[Any]]]]:
    """Rows added and removed per table between two digests (for a readable assertion message)."""
    changes: dict[str, dict[str, list[list[Any]]]] = {}
    for table in after:
        added = [row for row in after[table] if row not in before.get(table, [])]
        removed = [row for row in before.get(table, []) if row not in after[table]]
        if added or removed:
            changes[table] = {"added": added, "removed": removed}
    return changes
