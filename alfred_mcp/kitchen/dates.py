"""The one way a day is written for a person: 'Fri Nov 27' (and 'Fri Nov 27 to Thu Dec 3' for a span).

Every view, tool text, error and quick answer writes days with `day_text`; the views' script writes the same
(`dayLabel` in views/view.js, checked against this in the browser tests). Pure.
"""

from __future__ import annotations

import re
from datetime import date, datetime

_OLD_DAY = re.compile(r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (\d{1,2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b")
"""'Sat 28 Nov': how shopping-list sources wrote a day before `day_text`."""


NEAR_DAYS = 183
"""A day within about six months of today is written without its year; one further off says it ('Tue Jan 26, 2027')."""


def day_text(value: date | datetime | str, *, today: date | None = None) -> str:
    """'2026-11-27', a date or a timestamp -> 'Fri Nov 27'; text that is not a date comes back as it is. Given `today`,
    a day more than about six months ahead, or in another year and as far back, gets its year ('Tue Jan 26, 2027')."""
    day: date
    if isinstance(value, str):
        try:
            day = datetime.fromisoformat(value) if "T" in value or " " in value else date.fromisoformat(value)
        except ValueError:
            return value
    else:
        day = value
    text = f"{day:%a %b} {day.day}"
    return f"{text}, {day.year}" if today is not None and _far(_date_of(day), today) else text


def _date_of(day: date | datetime) -> date:
    return day.date() if isinstance(day, datetime) else day


def _far(day: date, today: date) -> bool:
    """More than about six months ahead, or in another year and more than about six months back."""
    ahead = (day - today).days
    return ahead > NEAR_DAYS or (day.year != today.year and -ahead > NEAR_DAYS)


def span_text(first: date | str, last: date | str) -> str:
    """'Fri Nov 27 to Thu Dec 3'; one day is that day."""
    return day_text(first) if str(first) == str(last) else f"{day_text(first)} to {day_text(last)}"


def with_day_text(text: str) -> str:
    """`text` with days written the old way ('Sat 28 Nov') written as `day_text` writes them ('Sat Nov 28')."""
    return _OLD_DAY.sub(lambda found: f"{found.group(1)} {found.group(3)} {found.group(2)}", text)
