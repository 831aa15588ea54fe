"""odd_lines: the share of shopping and scaled lines that read oddly to a cook (`alfred_mcp/kitchen/odd_amounts.py`).

Shopping: the demo kitchen's week made into a list with shopping_list_from (the real server over a
fresh SQLite file), as it is (pantry and list as seeded) and from an empty pantry and list (every
ingredient bought), each read back with shopping_list_show (every line the person sees, by section),
then made again from the same meals: `second_run_changed` counts lines the second call added or changed. The
first call's pantry notes are judged too (`note_oddities`: a check where the pantry compares as the shop sells it, a
shortfall not bought), and the second call's already-listed names against the lines they name (`name_disagrees`).
Scaled: every seed recipe's ingredients scaled by 0.5, 1.25, 1.5, 2 and 3 and for 1 to 12 servings (recipes_scale's
own line code), each line with its notes, every amount its scaled steps write (beside its line's unit), every
scaled step (the counted things it names, in their lines' number), and the step amounts of each ingredient beside its
line (a divided line's parts add up to it). Held: what the pantry holds of a pack or piece of every count unit
(`held`), in 24ths up to 4, beside the line of the same amount (`about_disagrees`: one rounding rule). Target: 0 odd lines, 0 changed on the second run.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

from mcp import Client

from alfred_mcp.kitchen.measures import Amount, convert_for, dimension, held, ingredient_text, sensible
from alfred_mcp.kitchen.odd_amounts import (
    about_disagrees,
    divided_oddities,
    name_disagrees,
    note_oddities,
    oddities,
    repeated_ingredients,
    step_number_oddities,
    step_oddities,
)
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import INVENTORY, SHOPPING_LIST
from alfred_mcp.kitchen.seed import demo_kitchen
from alfred_mcp.kitchen.step_amounts import StepAmount, step_amounts
from alfred_mcp.kitchen.taxonomy import ingredient_words
from alfred_mcp.kitchen.units import KNOWN_UNITS
from alfred_mcp.operations.scaling import counted_things, line_factor, scaled_line, scaled_recipe_steps
from alfred_mcp.server.mcp_server import build_server

from .fixtures import TODAY, opened_app

FACTORS = (0.5, 1.25, 1.5, 2.0, 3.0)
SERVINGS = range(1, 13)
WEEK = {"from": TODAY.isoformat(), "to": (TODAY + timedelta(days=6)).isoformat()}


async def odd_lines() -> dict[str, Any]:
    shopping = [await _week_list(empty=False), await _week_list(empty=True)]
    scaled, held_lines = _scaled_lines(), _held_lines()
    odd_shopping = [odd for kitchen in shopping for odd in kitchen["odd"]]
    odd_scaled = [odd for odd in scaled if odd["rules"]]
    odd_held = [odd for odd in held_lines if odd["rules"]]
    shopping_count = sum(kitchen["lines"] for kitchen in shopping)
    rules = Counter(rule for odd in odd_shopping + odd_scaled + odd_held for rule in odd["rules"])
    return {
        "shopping_lines": shopping_count, "shopping_odd": len(odd_shopping),
        "shopping_share": round(len(odd_shopping) / max(1, shopping_count), 3),
        "scaled_lines": len(scaled), "scaled_odd": len(odd_scaled), "scaled_share": round(len(odd_scaled) / max(1, len(scaled)), 3),
        "held_lines": len(held_lines), "held_odd": len(odd_held),
        "second_run_changed": sum(kitchen["second_run_changed"] for kitchen in shopping),
        "by_rule": dict(rules.most_common()),
        "examples": [f"{odd['text']} ({', '.join(odd['rules'])})" for odd in (odd_shopping + odd_scaled + odd_held)[:12]],
    }


async def _week_list(*, empty: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        async with opened_app(Path(folder) / "kitchen.db") as app:
            if empty:
                for table in (INVENTORY, SHOPPING_LIST):
                    rows = await app.store.select(table, Query(columns=("id",), limit=5_000), user_id=app.user_id)
                    await app.store.delete(table, _ids(rows), user_id=app.user_id)
            async with Client(build_server(app)) as client:
                first = (await client.call_tool("shopping_list_from", {"meal_plans": WEEK})).structured_content or {}
                shown = (await client.call_tool("shopping_list_show", {})).structured_content or {}
                again = (await client.call_tool("shopping_list_from", {"meal_plans": WEEK})).structured_content or {}
    lines = [line for section in shown["sections"] for line in section["lines"] if not line["bought"]]
    odd = [{"text": line["text"], "rules": rules} for line in lines
           if (rules := oddities(line["text"], line["quantity"], line["unit"], line["name"], shopping=True))]
    odd += [{"text": name, "rules": ["same ingredient on two lines"]} for name in repeated_ingredients(line["name"] for line in lines)]
    notes = [(item["note"], item["name"], bought) for key, bought in (("covered", False), ("lines", True))
             for item in first.get(key, []) if item.get("note")]
    odd += [{"text": note, "rules": rules} for note, name, bought in notes if (rules := note_oddities(note, name, bought=bought))]
    named = [(item["name"], line["text"]) for item in again.get("already_listed", []) for line in lines
             if ingredient_words(line["name"]) == ingredient_words(item["name"])]
    odd += [{"text": f"{name} (the line: {text})", "rules": ["name disagrees with its line"]} for name, text in named
            if name_disagrees(name, text)]
    return {"lines": len(lines) + len(notes) + len(named), "odd": odd, "second_run_changed": len(again.get("lines", []))}


def _scaled_lines() -> list[dict[str, Any]]:
    judged = []
    for recipe in demo_kitchen(TODAY).recipes:
        base = recipe.row.get("servings")
        for factor in (*FACTORS, *(servings / base for servings in SERVINGS if base and servings != base)):
            lines = [scaled_line(row, factor) for row in recipe.ingredients]
            for line in lines:
                judged.append({"text": line["text"],
                               "rules": oddities(line["text"], line["quantity"], line["unit"], line["name"], shopping=False,
                                                 exact=line.get("rounded_from"), notes=line.get("notes"))})
            units = {str(row["name"]): line["unit"] for row, line in zip(recipe.ingredients, lines)}
            factors = {str(row["name"]): line_factor(row, line, factor) for row, line in zip(recipe.ingredients, lines)}
            steps = [str(step) for step in recipe.row.get("instructions") or ()]
            counts = counted_things(recipe.ingredients, lines)
            for step in scaled_recipe_steps(steps, recipe.ingredients, lines, factor):
                judged.append({"text": f"{step} (a step)", "rules": step_number_oddities(step, counts)})
            amounts = step_amounts(steps, list(units), factor, units, factors)
            judged += _divided(recipe.ingredients, lines, amounts)
            for amount in amounts:
                shown = amount.shown
                text = f"{shown.text} {amount.name} (a step)"
                judged.append({"text": text, "rules": oddities(text, shown.quantity, shown.unit, amount.name, shopping=False,
                                                               exact=shown.rounded_from)
                               + step_oddities(shown.quantity, shown.unit, amount.line_unit)})
    return judged


HELD_NAMES = ("tortilla chips", "tofu", "onions", "bread", "lemons")
"""Things whose pack's content the kitchen does not know (what is held is said as a count of it), and pieces."""


