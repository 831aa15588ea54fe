"""recipes_scale: a recipe's ingredients for another number of servings, in units a cook would write (read-only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.card_lines import SEPARATOR, card_line
from alfred_mcp.kitchen.egg_counts import extra_parts, part_of_an_egg
from alfred_mcp.kitchen.measures import Amount, convert_for, ingredient_text, sensible
from alfred_mcp.kitchen.note_amounts import scaled_notes
from alfred_mcp.kitchen.plurals import singular
from alfred_mcp.kitchen.step_amounts import agreeing, left_as_written, scaled_steps
from alfred_mcp.operations.recipe_rows import recipe_or_draft
from alfred_mcp.session import UnitOfWork
from alfred_mcp.session.documents import DRAFTS


@dataclass(frozen=True)
class Scaled:
    ref: str
    name: str
    servings: int
    from_servings: int
    factor: float
    ingredients: list[dict[str, Any]]
    steps: list[str] | None = None
    """The steps with the amounts of ingredients in them scaled, when any is (None: the steps read as written)."""
    steps_note: str | None = None
    """Why steps (or amounts in them) read as written at these servings: no amount of an ingredient, or amounts of
    what is not one ('1/4 cup of batter': a portion)."""


async def scale_recipe(work: UnitOfWork, ref: str, servings: int) -> Scaled:
    """The recipe's ingredients multiplied by servings / its servings; nothing is written.

    Raises:
        InputError: the recipe does not say how many it serves (naming `recipe`).
    """
    loaded = await recipe_or_draft(work, ref, field="recipe")
    base = loaded.recipe.get("servings")
    if not base:
        how = "draft_revise" if work.session.read(DRAFTS.at(loaded.ref)) is not None else "db_update"  # a draft is not a row
        raise InputError(
            f"recipe: {loaded.ref} ({loaded.name}) does not say how many it serves; set its servings with {how}, then scale.",
            field="recipe", value=loaded.ref,
        )
    factor = servings / base
    lines = [scaled_line(row, factor) for row in loaded.ingredients]
    written = [str(step) for step in loaded.recipe.get("instructions") or ()]
    steps = scaled_recipe_steps(written, loaded.ingredients, lines, factor)
    note = steps_note(written, [str(row["name"]) for row in loaded.ingredients], steps != written) if factor != 1 else None
    return Scaled(loaded.ref, loaded.name, servings, int(base), round(factor, 4), lines, steps if steps != written else None, note)


def steps_note(written: list[str], names: list[str], changed: bool) -> str | None:
    """What a scaled recipe says of the steps it leaves as written (None: every amount in them was scaled)."""
    left = left_as_written(written, names)
    kept = f"{', '.join(repr(amount) for amount in left)} {'is' if len(left) == 1 else 'are'} left as written: not an ingredient's amount" \
        if left else None
    if changed or not written:
        return None if kept is None else f"{kept}."
    said = "The steps name no amount of an ingredient, so they read as written for these servings"
    return f"{said}; {kept}." if kept else f"{said}."


def scaled_recipe_steps(steps: list[str], rows: Sequence[Mapping[str, Any]], lines: Sequence[Mapping[str, Any]],
                        factor: float) -> list[str]:
    """The recipe's steps for its scaled `lines` (`rows` as written): each amount scaled in its line's unit, and each
    counted thing named in the number its line now has ('the egg' beside 1 egg)."""
    units = {str(row["name"]): line["unit"] for row, line in zip(rows, lines)}
    factors = {str(row["name"]): line_factor(row, line, factor) for row, line in zip(rows, lines)}
    counts = counted_things(rows, lines)
    return [agreeing(step, counts) for step in scaled_steps(steps, list(units), factor, units, factors)]


def counted_things(rows: Sequence[Mapping[str, Any]], lines: Sequence[Mapping[str, Any]]) -> dict[str, tuple[float, float]]:
    """By the word a step names it by (singular: 'egg', 'shallot', 'fillet', 'yolk'), each counted thing's count as
    written and as scaled: lines of pieces, lines counted in the unit their name says, the yolks and whites notes add."""
    counts: dict[str, tuple[float, float]] = {}
    for row, line in zip(rows, lines):
        last = singular(str(row["name"]).split()[-1].lower()) if str(row["name"]).split() else ""
        if row.get("quantity") is not None and line.get("quantity") is not None and last \
                and (row.get("unit") in (None, "piece") or row.get("unit") == last):
            counts[last] = (float(row["quantity"]), float(line["quantity"]))
        scaled = extra_parts(line.get("notes"))
        for part, value in extra_parts(row.get("notes")).items():
            counts[part] = (value, scaled.get(part, value))
    return counts


def scaled_line(row: Mapping[str, Any], factor: float) -> dict[str, Any]:
    """One ingredient times `factor`: quantity and unit made sensible, the readable text, what was rounded."""
    line: dict[str, Any] = {"name": row["name"]}
    if row.get("quantity") is None:
        line.update(quantity=None, unit=row.get("unit"), text=ingredient_text(None, None, row.get("unit"), row["name"]))
    else:
        shown = sensible(Amount(float(row["quantity"]) * factor, row.get("unit")), row["name"])
        line.update(quantity=round(shown.quantity, 4), unit=shown.unit,
                    text=ingredient_text(shown.text, shown.quantity, shown.unit, row["name"]))
        if shown.rounded_from is not None:
            line["rounded_from"] = shown.rounded_from
    notes = scaled_notes(str(row["notes"]), factor, row.get("unit"), line_factor(row, line, factor)) if row.get("notes") else None
    written = None if row.get("quantity") is None else Amount(float(row["quantity"]), row.get("unit"))
    shown_line = card_line(line["text"], line["quantity"], line["unit"], row["name"], notes, written=written, factor=factor)
    line["text"] = shown_line.text
    said = [part for part in (shown_line.notes, part_of_an_egg(str(row["name"]), line.get("rounded_from"))) if part]
    if said:
        line["notes"] = SEPARATOR.join(said)
    if row.get("is_optional"):
        line["optional"] = True
    return line


def line_factor(row: Mapping[str, Any], line: Mapping[str, Any], factor: float) -> float:
    """The factor a line was scaled by once rounded (1 oz of porcini shown for 1 1/4: 2, not 2 1/2), so what soaks
    with it scales the same; `factor` when the line has no amount or its units do not compare."""
    if not row.get("quantity") or line.get("quantity") is None:
        return factor
    shown = convert_for(str(row["name"]), float(line["quantity"]), line.get("unit"), row.get("unit"))
    return factor if shown is None else shown / float(row["quantity"])
