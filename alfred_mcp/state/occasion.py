"""What an occasion says about the meals planned for it: which days it covers and how many it is for.

'6 guests on Saturday' is recorded as the occasion's constraints (`state/constraints.py`: servings 6, days
2026-11-28, lifetime occasion). A meal planned on one of those days is for the occasion, and a cook wants to know
when it makes fewer or more servings than the occasion is for. Pure: the days are judged from the meal's own date.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from alfred_mcp.state.constraints import SessionConstraints, constraint_values

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKEND = frozenset({"saturday", "sunday"})


@dataclass(frozen=True)
class OccasionMeals:
    """The occasion in force that names both its days and its number: its description, days and servings."""

    description: str
    days: tuple[str, ...]
    servings: int

    def covers(self, day: date) -> bool:
        """Whether a meal on `day` is for the occasion: one of its dates, inside one of its ranges, or on a weekday it
        names ('saturday', 'weekend', 'weekdays'). Relative words ('today', 'tomorrow') and counts name no date here."""
        return any(_names_day(text, day) for text in self.days)


def occasion_meals(constraints: SessionConstraints) -> OccasionMeals | None:
    """The occasion's days and servings, when one is in force and states both (the latest of each); with no `days`
    constraint, the days its description names ('Saturday Nov 28, 6 guests': saturday)."""
    occasion = constraints.occasion
    if occasion is None:
        return None
    held = [c for c in occasion.constraints if c.about is None]
    servings = [c.value for c in held if c.type == "servings" and isinstance(c.value, int)]
    days = [c for c in held if c.type == "days" and not isinstance(c.value, (int, float))]
    named = tuple(constraint_values(days[-1])) if days else days_named(occasion.description)
    if not servings or not named:
        return None
    return OccasionMeals(occasion.description, named, servings[-1])


_DAY_WORDS = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|weeknights|weekdays|\d{4}-\d{2}-\d{2})\b")


def days_named(text: str) -> tuple[str, ...]:
    """The weekdays, 'weekend' and ISO dates a description names, in order, once each ('Saturday Nov 28' -> saturday)."""
    return tuple(dict.fromkeys(_DAY_WORDS.findall(text.lower())))


def _names_day(text: str, day: date) -> bool:
    first, _, last = text.partition(" to ")
    try:
        start = date.fromisoformat(first)
        return start <= day <= (date.fromisoformat(last) if last else start)
    except ValueError:
        pass
    weekday = _WEEKDAYS[day.weekday()]
    return text == weekday or (text == "weekend" and weekday in _WEEKEND) or (text in ("weekdays", "weeknights") and weekday not in _WEEKEND)
