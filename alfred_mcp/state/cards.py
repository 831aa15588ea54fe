"""Read cards: the rows a read returned, as compact lines a role can plan from.

A card shows each row's ref and label with the columns that were asked for (or the table's most
useful ones), row after row while the card fits `CARD_BUDGET` characters. Every cut says what it
left out and how to get it: the refs of the rows not shown with the read that shows them, a value
cut short with how to read it whole, "more exist" when the read itself was cut by its limit.
Text a read asked for (steps, notes) is kept up to `MAX_ASKED_VALUE`; the default columns are
clipped to `MAX_VALUE`. Refs only; same rows, same card. Drafts show their content (the values given)
while they fit their budget, else their size with the draft_read that shows them whole.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from alfred_mcp.kitchen.plurals import counted
from alfred_mcp.kitchen.recipe_times import total_minutes
from alfred_mcp.kitchen.schema import TABLES, row_label
from alfred_mcp.state.folding import ELLIPSIS, clip
from alfred_mcp.state.narrative import compact_refs, plural

CARD_BUDGET = 1_500
"""Characters a card may take, its head and its notes about cuts included."""
MAX_VALUE = 40
"""A value of a column the read did not ask for is clipped to this many characters."""
MAX_ASKED_VALUE = 600
"""A value of a column the read asked for (a step, a note) is clipped only past this many."""
MAX_COLUMNS = 5
"""Default columns shown; every column a read asks for is shown."""

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
READ_TOOLS = ("db_read", "recipes_search", "recipes_makeable")
"""The tools whose result card is what a step read."""
_ROOM_FOR_CUTS = 200
"""Kept free of rows for the lines that say what was cut."""


def read_card(
    table: str, rows: Sequence[Mapping[str, Any]], *, columns: Sequence[str] | None = None, truncated: bool = False,
    budget: int = CARD_BUDGET,
) -> str:
    """'recipes: 3 recipes' and one line per row (ref, label, `column=value` pairs) within `budget` characters."""
    if not rows:
        return f"{table}: no rows matched."
    noun = TABLES[table].noun if table in TABLES else "row"
    more = " (more exist: narrow the filters or raise the limit)" if truncated else ""
    lines = [f"{table}: {len(rows)} {noun if len(rows) == 1 else plural(noun)}{more}"]
    shown = _columns(table, rows, columns)
    width = MAX_ASKED_VALUE if columns else MAX_VALUE
    used = len(lines[0])
    count = 0
    for row in rows:
        line = _row_line(table, row, shown, width)
        if count and used + len(line) + 1 > budget - _ROOM_FOR_CUTS:
            break
        lines.append(line)
        used += len(line) + 1
        count += 1
    cut_note = f"(a value ending in {ELLIPSIS} was cut: db_read its row by ref, with that column, for all of it)"
    cut = any(ELLIPSIS in line for line in lines[1:])
    if count < len(rows):
        lines.append(_rest(table, rows[count:], budget - used - 1 - (len(cut_note) + 1 if cut else 0)))
    if cut:
        lines.append(cut_note)
    return "\n".join(lines)


def _rest(table: str, rows: Sequence[Mapping[str, Any]], room: int) -> str:
    """'+3 more not shown: ri_11..ri_13 (db_read recipe_ingredients with filters id in those refs shows them)'."""
    head, tail = f"+{len(rows)} more not shown: ", f" (db_read {table} with filters id in those refs shows them)"
    refs = [str(row.get("id")) for row in rows]
    for ranges in (12, 6, 3, 1):
        text = head + compact_refs(refs, max_ranges=ranges) + tail
        if len(text) <= room:
            break
    return text


def card_columns(table: str) -> tuple[str, ...]:
    """The columns a card of `table` shows when none are asked for."""
    return CARD_COLUMNS.get(table, ())[:MAX_COLUMNS]


def _columns(table: str, rows: Sequence[Mapping[str, Any]], asked: Sequence[str] | None) -> tuple[str, ...]:
    present = set().union(*(row.keys() for row in rows)) | {"total_minutes"}
    label = set(TABLES[table].label_columns) if table in TABLES else set()
    if asked:
        return tuple(c for c in dict.fromkeys(asked) if c not in _HIDDEN and c in present and c not in label)
    return tuple(c for c in CARD_COLUMNS.get(table, ()) if c in present and c not in label)[:MAX_COLUMNS]


def _row_line(table: str, row: Mapping[str, Any], columns: Sequence[str], width: int) -> str:
    label = row_label(TABLES[table], dict(row)) if table in TABLES else ""
    parts = [f"{name}={text}" for name in columns if (text := _value(row, name, width))]
    return f"- {row.get('id')}" + (f" {label}" if label else "") + (f" ({'; '.join(parts)})" if parts else "")


def _value(row: Mapping[str, Any], column: str, width: int) -> str:
    if column == "total_minutes":
        minutes = row.get("total_minutes") or total_minutes(row)
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
        return clip(" | ".join(str(item) for item in value) if width > MAX_VALUE else ", ".join(str(item) for item in value), width)
    return clip(str(value), width)


def cards_within(cards: Sequence[str], budget: int) -> str | None:
    """Several read cards as one, within `budget` characters: the latest ones whole, an earlier one that does
    not fit by its head line only, saying how to see its rows again. None without cards."""
    kept: list[str] = []
    used = 0
    for card in reversed(cards):
        head = card.splitlines()[0]
        text = card if used + len(card) + 1 <= budget else f"{head} (its rows left out here: read them again to see them)"
        if used + len(text) + 1 > budget:
            break
        kept.append(text)
        used += len(text) + 1
    left = len(cards) - len(kept)
    if left and kept:  # a cut list says so, and how to get the rest
        kept.append(f"(+{left} earlier {'read' if left == 1 else 'reads'} left out here: read again to see them)")
    return "\n".join(reversed(kept)) or None


def draft_text(content: Mapping[str, Any]) -> str:
    """A draft's content as compact JSON of the values given (no null, empty text or empty list): what it saves."""
    return json.dumps(_given(content), ensure_ascii=False, separators=(",", ":"))


