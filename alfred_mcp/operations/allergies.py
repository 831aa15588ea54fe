"""Allergies are inviolable on writes: content holding an allergen of the user is refused.

Every write of a recipe (its name), a recipe ingredient, a shopping item, or a meal plan (through
the recipe it plans: its name and every ingredient) is checked against the allergies in the user's
preferences, and against the allergies of the occasion's guests while the occasion is in force
(`state/constraints.py`), through the ingredient taxonomy (`kitchen/allergens.py`: shellfish covers
shrimp, peanuts covers peanut butter). A hit is refused naming the allergen and the ingredient, unless the
caller passes an explicit `allergy_override` naming that allergen with a reason; the override is
then recorded in the call log. Dropping an allergy by replacing the list needs explicit consent too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from alfred_mcp.errors import AlfredError, AllergenError, InvalidPayloadError
from alfred_mcp.kitchen.allergens import AllergenHit, allergen_hits
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import RECIPE_INGREDIENTS, RECIPES, Table
from alfred_mcp.operations.understanding import constraints_of, preferences_row
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.array_ops import dropped
from alfred_mcp.state.constraints import guest_allergies, normalize_text

CHECKED_TABLES = frozenset({"recipes", "recipe_ingredients", "shopping_list", "meal_plans"})
_NAMED = {"recipes": "recipe", "recipe_ingredients": "ingredient", "shopping_list": "shopping item"}


@dataclass(frozen=True)
class AllergyOverride:
    """The user's explicit consent to these allergens for one write, and why."""

    allergens: tuple[str, ...]
    reason: str

    def allows(self, allergen: str) -> bool:
        return normalize_text(allergen) in {normalize_text(a) for a in self.allergens}


def parse_override(value: Any) -> AllergyOverride | None:
    """The `allergy_override` argument, checked.

    Raises:
        InvalidPayloadError: not {allergens: [texts], reason: text}.
    """
    if value is None:
        return None
    allergens = value.get("allergens") if isinstance(value, Mapping) else None
    reason = value.get("reason") if isinstance(value, Mapping) else None
    if not isinstance(allergens, list) or not allergens or not all(isinstance(a, str) and a.strip() for a in allergens):
        raise InvalidPayloadError("allergy_override.allergens must list the allergens the user accepts, e.g. ['shellfish'].",
                                  field="allergy_override.allergens")
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidPayloadError("allergy_override.reason must say why the user accepts them.", field="allergy_override.reason")
    return AllergyOverride(tuple(a.strip() for a in allergens), reason.strip()[:300])


@dataclass(frozen=True)
class WriteAllergies:
    """What a write is checked against: the user's own allergies and those of the occasion's guests."""

    user: tuple[str, ...] = ()
    guests: tuple[str, ...] = ()
    occasion: str | None = None

    def all(self) -> list[str]:
        return [*self.user, *(a for a in self.guests if normalize_text(a) not in {normalize_text(u) for u in self.user})]

    def whose(self, allergens: Iterable[str], *, user: str = "the user is") -> str:
        """'the user is allergic to shellfish' / 'the guests (Saturday dinner) are allergic to sesame' (`user`: 'you are'
        where a cook reads it)."""
        own = {normalize_text(a) for a in self.user}
        mine = sorted(a for a in allergens if normalize_text(a) in own)
        theirs = sorted(a for a in allergens if normalize_text(a) not in own)
        parts = [f"{user} allergic to {', '.join(mine)}"] if mine else []
        if theirs:
            guests = f"the guests ({self.occasion})" if self.occasion else "the guests"
            parts.append(f"{guests} are allergic to {', '.join(theirs)}")
        return " and ".join(parts)


async def user_allergies(work: UnitOfWork) -> list[str]:
    row = await preferences_row(work.store, work.user_id)
    values = (row or {}).get("allergies") or []
    return [str(value) for value in values if str(value).strip()]


async def write_allergies(work: UnitOfWork) -> WriteAllergies:
    """The user's allergies (read fresh) and the guests' of the session's occasion and goal."""
    stored = constraints_of(work.session)
    return WriteAllergies(tuple(await user_allergies(work)), tuple(guest_allergies(stored)),
                          stored.occasion.description if stored.occasion else None)


