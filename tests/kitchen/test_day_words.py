"""Day words resolve on the given today: a weekday is the next one (today included), 'this week' spans today and the
six days after, anything else is not a day word (None), and a row's or a filter's date columns take them."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.agent.table_arguments import check_table_arguments
from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.day_words import WEEKDAYS, day_of_words, filter_days, row_days
from alfred_mcp.kitchen.query import Filter, check_filter
from alfred_mcp.kitchen.schema import MEAL_PLANS, TASKS

DAYS = st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 12, 31))


@given(DAYS, st.sampled_from(WEEKDAYS), st.sampled_from(["{}", "{short}", "on {}", "this {}", "{upper}"]))
def test_a_weekday_is_the_next_such_day_today_included(today: date, name: str, form: str) -> None:
    said = day_of_words(form.format(name, short=name[:3], upper=name.title()), today)
    assert said is not None and said.weekday() == WEEKDAYS.index(name) and 0 <= (said - today).days <= 6


@given(DAYS, st.booleans())
def test_single_days_and_spans_count_from_today(today: date, end: bool) -> None:
    assert day_of_words("Today", today, end=end) == day_of_words("tonight", today, end=end) == today
    assert day_of_words("tomorrow", today, end=end) == today + timedelta(days=1)
    assert day_of_words("this week", today, end=end) == today + timedelta(days=6 if end else 0)
    assert day_of_words("next  week", today, end=end) == today + timedelta(days=13 if end else 7)


@given(DAYS, st.text(max_size=20).filter(lambda text: text.strip().lower() not in ("", "week")))
def test_other_text_is_not_a_day_word(today: date, text: str) -> None:
    said = day_of_words(text, today)
    assert said is None or " ".join(text.lower().replace("-", " ").split()).removeprefix("on ").removeprefix("this ") in (
        *WEEKDAYS, *(name[:3] for name in WEEKDAYS), "today", "tonight", "tomorrow", "yesterday", "week", "next week")


@pytest.mark.parametrize("text", ["2026-11-30", "someday", "last week", "fri 4", ""])
def test_dates_and_unknown_words_are_left_as_they_are(text: str) -> None:
    assert day_of_words(text, date(2026, 11, 28)) is None


def test_a_rows_date_columns_take_day_words_and_nothing_else_does() -> None:
    today = date(2026, 11, 28)  # a Saturday
    assert row_days(MEAL_PLANS, {"date": "monday", "meal_type": "lunch", "notes": "today"}, today) == \
        {"date": "2026-11-30", "meal_type": "lunch", "notes": "today"}
    assert row_days(TASKS, {"due_date": "tomorrow", "title": "friday"}, today) == {"due_date": "2026-11-29", "title": "friday"}


@pytest.mark.parametrize(("op", "day"), [("gte", "2026-11-28"), ("gt", "2026-11-28"), ("eq", "2026-11-28"),
                                         ("lte", "2026-12-04"), ("lt", "2026-12-04")])
def test_a_filter_on_a_date_ends_a_span_where_its_op_ends_it(op: str, day: str) -> None:
    filters = [{"field": "date", "op": op, "value": "this week"}, {"field": "meal_type", "op": "eq", "value": "today"}]
    assert filter_days(MEAL_PLANS, filters, date(2026, 11, 28)) == [{"field": "date", "op": op, "value": day}, filters[1]]
    listed = filter_days(MEAL_PLANS, [{"field": "date", "op": "in", "value": ["today", "sunday"]}], date(2026, 11, 28))
    assert listed == [{"field": "date", "op": "in", "value": ["2026-11-28", "2026-11-29"]}]


@pytest.mark.parametrize("value", ["today", "this week", "Friday", "2026-11-30"])
def test_a_filter_check_before_the_call_lets_a_day_word_through(value: str) -> None:
    """Act's check of a planned call takes the day word (the tool resolves it); the store's own check takes only dates."""
    check_table_arguments("db_read", {"table": "meal_plans", "filters": [{"field": "date", "op": "lte", "value": value}]})


@pytest.mark.parametrize("value", ["today", "this week", "Friday"])
def test_the_stores_filter_check_takes_only_a_date(value: str) -> None:
    with pytest.raises(InputError):
        check_filter(MEAL_PLANS, Filter("date", "gte", value))


@pytest.mark.parametrize("value", ["someday", "30/11/2026", "2026-02-30"])
def test_a_filter_on_a_date_refuses_what_names_no_day(value: str) -> None:
    with pytest.raises(InputError, match="filters\\[0\\].value: .*today, tomorrow, a weekday") as refused:
        check_table_arguments("db_read", {"table": "meal_plans", "filters": [{"field": "date", "op": "eq", "value": value}]})
    assert refused.value.fields["field"] == "filters[0].value"
