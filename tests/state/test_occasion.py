"""The occasion's days and number (`state/occasion.py`): a meal's day is the occasion's when it is one of its dates,
inside one of its ranges, or on a weekday it names; only an occasion stating both days and servings has meals."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.state.constraints import Constraint, Occasion, SessionConstraints
from alfred_mcp.state.occasion import OccasionMeals, occasion_meals

DAYS = st.dates(min_value=date(2020, 1, 1), max_value=date(2035, 12, 31))
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def _meals(*days: str) -> OccasionMeals:
    return OccasionMeals("the occasion", days, 6)


@given(DAYS, DAYS)
def test_a_date_covers_that_day_only(day: date, named: date) -> None:
    assert _meals(named.isoformat()).covers(day) == (day == named)


@given(DAYS, DAYS, st.integers(min_value=0, max_value=30))
def test_a_range_covers_the_days_from_its_first_to_its_last(day: date, first: date, length: int) -> None:
    last = first + timedelta(days=length)
    assert _meals(f"{first.isoformat()} to {last.isoformat()}").covers(day) == (first <= day <= last)


@given(DAYS)
def test_a_weekday_name_covers_that_weekday_and_the_weekend_saturday_and_sunday(day: date) -> None:
    named = WEEKDAYS[day.weekday()]
    assert [_meals(name).covers(day) for name in WEEKDAYS] == [name == named for name in WEEKDAYS]
    assert _meals("weekend").covers(day) == (day.weekday() >= 5) != _meals("weekdays").covers(day)
    assert not _meals("tomorrow").covers(day) and not _meals("3").covers(day)


def _held(*constraints: Constraint, description: str = "dinner party, 6 guests") -> SessionConstraints:
    return SessionConstraints(occasion=Occasion(description=description, started_turn=1, constraints=list(constraints)))


SIX = Constraint(type="servings", field="people", value=6, lifetime="occasion")
SATURDAY = Constraint(type="days", field="days", value="2031-05-03", lifetime="occasion")


def test_an_occasion_has_meals_only_when_it_states_both_its_days_and_its_number() -> None:
    assert occasion_meals(_held(SIX, SATURDAY)) == OccasionMeals("dinner party, 6 guests", ("2031-05-03",), 6)
    assert occasion_meals(_held(SIX)) is None and occasion_meals(_held(SATURDAY)) is None
    assert occasion_meals(SessionConstraints()) is None
    about = Constraint(type="servings", field="people", value=6, lifetime="occasion", about="recipe_1")
    assert occasion_meals(_held(about, SATURDAY)) is None


@given(st.sampled_from([*WEEKDAYS, "weekend", "weekdays", "2031-05-03"]), st.sampled_from(["{} Nov 28, 6 guests", "Guests on {}", "{}"]))
def test_an_occasion_with_no_days_constraint_covers_the_days_its_description_names(named: str, template: str) -> None:
    """r6 a2: 'Saturday Nov 28, 6 guests' held servings 6 and no days constraint: a meal planned that Saturday for 4 went
    unwarned. The description's day words stand for the days; a days constraint, when there is one, wins."""
    description = template.format(named.capitalize())
    assert occasion_meals(_held(SIX, description=description)) == OccasionMeals(description, (named,), 6)
    assert occasion_meals(_held(SIX, SATURDAY, description=description)) == OccasionMeals(description, ("2031-05-03",), 6)
    assert occasion_meals(_held(description=description)) is None
