"""A shopping line listed only for meals since cooked is said and marked, never removed: meal_cooked names the open
lines its cook left with nothing to buy them for (`still_listed`), and shopping_list_show marks them (`for_cooked`,
'for a meal already cooked'). A line a person added, or listed for a meal still to cook, is never one of them.
Every kind of line against every order of cooking, through the real client."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from .helpers import call

pytestmark = pytest.mark.anyio
DAYS = ("2031-06-07", "2031-06-08")
KINDS = ("meal A", "meals A and B", "the recipe", "by hand", "by hand, for a restock")
COOKS = ((), ("A",), ("B",), ("A", "B"), ("B", "A"), ("recipe",))
"""What is logged cooked, in order: a planned meal, or the recipe with no meal."""


async def _kitchen(client: Client) -> tuple[str, dict[str, str]]:
    await call(client, "turn_begin", message="plan and shop")
    (recipe,) = (await call(client, "db_create", table="recipes", data={"name": "Quux Stew", "servings": 2}))["rows"]
    await call(client, "db_create", table="recipe_ingredients",
               data={"recipe_id": recipe["id"], "position": 1, "name": "quuxroot", "quantity": 2, "unit": "piece"})
    meals = {}
    for label, day in zip("AB", DAYS):
        (meal,) = (await call(client, "db_create", table="meal_plans",
                              data={"date": day, "meal_type": "dinner", "recipe_id": recipe["id"], "servings": 2}))["rows"]
        meals[label] = meal["id"]
    return str(recipe["id"]), meals


async def _listed(client: Client, kind: str, recipe: str) -> str:
    """The one line of this kind, written as its maker writes it."""
    if kind.startswith("by hand"):
        data = {"name": "quuxroot", "quantity": 2, "unit": "piece", **({"source": "restock"} if "restock" in kind else {})}
        (row,) = (await call(client, "db_create", table="shopping_list", data=data))["rows"]
        return str(row["id"])
    args: dict[str, Any] = ({"recipes": [recipe]} if kind == "the recipe"
                            else {"meal_plans": {"from": DAYS[0], "to": DAYS[0] if kind == "meal A" else DAYS[1]}})
    (line,) = (await call(client, "shopping_list_from", **args))["lines"]
    return str(line["ref"])


def _done_with(kind: str, cooked: set[str]) -> bool:
    """What the state can know: every use the line was listed for is cooked (a recipe: no meal of it left to cook)."""
    return {"meal A": {"A"} <= cooked, "meals A and B": {"A", "B"} <= cooked,
            "the recipe": {"A", "B"} <= cooked}.get(kind, False)


async def _marked(client: Client, ref: str) -> tuple[bool, str]:
    shown = await client.call_tool("shopping_list_show", {})
    (line,) = [line for section in (shown.structured_content or {})["sections"] for line in section["lines"] if line["ref"] == ref]
    text = next(row for row in "".join(block.text for block in shown.content if block.type == "text").splitlines() if f"({ref})" in row)
    return bool(line.get("for_cooked")), text


@pytest.mark.parametrize("cooks", COOKS, ids=lambda cooks: "+".join(cooks) or "nothing")
@pytest.mark.parametrize("kind", KINDS)
async def test_a_line_only_for_cooked_meals_is_named_and_marked_never_removed(client: Client, kind: str, cooks: tuple[str, ...]) -> None:
    recipe, meals = await _kitchen(client)
    ref = await _listed(client, kind, recipe)
    cooked: set[str] = set()
    for cook in cooks:
        result = await call(client, "meal_cooked", **({"recipe": recipe} if cook == "recipe" else {"meal": meals[cook]}))
        cooked.add(cook)
        named = [said for said in result.get("still_listed", []) if said.startswith(f"{ref} ")]
        assert bool(named) == _done_with(kind, cooked), (kind, cooks, result)
        marked, text = await _marked(client, ref)
        assert not named or text.startswith(f"  [ ] {named[0][len(ref) + 1:]} ({ref})"), (named, text)  # the line as the list says it
        assert marked == _done_with(kind, cooked) and text.endswith("(for a meal already cooked)") == marked, text
    marked, _ = await _marked(client, ref)
    assert marked == _done_with(kind, cooked)
    rows = (await call(client, "db_read", table="shopping_list", filters=[{"field": "name", "op": "eq", "value": "quuxroot"}]))["rows"]
    assert [row["id"] for row in rows] == [ref] and not rows[0]["is_purchased"]  # said and marked, nothing removed or ticked
