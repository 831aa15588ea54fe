"""A tool result as compact lines: what it returned, whole, in fewer characters than its JSON.

Scalars of an object share one line (`name: value; servings: 8`); a list of objects is a small table, its
columns named once (`lines (2): ref | name | text`) and one line per row (`- shop_13 | cod fillets | 2 cod
fillets`); a list of plain values is one line; a nested object is flattened (`constraints.must_exclude`).
Empty values (null, "", [], {}) say nothing and are left out. Past `budget` characters the rows stop at a row
boundary and the cut says which rows were left out and how to get them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from alfred_mcp.state.narrative import compact_refs
from alfred_mcp.state.refs import is_ref

_CELL = " | "


def compact_lines(result: Mapping[str, Any], *, budget: int, rest_hint: str) -> list[str]:
    """`result` as compact lines within `budget` characters; a list cut short ends with '+N more <key> not shown:
    <their refs or positions> (<rest_hint>)'. `rest_hint` says how to get rows left out (by ref, or narrower)."""
    lines: list[str] = []
    _object_lines("", result, lines)
    return _within(lines, budget, rest_hint)


def _given(value: Any) -> bool:
    return value is not None and value != "" and value != [] and value != {}


def _object_lines(prefix: str, value: Mapping[str, Any], lines: list[str]) -> None:
    scalars = [(key, item) for key, item in value.items() if _given(item) and not isinstance(item, (Mapping, list))]
    if scalars:
        lines.append("; ".join(_scalar_pair(prefix + key, item) for key, item in scalars))
    for key, item in value.items():
        if not _given(item):
            continue
        if isinstance(item, Mapping):
            _object_lines(f"{prefix}{key}.", item, lines)
        elif isinstance(item, list):
            _list_lines(prefix + key, item, lines)


def _scalar_pair(key: str, value: Any) -> str:
    text = _scalar(value)
    return f"{key}:\n{text}" if "\n" in text else f"{key}: {text}"


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _list_lines(key: str, items: list[Any], lines: list[str]) -> None:
    if all(isinstance(item, Mapping) for item in items) and (len(items) == 1 or any(_nested(item) for item in items)):
        for number, item in enumerate(items, 1):  # rows holding lists of their own: each its own block
            _object_lines(f"{key}[{number}]." if len(items) > 1 else f"{key}.", item, lines)
    elif all(isinstance(item, Mapping) for item in items):
        columns = list(dict.fromkeys(column for item in items for column, cell in item.items() if _given(cell)))
        lines.append(f"{key} ({len(items)}): {_CELL.join(columns)}")
        lines += [_ROW + _CELL.join(_cells(item, columns)) for item in items]
    elif all(not isinstance(item, (Mapping, list)) for item in items) and not any(", " in str(item) for item in items):
        lines.append(f"{key}: {', '.join(_scalar(item) for item in items)}")
    else:
        lines.append(f"{key}: {_json(items)}")


_ROW = "- "


def _nested(item: Mapping[str, Any]) -> bool:
    """Whether a row holds a list of objects (a table's columns): shown as a block, not squeezed into a cell."""
    return any(isinstance(value, list) and any(isinstance(v, Mapping) for v in value) for value in item.values())


def _cells(item: Mapping[str, Any], columns: Sequence[str]) -> list[str]:
    """A row's cells in column order, the empty ones at its end left out (the columns count from the left)."""
    cells = [_cell(item.get(column)) for column in columns]
    while cells and not cells[-1]:
        cells.pop()
    return cells


def _cell(value: Any) -> str:
    if not _given(value):
        return ""
    if isinstance(value, list) and all(isinstance(item, (str, int, float)) for item in value):
        text = ", ".join(str(item) for item in value)
        return text if not any(", " in str(item) or "|" in str(item) for item in value) else _json(value)
    if isinstance(value, (Mapping, list)):
        return _json(value)
    text = _scalar(value)
    return _json(text) if "\n" in text or "|" in text else text


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _within(lines: Sequence[str], budget: int, rest_hint: str) -> list[str]:
    """The lines while they fit `budget`. Past it, the longest lists after the first (the result's own rows) give up
    their last rows first, so every list keeps some (what is already on the shopping list as much as what the pantry
    covers) and the first stays whole longest; each list cut says which of
    its rows it left out (positions, refs when they have them), the last line how to get them. When even that does
    not fit, the lines stop where the budget ends and the cut names the rest."""
    if sum(len(line) + 1 for line in lines) <= budget:
        return list(lines)
    shared = _shared_cut(lines, budget, rest_hint)
    if shared is not None:
        return shared
    kept: list[str] = []
    used, room = 0, budget - _ROOM_FOR_CUT
    for number, line in enumerate(lines):
        if used + len(line) + 1 > room:
            return [*kept, _rest(lines, number, rest_hint)]
        kept.append(line)
        used += len(line) + 1
    return kept


