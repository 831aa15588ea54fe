"""Days a person says instead of writing them: 'today', 'tomorrow', 'friday', 'this week', resolved on a given today.

A client's model on a session's first turn has not been told today's date; every date argument takes these words as
well as YYYY-MM-DD, and the server resolves them on its own clock. A span word ('this week', 'next week') is the
first day of the span where a span starts (`from`, a date) and its last where one ends (`to`). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

from alfred_mcp.kitchen.schema import Table

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
SPANS = {"this week": 0, "next week": 7}
"""A span word -> its first day's distance from today; each lasts seven days (today and the six after it)."""
SINGLE = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1}
WORDS_HINT = "YYYY-MM-DD, or today, tomorrow, a weekday (the next one, today included) or this week"
"""What a date argument takes, for its description and its error."""


def day_of_words(text: str, today: date, *, end: bool = False) -> date | None:
    """The day `text` names ('Friday' -> the next Friday, today if it is one; 'this week' -> today, or with `end`
    six days on), or None when `text` is not one of these words."""
    said = " ".join(text.lower().replace("-", " ").split())
    if said in SPANS:
        return today + timedelta(days=SPANS[said] + (6 if end else 0))
    words = said.removeprefix("on ").removeprefix("this ")
    if words in SINGLE:
        return today + timedelta(days=SINGLE[words])
    weekday = next((index for index, name in enumerate(WEEKDAYS) if words in (name, name[:3])), None)
    if weekday is not None:
        return today + timedelta(days=(weekday - today.weekday()) % 7)
    return None


ENDING_OPS = frozenset({"lt", "lte"})
"""Filter ops whose day is where a span ends ('date lte this week': up to its last day)."""


def row_days(table: Table, row: Mapping[str, Any], today: date) -> dict[str, Any]:
    """`row` with every date column given as a day word written as YYYY-MM-DD (other values as they were)."""
    return {name: _said(value, today) if name in _date_columns(table) else value for name, value in row.items()}


def filter_days(table: Table, filters: list[dict[str, Any]] | None, today: date) -> list[dict[str, Any]] | None:
    """The tools' JSON filters with a day word compared to a date column written as YYYY-MM-DD ('in' lists too)."""
    if not filters:
        return filters
    dated = _date_columns(table)
    out = []
    for given in filters:
        if given.get("field") in dated and "value" in given:
            end = given.get("op") in ENDING_OPS
            value = given["value"]
            given = {**given, "value": [_said(item, today, end) for item in value] if isinstance(value, list) else _said(value, today, end)}
        out.append(given)
    return out


def _said(value: Any, today: date, end: bool = False) -> Any:
    day = day_of_words(value, today, end=end) if isinstance(value, str) else None
    return value if day is None else day.isoformat()


def _date_columns(table: Table) -> frozenset[str]:
    return frozenset(column.name for column in table.columns if column.type == "date")


def is_day_word(text: str) -> bool:
    """Whether `text` is a day word (what it names depends on the day it is resolved on)."""
    return day_of_words(text, _ANY_DAY) is not None


_ANY_DAY = date(2000, 1, 3)
"""A day to tell a day word by (its words are the same every day)."""
