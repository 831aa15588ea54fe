"""recipe_show: one saved recipe as a card a person reads while cooking (read-only).

The ingredients are the stored amounts (recipes_scale gives other servings in the same line shape),
the steps in order, and the user's allergens and dislikes in it marked on the lines that hold them.
"""

from __future__ import annotations

from typing import Any

from alfred_mcp.kitchen.card_lines import card_line, proper_names
from alfred_mcp.kitchen.measures import Amount, line_text
from alfred_mcp.operations.conflicts import recipe_conflicts, standing_constraints
from alfred_mcp.operations.recipe_rows import recipe_or_draft
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.refs import parse_ref
from alfred_mcp.store.base import Row

DETAILS = ("description", "cuisine", "difficulty", "prep_time_minutes", "cook_time_minutes", "total_time_minutes", "source_url")


async def recipe_card(work: UnitOfWork, ref: str) -> dict[str, Any]:
    """The card of the recipe `ref`: details, ingredient lines, steps, allergens and other conflicts.

    Raises:
        InvalidRefError, UnknownRefError, DeletedRefError, PendingDraftError, InputError: `recipe` names
            no saved recipe.
    """
    loaded = await recipe_or_draft(work, ref, field="recipe")
    row = loaded.recipe
    standing = await standing_constraints(work)
    conflicts = recipe_conflicts(standing, row, loaded.ingredients)
    allergen_of = {name: hit["allergen"] for hit in conflicts.allergens for name in hit["ingredients"]}
    card: dict[str, Any] = {"recipe": loaded.ref, "name": loaded.name, "servings": row.get("servings")}
    parsed = parse_ref(loaded.ref)
    if parsed is not None and parsed.generated:
        card["draft"] = True  # a draft not saved yet: the card says so, not only its gen_ ref
    card.update({key: row[key] for key in DETAILS if row.get(key) not in (None, "")})
    card["ingredients"] = [ingredient_line(part, allergen_of.get(str(part["name"])), standing.disliked(str(part["name"])))
                           for part in loaded.ingredients]
    card["steps"] = [str(step) for step in row.get("instructions") or ()]
    card["allergens"] = conflicts.allergens
    card["conflicts"] = [proper_names(text) for text in conflicts.reasons + conflicts.notes]  # as the lines spell them
    work.session.record_call(CallRecord(turn=work.session.turn, tool="recipe_show", table="recipes", action="read",
                                        refs=[loaded.ref], count=1))
    return card


def ingredient_line(part: Row, allergen: str | None, disliked: str | None = None) -> dict[str, Any]:
    """A stored ingredient as recipes_scale shapes one: name, quantity, unit, text; notes, optional, allergen and
    disliked (the dislike it falls under) when set."""
    quantity = None if part.get("quantity") is None else float(part["quantity"])
    shown = card_line(line_text(quantity, part.get("unit"), part["name"]), quantity, part.get("unit"), part["name"],
                      part.get("notes"), written=None if quantity is None else Amount(quantity, part.get("unit")))
    line: dict[str, Any] = {"name": part["name"], "quantity": quantity, "unit": part.get("unit"), "text": shown.text}
    if shown.notes:
        line["notes"] = shown.notes
    if part.get("is_optional"):
        line["optional"] = True
    if allergen is not None:
        line["allergen"] = allergen
    if disliked is not None:
        line["disliked"] = disliked
    return line
