"""Every warning a tool gives has a sentence for a person (`state/warning_words.py`): the tools are driven into each
warning kind through the real client on a seeded kitchen, and each warning they give is read by a kind whose sentence
names things by name, with no ref and no instruction meant for the model.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from alfred_mcp.state.refs import refs_in
from alfred_mcp.state.warning_words import WARNING_KINDS, person_sentence, told_in, warning_kind

from .helpers import call, eq

pytestmark = pytest.mark.anyio


async def _meal(client: Client) -> dict[str, Any]:
    meals = (await call(client, "db_read", table="meal_plans", filters=[eq("meal_type", "dinner")], limit=50))["rows"]
    return dict(next(meal for meal in meals if meal.get("recipe_id")))


async def _recipes(client: Client) -> list[dict[str, Any]]:
    return list((await call(client, "db_read", table="recipes", columns=["name"], limit=3))["rows"])


async def _listed_twice(client: Client) -> list[dict[str, Any]]:
    made = {"name": "black pepper", "quantity": 1, "unit": "jar"}
    await call(client, "db_create", table="shopping_list", data=made)
    kept = {"name": "saffron", "quantity": 1, "unit": "g", "location": "pantry"}
    await call(client, "db_create", table="inventory", data=kept)
    return [await call(client, "db_create", table="shopping_list", data={**made, "notes": "whole peppercorns"}),
            await call(client, "db_create", table="inventory", data=kept)]


async def _double_booked(client: Client) -> list[dict[str, Any]]:
    meal = await _meal(client)
    other = next(r["id"] for r in await _recipes(client) if r["id"] != meal["recipe_id"])
    data = {"date": meal["date"], "meal_type": "dinner", "recipe_id": other}
    drafted = await call(client, "draft_create", entity_type="meal", items=[{"date": meal["date"], "meal_type": "dinner", "recipe": other}])
    return [await call(client, "db_create", table="meal_plans", data=data), drafted]


async def _note_kept(client: Client) -> list[dict[str, Any]]:
    old, new, _ = await _recipes(client)
    (meal,) = (await call(client, "db_create", table="meal_plans", data={"date": "2031-05-02", "meal_type": "dinner",
                                                                         "recipe_id": old["id"], "notes": "double the potatoes"}))["rows"]
    return [await call(client, "db_update", table="meal_plans", filters=[eq("id", meal["id"])], data={"recipe_id": new["id"]})]


DRIVEN = {"listed_twice": _listed_twice, "double_booked": _double_booked, "note_kept": _note_kept}


@pytest.mark.parametrize("kind", sorted(DRIVEN))
async def test_each_warning_a_tool_gives_has_a_sentence_for_a_person(client: Client, kind: str) -> None:
    results = await DRIVEN[kind](client)
    warnings = [warning for result in results for warning in result.get("warnings", [])]
    assert warnings, f"the tools gave no {kind} warning"
    for warning in warnings:
        found = warning_kind(warning)
        sentence = person_sentence(warning, lambda ref: None)
        assert found is not None and sentence, warning
        assert not refs_in(sentence) and "merge" not in sentence and "tell the user" not in sentence, sentence
    assert kind in {found.name for warning in warnings if (found := warning_kind(warning)) is not None}


SAMPLES: dict[str, str] = {
    "double_booked": "meal_9: Fri 28 Nov [dinner] already has meal_3 (Salmon Tacos, recipe_2); this plans a second dinner that day",
    "occasion_servings": "meal_9: Sat 6 Dec [dinner] makes 4 servings; the occasion (6 guests on Saturday) is for 6",
    "listed_twice": "Milk is already on the list: shop_2, 1 gallon; a second line was added (merge them if one).",
    "note_kept": "meal_4: Sat 6 Dec [lunch] keeps its note 'extra potatoes', written for Greek Chicken, its recipe before, not "
                 "Chicken Tikka: tell the user, or change the note",
    "allergen_in_draft": "gen_recipe_1 (Prawn Curry): ingredient 'prawns' contains shellfish: the user is allergic to shellfish; "
                         "draft_save will refuse it unless the user explicitly accepts it (allergy_override)",
    "avoided": "data.recipe_id (recipe_2 Mushroom Risotto, ingredient) 'mushrooms' is mushroom: the user dislikes it",
    "too_long": "data.recipe_id (recipe_2 Lasagna) takes 2 hr 10 min: the goal's time limit is 30 min",
    "more_warnings": "+3 more warnings",
}
"""One warning of each kind as its operation writes it."""


def test_every_warning_kind_has_a_sample_here() -> None:
    assert sorted(SAMPLES) == sorted(kind.name for kind in WARNING_KINDS)


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_each_kind_reads_its_warning_and_says_it_by_name(kind: str) -> None:
    names = {"recipe_2": "Lasagna", "meal_3": "Fri 28 Nov dinner"}
    found = warning_kind(SAMPLES[kind])
    sentence = person_sentence(SAMPLES[kind], names.get)
    assert found is not None and found.name == kind and sentence, SAMPLES[kind]
    assert not refs_in(sentence) and "allergy_override" not in sentence and "draft_save" not in sentence, sentence
    assert sentence.endswith(".") and sentence[0].isupper(), sentence


def test_a_warning_no_kind_reads_has_no_sentence() -> None:
    assert person_sentence("recipeYield: '2 to 4' is a range (2 to 4); saved as 2.", lambda ref: None) is None


TOLD_IN_OWN_WORDS: dict[str, tuple[str, str]] = {
    "double_booked": ("Friday's dinner now has two: Salmon Tacos was already planned there.", "Salmon Tacos is also on the plan."),
    "occasion_servings": ("Saturday's dinner makes 4 servings, but you'll be 6.", "Saturday's dinner is planned."),
    "listed_twice": ("Milk was already on your list, so it is there twice.", "Eggs are on your list."),
    "note_kept": ("Saturday's lunch still says 'extra potatoes' from before.", "Saturday's lunch has a note."),
    "allergen_in_draft": ("Careful: the prawns are shellfish.", "Careful: it has shellfish."),
    "avoided": ("It has mushrooms, which you dislike.", "It has something you dislike."),
    "too_long": ("Lasagna takes over two hours.", "It takes a while."),
}
"""For each kind a warning's thing can be named in, a reply that tells it in its own words (the thing, and the day when the
warning has one) and one that does not (another thing, or no day)."""


def test_every_kind_with_things_has_a_told_case_here() -> None:
    assert sorted(TOLD_IN_OWN_WORDS) == sorted(kind.name for kind in WARNING_KINDS if kind.name != "more_warnings")


@pytest.mark.parametrize("kind", sorted(TOLD_IN_OWN_WORDS))
def test_a_warning_is_told_by_a_reply_naming_its_thing_and_day_and_not_by_one_that_does_not(kind: str) -> None:
    names = {"recipe_2": "Lasagna", "meal_3": "Fri 28 Nov dinner"}
    told, untold = TOLD_IN_OWN_WORDS[kind]
    assert told_in(SAMPLES[kind], names.get, told), told
    assert not told_in(SAMPLES[kind], names.get, untold), untold
    assert not told_in("recipeYield: '2 to 4' is a range (2 to 4); saved as 2.", names.get, told)