def _shared_cut(lines: Sequence[str], budget: int, rest_hint: str) -> list[str] | None:
    tables = _tables(lines)
    shown = {head: len(rows) for head, rows in tables.items()}
    first = min(shown, default=0)
    while True:
        kept = _kept(lines, tables, shown, rest_hint)
        over = sum(len(line) + 1 for line in kept) - budget
        if over <= 0:
            return kept
        while over > 0:  # the longest list after the first gives up its last row shown, the first one last
            head = max((h for h in shown if shown[h] > _MIN_ROWS), key=lambda h: (h != first, shown[h], -h), default=None)
            if head is None:
                return None
            shown[head] -= 1
            over -= len(lines[tables[head][shown[head]]]) + 1


_MIN_ROWS = 3
"""Rows a list keeps when the lists share a cut (fewer, and the budget cuts at its end instead)."""


def _tables(lines: Sequence[str]) -> dict[int, list[int]]:
    """Each list's header line number with the line numbers of its rows."""
    tables: dict[int, list[int]] = {}
    head: int | None = None
    for number, line in enumerate(lines):
        if line.startswith(_ROW) and head is not None:
            tables[head].append(number)
        else:
            head = number
            tables[head] = []
    return {head: rows for head, rows in tables.items() if rows}


def _kept(lines: Sequence[str], tables: dict[int, list[int]], shown: dict[int, int], rest_hint: str) -> list[str]:
    owner = {number: (head, position) for head, rows in tables.items() for position, number in enumerate(rows)}
    kept: list[str] = []
    for number, line in enumerate(lines):
        head, position = owner.get(number, (None, 0))
        if head is None or position < shown[head]:
            kept.append(line)
        elif position == shown[head]:
            kept.append(_rows_left(lines, head, tables[head][position:], shown[head]))
    cut = any(shown[head] < len(rows) for head, rows in tables.items())
    return [*kept, f"(rows not shown: {rest_hint})"] if cut else kept


def _rows_left(lines: Sequence[str], head: int, left: Sequence[int], shown: int) -> str:
    """'+8 more rows of covered not shown (rows 21-28)' with their refs when they have them."""
    key = lines[head].split(" (", 1)[0]
    firsts = [lines[n][len(_ROW):].split(_CELL, 1)[0] for n in left]
    refs = compact_refs(firsts, max_ranges=8) if all(is_ref(first) for first in firsts) else ""
    return f"+{len(left)} more rows of {key} not shown (rows {shown + 1}-{shown + len(left)}" + (f": {refs}" if refs else "") + ")"


_ROOM_FOR_CUT = 240
"""Characters kept free of rows for the line that says what was cut."""


def _rest(lines: Sequence[str], cut: int, rest_hint: str) -> str:
    """'+113 more rows of refs not shown (rows 41-153: shop_5..shop_12, ...) and 2 more lists (...)'."""
    head = next((n for n in range(cut - 1, -1, -1) if not lines[n].startswith(_ROW)), None)
    rows = [line for line in lines[cut:] if line.startswith(_ROW)]
    table_rows = len(rows) if head is None else next(
        (n - cut for n in range(cut, len(lines)) if not lines[n].startswith(_ROW)), len(lines) - cut)
    after = [line.split(" (", 1)[0].split(":", 1)[0] for line in lines[cut + table_rows:] if not line.startswith(_ROW)]
    parts = []
    if table_rows and head is not None:
        key = lines[head].split(" (", 1)[0]
        shown = cut - head - 1
        firsts = [line[len(_ROW):].split(_CELL, 1)[0] for line in lines[cut:cut + table_rows]]
        refs = compact_refs(firsts, max_ranges=8) if all(is_ref(first) for first in firsts) else ""
        parts.append(f"+{table_rows} more rows of {key} not shown (rows {shown + 1}-{shown + table_rows}"
                     + (f": {refs}" if refs else "") + ")")
    if after:
        parts.append(f"{len(after)} more lists not shown ({', '.join(after[:6])}{', ...' if len(after) > 6 else ''})")
    return " and ".join(parts) + f": {rest_hint}"
