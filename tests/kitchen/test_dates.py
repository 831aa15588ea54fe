"""One way to write a day for a person: 'Fri Nov 27', for every day, from dates, ISO text and timestamps; sources a
shopping list wrote the old way ('Sat 28 Nov') are the same entries."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.dates import NEAR_DAYS, day_text, span_text, with_day_text
from alfred_mcp.kitchen.schema import short_date
from alfred_mcp.kitchen.shopping_lines import meal_entry, source_entries

DAYS = st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 12, 31))


@given(DAYS)
def test_every_day_is_written_one_way_whatever_it_comes_as(day: date) -> None:
    text = f"{day:%a} {day:%b} {day.day}"
    stamp = datetime(day.year, day.month, day.day, 18, 30)
    assert day_text(day) == day_text(day.isoformat()) == day_text(stamp) == day_text(stamp.isoformat()) == short_date(day.isoformat()) == text


@given(DAYS, st.integers(min_value=0, max_value=60))
def test_a_span_names_its_first_and_last_day(day: date, length: int) -> None:
    last = day + timedelta(days=length)
    assert span_text(day, last) == (day_text(day) if length == 0 else f"{day_text(day)} to {day_text(last)}")


@given(DAYS, st.sampled_from(["breakfast", "lunch", "dinner"]), st.integers(min_value=1, max_value=12))
def test_a_source_written_the_old_way_is_the_same_entry(day: date, meal_type: str, servings: int) -> None:
    """A list made before days were written one way ('Sat 28 Nov dinner') still counts its meals as listed."""
    entry = meal_entry("Mushroom Risotto", day, meal_type, servings)
    old = f"Mushroom Risotto ({day:%a} {day.day} {day:%b} {meal_type}, for {servings})"
    assert entry.text == f"Mushroom Risotto ({day_text(day)} {meal_type}, for {servings})"
    assert source_entries(old) == [entry] and with_day_text(old) == entry.text


def test_text_that_is_not_a_date_comes_back_as_it_is() -> None:
    assert day_text("next Friday") == "next Friday" and short_date(None) == "?"


@given(DAYS, st.integers(min_value=-800, max_value=800))
def test_a_far_day_says_its_year_and_a_near_one_does_not(today: date, offset: int) -> None:
    """Within about six months ahead (or back in the same year) a day is its weekday and date; further off it has its
    year, so 'use by Tue Jan 26' never hides that it is next year's."""
    day = today + timedelta(days=offset)
    far = offset > NEAR_DAYS or (day.year != today.year and -offset > NEAR_DAYS)
    assert day_text(day, today=today) == (f"{day_text(day)}, {day.year}" if far else day_text(day))
    assert short_date(day.isoformat(), today=today) == day_text(day, today=today)
