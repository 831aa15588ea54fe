"""A meal planned without servings is made for the household: the profile's adults and kids, on every path that plans.

db_create on meal_plans and draft_save of meal drafts (the planning tools, the bundled loop's Act and a stage client's
planned calls all go through one of them) fill the servings a meal leaves out from here, and say so in a note, so
the model can tell the user the number it did not choose. With no household in the profile, a meal with a recipe
makes the recipe as written (its servings); one without keeps the table's default.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import RECIPES
from alfred_mcp.operations.understanding import preferences_row
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.note_facts import NoteFact, household_servings

PEOPLE_COLUMNS = (("household_adults", "adult"), ("household_kids", "kid"))
"""The profile's columns that eat a serving each (a baby eats no serving of the meal), with the word for one."""


@dataclass(frozen=True)
class Household:
    """How many the household's meals are for, and how that reads ('2 adults, 1 kid')."""

    servings: int
    described: str


def household_of(preferences: dict[str, Any] | None) -> Household | None:
    """The household the profile describes, or None when it names nobody (no profile row, or zero people)."""
    if not preferences:
        return None
    counts = [(preferences.get(column), word) for column, word in PEOPLE_COLUMNS]
    people = [(count, word) for count, word in counts if isinstance(count, int) and not isinstance(count, bool) and count > 0]
    if not people:
        return None
    return Household(sum(count for count, _ in people), ", ".join(f"{count} {word}{'s' if count != 1 else ''}" for count, word in people))


async def household(work: UnitOfWork) -> Household | None:
    """The household of the user's profile (one query)."""
    return household_of(await preferences_row(work.store, work.user_id))


@dataclass(frozen=True)
class FilledServings:
    """Payloads with the servings they left out filled in, and the household whose number they took (None: none did)."""

    payloads: list[dict[str, Any]]
    household: Household | None


async def fill_servings(work: UnitOfWork, payloads: list[dict[str, Any]]) -> FilledServings:
    """Each meal payload without servings gets the household's, else its recipe's (one query each, only when needed)."""
    missing = [p for p in payloads if "servings" not in p]
    if not missing:
        return FilledServings(payloads, None)
    found = await household(work)
    if found is not None:
        return FilledServings([p if "servings" in p else {**p, "servings": found.servings} for p in payloads], found)
    return FilledServings(await _servings_from_recipes(work, payloads), None)


def household_note(found: Household | None, names: Sequence[str]) -> list[NoteFact]:
    """The meals that took the household's servings, as a fact (its note: 'meal_4: made for 3 (the household: 2 adults,
    1 kid); no servings were given')."""
    if found is None or not names:
        return []
    return [household_servings(names, found.servings, found.described)]


async def _servings_from_recipes(work: UnitOfWork, payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A meal with a recipe and no servings makes the recipe as written: one query for every recipe named."""
    wanted = {p["recipe_id"] for p in payloads if p.get("recipe_id") and "servings" not in p}
    if not wanted:
        return payloads
    query = Query(where=Where(all_of=(Filter("id", "in", sorted(wanted)),)), columns=("id", "servings"), limit=len(wanted))
    servings = {row["id"]: row["servings"] for row in await work.store.select(RECIPES, query, user_id=work.user_id) if row.get("servings")}
    return [{**p, "servings": servings[p["recipe_id"]]} if "servings" not in p and p.get("recipe_id") in servings else p for p in payloads]