def _given(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _given(v) for k, v in value.items() if v is not None and v != "" and v != [] and v != {}}
    if isinstance(value, list):
        return [_given(item) for item in value]
    return value


def draft_size(content: Mapping[str, Any]) -> str:
    """'13 ingredients, 5 steps, serves 4' for a recipe; the fields given for anything else."""
    parts = []
    if isinstance(content.get("ingredients"), list):
        parts.append(counted(len(content["ingredients"]), "ingredient"))
    if isinstance(content.get("instructions"), list):
        parts.append(counted(len(content["instructions"]), "step"))
    if content.get("servings"):
        parts.append(f"serves {content['servings']}")
    if content.get("parent_recipe"):
        parts.append(f"variation of {content['parent_recipe']}")
    return ", ".join(parts) or ", ".join(f"{k}: {v}" for k, v in content.items() if isinstance(v, (str, int, float)))[:160]


def draft_lines(drafts: Sequence[Mapping[str, Any]], *, budget: int = CARD_BUDGET) -> list[str]:
    """Each draft as '- gen_recipe_1: Label [pending]' with its content (`draft_text`) on the next line, while the
    drafts fit `budget` characters; a draft past it by its size, saying how to read it whole."""
    lines, used = [], 0
    for draft in drafts:
        head = f"- {draft.get('ref')}: {draft.get('label')} [{draft.get('status')}]"
        content = draft.get("content") if isinstance(draft.get("content"), Mapping) else None
        text = f"  {draft_text(content)}" if content else ""
        if content and used + len(head) + len(text) + 2 > budget:
            text = f"  ({draft_size(content)}; draft_read refs=[\"{draft.get('ref')}\"] shows it whole)"
        lines += [head, text] if text else [head]
        used += len(head) + len(text) + 2
    return lines
