"""Read cards: the rows a read returned, as a few compact lines a role can plan from.

A card shows each row's ref and label with the columns that were asked for (or the table's
most useful ones), at most `MAX_CARD_ROWS` rows, and says what it left out: "+4 more" rows,
"more exist" when the read itself was cut by its limit. Refs only; same rows, same card.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from alfred_mcp.kitchen.schema import TABLES, row_label
from alfred_mcp.state.folding import clip

MAX_CARD_ROWS = 10
MAX_VALUE = 40
MAX_COLUMNS = 5

CARD_COLUMNS: Mapping[str, tuple[str, ...]] = {
    "recipes": ("cuisine", "total_minutes", "servings", "parent_recipe_id"),
    "recipe_ingredients": ("recipe_id", "quantity", "unit"),
    "inventory": ("quantity", "unit", "location", "expiry_date"),
    "shopping_list": ("quantity", "unit", "is_purchased"),
    "meal_plans": ("recipe_id", "servings", "notes"),
    "tasks": ("due_date", "completed", "recipe_id"),
    "preferences": ("allergies", "disliked_ingredients", "dietary_restrictions", "available_equipment"),
    "cooking_log": ("recipe_id", "rating"),
    "ingredients": ("category", "aliases"),
}
"""The columns a card shows when the read did not ask for particular ones (besides ref and label)."""
_HIDDEN = frozenset({"id", "user_id", "created_at", "updated_at"})


def read_card(
    table: str, rows: Sequence[Mapping[str, Any]], *, columns: Sequence[str] | None = None, truncated: bool = False,
    max_rows: int = MAX_CARD_ROWS,
) -> str:
    """'db_read recipes: 3 rows' and one line per row: ref, label, then `column=value` pairs."""
    noun = TABLES[table].noun if table in TABLES else "row"
    head = f"{len(rows)} {noun}{'' if len(rows) == 1 else 's'}" + (" (more exist: narrow the filters or raise the limit)" if truncated else "")
    if not rows:
        return f"{table}: no rows matched."
    shown = _columns(table, rows, columns)
    lines = [f"{table}: {head}"]
    lines += [_row_line(table, row, shown) for row in rows[:max_rows]]
    if len(rows) > max_rows:
        lines.append(f"+{len(rows) - max_rows} more: " + ", ".join(str(r.get("id")) for r in rows[max_rows:max_rows + 20])
                     + (" …" if len(rows) > max_rows + 20 else ""))
    return "\n".join(lines)


def _columns(table: str, rows: Sequence[Mapping[str, Any]], asked: Sequence[str] | None) -> tuple[str, ...]:
    present = set().union(*(row.keys() for row in rows)) | {"total_minutes"}
    wanted = [c for c in asked if c not in _HIDDEN] if asked else list(CARD_COLUMNS.get(table, ()))
    label = set(TABLES[table].label_columns) if table in TABLES else set()
    return tuple(c for c in wanted if c in present and c not in label)[:MAX_COLUMNS]


def _row_line(table: str, row: Mapping[str, Any], columns: Sequence[str]) -> str:
    label = row_label(TABLES[table], dict(row)) if table in TABLES else ""
    parts = [f"{name}={text}" for name in columns if (text := _value(row, name))]
    return f"- {row.get('id')}" + (f" {label}" if label else "") + (f" ({'; '.join(parts)})" if parts else "")


def _value(row: Mapping[str, Any], column: str) -> str:
    if column == "total_minutes":
        minutes = row.get("total_minutes") or (row.get("prep_time_minutes") or 0) + (row.get("cook_time_minutes") or 0)
        return f"{minutes} min" if minutes else ""
    value = row.get(column)
    if value is None or value == [] or value == "":
        return ""
    if column.endswith("_id"):
        label = row.get(f"{column}_label")
        return f"{value} {clip(str(label), MAX_VALUE)}" if label else str(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return clip(", ".join(str(item) for item in value), MAX_VALUE)
    return clip(str(value), MAX_VALUE)
