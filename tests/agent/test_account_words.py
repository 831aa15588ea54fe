"""The state's account in a person's sentences, for every table a write touches × every action it tells × one thing or
several (`agent/account_words.py`): no brackets, no refs, no table in parentheses, each thing named once, and the reply
check (`state/reply_check.py`) accepts it as it would a model's reply. Parts not done sharing a reason are grouped."""

from __future__ import annotations

import pytest

from alfred_mcp.agent.account_words import (
    Told,
    done_sentences,
    meal_words,
    outcome_sentences,
    partial_sentence,
    result_told,
    told_of,
    unlinked_sentence,
)
from alfred_mcp.state.refs import refs_in
from alfred_mcp.state.reply_check import Fact, Item, ReplyFacts, check_reply

TABLES = {"shopping_list": ("shop", ["black pepper", "oat milk", "limes"]), "inventory": ("inv", ["chickpeas", "tortillas", "rice"]),
          "recipes": ("recipe", ["Crispy Chickpea Tacos", "Red Lentil Soup", "Mushroom Risotto"]),
          "tasks": ("task", ["Thaw the cod", "Buy limes", "Soak the beans"]),
          "meal_plans": ("meal", ["Fri Dec 4 [dinner]", "Sat Dec 5 [lunch]", "Sun Dec 6 [dinner]"])}
ACTIONS = ("created", "saved", "updated", "deleted", "undone")
UNDONE_HOW = ("removed", "restored", "reverted", "")
"""What an undo did to its rows (an add taken back, a removal brought back, a change set back, or not told)."""
CASES = [(table, action, how) for table in sorted(TABLES) for action in ACTIONS for how in (UNDONE_HOW if action == "undone" else ("",))]


def _facts(action: str, table: str, count: int) -> list[Fact]:
    prefix, labels = TABLES[table]
    return [Fact(action, table, f"{prefix}_{index + 1}", label) for index, label in enumerate(labels[:count])]


def _reads_like_a_person(text: str) -> None:
    assert text and "[" not in text and "(" not in text and not refs_in(text) and not text.startswith("Done"), text


@pytest.mark.parametrize("count", [1, 3])
@pytest.mark.parametrize(("table", "action", "how"), CASES)
def test_every_action_on_every_table_is_a_sentence_the_reply_check_accepts(table: str, action: str, how: str, count: int) -> None:
    things = _facts(action, table, count)
    told = Told(meal_recipes={fact.ref: "Air-Fryer Cod" for fact in things}, undone={fact.ref: how for fact in things if how})
    facts = ReplyFacts(things=things)
    text = done_sentences(facts, told, {})
    _reads_like_a_person(text)
    assert check_reply(text, facts) == [], text
    if table == "meal_plans":
        assert all(f"Air-Fryer Cod for {meal_words(fact.label)}" in text for fact in things), text


@pytest.mark.parametrize("count", [1, 2, 4, 9])
def test_parts_not_done_for_one_reason_are_one_sentence_naming_each_once(count: int) -> None:
    names = ["chickpeas", "tortillas", "lime", "cumin", "cilantro", "red onion", "avocado", "feta", "radishes"][:count]
    partial = [Item("", name, "not taken out of the pantry (not in the pantry)") for name in names]
    facts = ReplyFacts(things=[Fact("created", "cooking_log", "log_1", "Cooked Fri Nov 27")], partial=partial)
    text = partial_sentence(facts)
    assert text.count("Not taken out of the pantry") == 1 and text.endswith("(none there).") and "pantry (" not in text, text
    assert all(text.count(name) == 1 for name in names), text
    assert check_reply(done_sentences(facts, Told(cooked={"log_1": ("Crispy Chickpea Tacos", "2")}), {}) + " " + text, facts) == []


def test_rows_left_unlinked_are_named_as_a_person_would() -> None:
    items = [Item("meal_1", "Fri Dec 4 [dinner]"), Item("log_1", "Cooked Fri Nov 27"), Item("task_1", "Buy limes")]
    text = unlinked_sentence(items)
    assert text == "Still there, but no longer linked to what is gone: dinner on Fri Dec 4, the meal cooked on Fri Nov 27 and Buy limes."


@pytest.mark.parametrize("listed", [0, 1, 3])
@pytest.mark.parametrize("covered", [0, 1, 3])
def test_a_lists_lines_already_there_and_covered_by_the_pantry_are_told_once_each(listed: int, covered: int) -> None:
    """shopping_list_from's result names lines already on the list and lines the pantry covers: each told once, by name."""
    on_list, in_pantry = ["eggs", "milk", "limes"][:listed], ["rice", "cumin", "garlic"][:covered]
    result = {"already_listed": [{"name": name, "note": "on the list"} for name in on_list], "covered": [{"name": name} for name in in_pantry]}
    text = outcome_sentences(told_of([result_told("shopping_list_from", result)], lambda ref: ref))
    assert ("Already on your shopping list: " in text) == bool(on_list) and ("Your pantry covers " in text) == bool(in_pantry), text
    assert all(text.count(name) == 1 for name in [*on_list, *in_pantry]), text
    assert check_reply(text, ReplyFacts(things=[Fact("created", "shopping_list", "shop_9", "black pepper")])) == [], text


@pytest.mark.parametrize("bought", [1, 2])
@pytest.mark.parametrize("listed", [0, 1])
def test_a_line_bought_already_is_never_told_as_on_the_list(bought: int, listed: int) -> None:
    """A line shopping_list_from found ticked ('bought already') is told as bought, not as on the list to buy (round 8:
    'chicken breast is already on your shopping list' for a line bought days ago); the rest as before, each once."""
    ticked, on_list = ["chicken breast", "flour tortillas"][:bought], ["eggs"][:listed]
    result = {"already_listed": [*({"name": name, "note": "bought already"} for name in ticked),
                                 *({"name": name, "note": "on the list"} for name in on_list)]}
    text = outcome_sentences(told_of([result_told("shopping_list_from", result)], lambda ref: ref))
    listed_part = text.split("Ticked as bought on your list already:")[0]
    assert not any(name in listed_part for name in ticked) and text.count("Ticked as bought on your list already: ") == 1, text
    assert all(text.count(name) == 1 for name in [*ticked, *on_list]), text
    assert check_reply(text, ReplyFacts(things=[Fact("created", "shopping_list", "shop_9", "black pepper")])) == [], text