def _held_lines() -> list[dict[str, Any]]:
    """What the pantry holds of every count unit, in 24ths up to 4, judged beside the line of the same amount."""
    judged = []
    units = sorted(unit for unit in KNOWN_UNITS if dimension(unit).startswith("count:") and unit != "piece")
    for unit in (None, *units):
        for name in HELD_NAMES:
            for step in range(1, 97):
                amount = Amount(step / 24, unit)
                text, line = held(amount, name), sensible(amount, name)
                line_text = ingredient_text(line.text, line.quantity, line.unit, name)
                if unit is None and amount.quantity >= 1.75:  # a recipe uses pieces whole from 2: not the same rule
                    continue
                judged.append({"text": f"{text} (held; the line: {line_text})",
                               "rules": ["about disagrees with its line"] if about_disagrees(text, line_text, amount.quantity) else []})
    return judged


def _divided(rows: list[dict[str, Any]], lines: list[dict[str, Any]], amounts: list[StepAmount]) -> list[dict[str, Any]]:
    """Each ingredient whose amounts the steps name, judged beside its scaled line (`odd_amounts.divided_oddities`)."""
    judged = []
    for row, line in zip(rows, lines):
        mine = [amount for amount in amounts if amount.name == " ".join(ingredient_words(str(row["name"])))]
        if not mine or row.get("quantity") is None or line.get("quantity") is None:
            continue
        name, unit, written_unit = str(row["name"]), line["unit"], row.get("unit")
        steps = [convert_for(name, amount.shown.quantity, amount.shown.unit, unit) for amount in mine]
        written = [convert_for(name, amount.written.quantity, amount.written.unit, written_unit) if amount.written else None
                   for amount in mine]
        if any(value is None for value in [*steps, *written]):
            continue
        text = f"{line['text']} (steps: {', '.join(amount.shown.text for amount in mine)})"
        judged.append({"text": text, "rules": divided_oddities(float(line["quantity"]), [float(v or 0) for v in steps],
                                                               float(row["quantity"]), [float(v or 0) for v in written], unit)})
    return judged


def _ids(rows: list[dict[str, Any]]) -> Where:
    return Where(all_of=(Filter("id", "in", [row["id"] for row in rows]),))