async def check_rows(
    work: UnitOfWork, table: Table, rows: Sequence[Mapping[str, Any]], override: AllergyOverride | None,
) -> str | None:
    """Refuse rows of `table` holding an allergen; the override's note when it let one through, else None.

    Raises:
        AllergenError: a hit the override does not cover (nothing is written).
    """
    if table.name not in CHECKED_TABLES:
        return None
    allergies = await write_allergies(work)
    if not allergies.all():
        return None
    named: list[tuple[str, str]] = []
    for index, row in enumerate(rows):
        where = f"data[{index}]" if len(rows) > 1 else "data"
        named += await row_texts(work, table, row, where)
    return verdict(allergen_hits(named, allergies.all()), override, allergies=allergies)


async def row_texts(work: UnitOfWork, table: Table, row: Mapping[str, Any], where: str) -> list[tuple[str, str]]:
    """The texts of a row to write that a constraint could speak against (a name; a planned recipe's name and lines)."""
    if table.name in _NAMED:
        name = row.get("name")
        return [(f"{where}.name ({_NAMED[table.name]})", name)] if isinstance(name, str) else []
    recipe = row.get("recipe_id")
    return await recipe_texts(work, recipe, f"{where}.recipe_id") if isinstance(recipe, str) else []


async def recipe_texts(work: UnitOfWork, ref: str, where: str) -> list[tuple[str, str]]:
    """The name and ingredient names of the saved recipe `ref`, each with where it was found."""
    try:
        row_id = work.session.registry.resolve(ref, expected_type="recipe", field=where)
    except AlfredError:
        return []  # the write itself will refuse the ref, naming it
    one = Query(where=Where(all_of=(Filter("id", "eq", row_id),)), columns=("id", "name"), limit=1)
    recipes = await work.store.select(RECIPES, one, user_id=work.user_id)
    parts = Query(where=Where(all_of=(Filter("recipe_id", "eq", row_id),)), columns=("id", "name"), limit=500)
    ingredients = await work.store.select(RECIPE_INGREDIENTS, parts, user_id=work.user_id)
    label = recipes[0]["name"] if recipes else ref
    named = [(f"{where} ({ref} {label})", label)] if recipes else []
    return named + [(f"{where} ({ref} {label}, ingredient)", i["name"]) for i in ingredients if i.get("name")]


def verdict(
    hits: Iterable[AllergenHit], override: AllergyOverride | None, *, outcome: str = "Nothing was written.",
    allergies: WriteAllergies | None = None,
) -> str | None:
    """Raise for hits the override does not cover (the message says `outcome` and whose allergy it is);
    the note to record when it covers some."""
    hits = list(hits)
    blocked = [hit for hit in hits if override is None or not override.allows(hit.allergen)]
    if blocked:
        allergens = sorted({hit.allergen for hit in blocked})
        raise AllergenError(
            "Refused: " + "; ".join(f"{hit.describe()}" for hit in blocked[:8])
            + (f" (+{len(blocked) - 8} more)" if len(blocked) > 8 else "")
            + f", and {(allergies or WriteAllergies(tuple(allergens))).whose(allergens)}. {outcome} Use other ingredients; only if the "
            "user explicitly accepts it, pass allergy_override {allergens: [...], reason: ...}.",
            field=blocked[0].where.split(" ")[0], allergens=allergens, ingredients=sorted({hit.ingredient for hit in blocked}),
        )
    if hits and override is not None:
        return f"allergy override ({', '.join(sorted({hit.allergen for hit in hits}))}): {override.reason}"
    return None


async def check_allergy_removal(work: UnitOfWork, table: Table, new_allergies: Any, target: Where) -> None:
    """Refuse replacing the preferences' allergy list with one that drops an allergy.

    Raises:
        AllergenError: naming the allergies it would drop and the two ways to proceed.
    """
    if table.name != "preferences":
        return
    rows = await work.store.select(table, Query(where=target, columns=("id", "allergies")), user_id=work.user_id)
    lost = sorted({item for row in rows for item in dropped(row.get("allergies"), new_allergies if isinstance(new_allergies, list) else [])})
    if lost:
        raise AllergenError(
            f"This would drop the allergy {', '.join(lost)} from the user's preferences. To add one, keep the others: "
            "data {\"allergies\": {\"add\": [...]}}. To drop one the user asked to drop: {\"allergies\": {\"remove\": [...]}} "
            "or confirm_allergy_removal: true.",
            field="allergies", dropped=lost,
        )
