"""Where a recipe meets the user's standing constraints: allergens first, then dislikes, diet and equipment.

The constraints are the preferences row (allergies, dislikes, dietary restrictions, the kitchen's
equipment), read fresh, with the session's goal-wide exclusions and its guests' allergies, as search and
makeable apply them; the rest of a goal (this week's cuisine, a time limit) is left out, so a recipe card or a
week's plan marks the same things whatever the turn asks for. Allergies
match through the ingredient taxonomy as writes check them (`kitchen/allergens.py`: 'peanuts' holds
'peanut butter').
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from alfred_mcp.kitchen.allergens import allergen_of
from alfred_mcp.kitchen.ingredient_match import is_disliked
from alfred_mcp.kitchen.taxonomy import Taxonomy, default_taxonomy
from alfred_mcp.operations.search import Candidate, check_constraints
from alfred_mcp.operations.understanding import preferences_row, with_permanent
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.constraints import ALLERGY_REASONS, CompiledConstraints, SessionConstraints, compile_constraints
from alfred_mcp.store.base import Row


class RecipeAllergen(TypedDict):
    """An allergy of the user and the recipe's ingredients that fall under it."""

    allergen: str
    ingredients: list[str]


@dataclass(frozen=True)
class Conflicts:
    """What a person should know before cooking a recipe."""

    allergens: list[RecipeAllergen] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    """Dislikes, dietary restrictions and missing equipment, one reason each."""
    notes: list[str] = field(default_factory=list)
    """Optional ingredients to leave out (a dislike among them)."""

    def conflicts(self) -> list[str]:
        """Every conflict as one line, allergies first (the notes on optional ingredients are not conflicts)."""
        allergy = [f"contains {', '.join(hit['ingredients'])} (allergy: {hit['allergen']})" for hit in self.allergens]
        return allergy + self.reasons


@dataclass(frozen=True)
class Standing:
    """The user's standing constraints, ready to check recipes against."""

    allergies: tuple[str, ...]
    rest: CompiledConstraints
    taxonomy: Taxonomy
    dislikes: tuple[str, ...] = ()

    def disliked(self, name: str) -> str | None:
        """The dislike an ingredient name is the thing of ('olives' for 'kalamata olives', not for 'olive oil'), or None."""
        return is_disliked(name, self.dislikes, self.taxonomy)


async def standing_constraints(work: UnitOfWork) -> Standing:
    """The constraints every tool that reports conflicts applies, compiled once for many recipes: the allergies (the
    user's and the occasion's guests'), the dislikes, the session's goal-wide exclusions, diet and equipment; not
    the rest of a goal (its cuisine or time limit), so a card marks the same things whatever the turn asks for."""
    session = with_permanent(work.session, await preferences_row(work.store, work.user_id))
    permanent, compiled = session.permanent, compile_constraints(session)
    excluded = [item for item in compiled.must_exclude if not ALLERGY_REASONS.intersection(item.why)]
    rest = compile_constraints(SessionConstraints(permanent=permanent.model_copy(update={"allergies": []})))
    return Standing(tuple(dict.fromkeys([*permanent.allergies, *compiled.guest_allergies])),
                    rest.model_copy(update={"must_exclude": excluded}), default_taxonomy(), tuple(permanent.dislikes))


def recipe_conflicts(standing: Standing, recipe: Row, ingredients: Sequence[Row]) -> Conflicts:
    """The recipe's allergens (optional ingredients included) and its other conflicts."""
    by_allergy: dict[str, list[str]] = {}
    for part in ingredients:
        allergy = allergen_of(str(part["name"]), standing.allergies, standing.taxonomy)
        if allergy is not None:
            by_allergy.setdefault(allergy, []).append(str(part["name"]))
    allergens = [RecipeAllergen(allergen=allergy, ingredients=names) for allergy, names in sorted(by_allergy.items())]
    candidate = Candidate(dict(recipe), list(ingredients))
    check_constraints(candidate, standing.rest, standing.taxonomy)
    return Conflicts(allergens, candidate.reasons, candidate.notes)
