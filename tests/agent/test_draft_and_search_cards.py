"""Act's notice of a drafting or search call shows what the model must check: the draft as it will be saved (for
every drafting tool whose content the model did not write itself) and the recipes the constraints left out, with why."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.agent.act_tools import DRAFT_READ_BUDGET, result_card
from alfred_mcp.state.cards import CARD_BUDGET, draft_text

WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=1, max_size=24).map(str.strip).filter(bool)
INGREDIENT = st.fixed_dictionaries({"name": WORDS, "quantity": st.one_of(st.none(), st.floats(0.25, 20).map(lambda q: round(q, 2))),
                                    "unit": st.one_of(st.none(), st.sampled_from(["cup", "can", "tbsp", "clove"])),
                                    "notes": st.one_of(st.none(), WORDS), "is_optional": st.booleans()})
CONTENT = st.fixed_dictionaries({"name": WORDS, "servings": st.one_of(st.none(), st.integers(1, 12)), "description": st.none(),
                                 "ingredients": st.lists(INGREDIENT, min_size=1, max_size=6), "instructions": st.lists(WORDS, max_size=5),
                                 "tags": st.just([])})
SHOWING = ("recipes_import", "draft_read")
"""Tools whose drafts the model did not write (draft_revise: it wrote the change; its notice says what changed)."""


def _result(contents: list[dict[str, Any]]) -> dict[str, Any]:
    drafts = [{"ref": f"gen_recipe_{n}", "label": c["name"], "status": "pending", "content": c} for n, c in enumerate(contents, 1)]
    return {"drafts": drafts, "count": len(drafts)}


def _given_values(value: Any) -> list[str]:
    """Every value given in a draft's content (nothing null or empty), as it appears in JSON."""
    if isinstance(value, dict):
        return [text for item in value.values() for text in _given_values(item)]
    if isinstance(value, list):
        return [text for item in value for text in _given_values(item)]
    return [] if value is None or value == "" else [json.dumps(value, ensure_ascii=False)]


@given(tool=st.sampled_from(SHOWING), content=CONTENT)
def test_a_draft_the_model_did_not_write_whole_is_shown_as_it_will_be_saved(tool: str, content: dict[str, Any]) -> None:
    card = result_card(tool, {}, _result([content]))
    assert f"- gen_recipe_1: {content['name']} [pending]" in card
    assert f"  {draft_text(content)}" in card.splitlines()
    for value in _given_values(content):
        assert value in card
    assert "[]" not in card


@given(content=CONTENT)
def test_a_draft_the_model_just_wrote_is_named_not_repeated(content: dict[str, Any]) -> None:
    card = result_card("draft_create", {}, _result([content]))
    assert card.splitlines()[1:] == [f"- gen_recipe_1: {content['name']} [pending]"]


@given(tool=st.sampled_from(SHOWING), contents=st.lists(CONTENT, min_size=2, max_size=12, unique_by=lambda c: c["name"]))
def test_drafts_past_the_budget_are_named_by_size_with_the_read_that_shows_them(tool: str, contents: list[dict[str, Any]]) -> None:
    """Every draft is named, however many: its content while the budget lasts, past it its size and its read."""
    card = result_card(tool, {}, _result(contents))
    budget = DRAFT_READ_BUDGET if tool == "draft_read" else CARD_BUDGET
    shown = [n for n, c in enumerate(contents, 1) if f"  {draft_text(c)}" in card.splitlines()]
    sized = [n for n in range(1, len(contents) + 1) if f'draft_read refs=["gen_recipe_{n}"] shows it whole' in card]
    assert sorted(shown + sized) == list(range(1, len(contents) + 1))
    assert sum(len(line) + 1 for line in card.splitlines()[1:] if line.startswith("  {")) <= budget


EXCLUDED = st.lists(st.fixed_dictionaries({"ref": st.integers(1, 99).map(lambda n: f"recipe_{n}"), "name": WORDS,
                                           "reasons": st.lists(st.sampled_from(["contains cod (excluded)", "needs an oven",
                                                                                "over 30 minutes", "peanuts (allergy)"]),
                                                               min_size=1, max_size=3)}), max_size=14)


@given(tool=st.sampled_from(["recipes_search", "recipes_makeable"]), excluded=EXCLUDED)
def test_a_search_names_what_the_constraints_left_out_and_why(tool: str, excluded: list[dict[str, Any]]) -> None:
    result = {"recipes": [{"ref": "recipe_100", "name": "Kept Soup", "cuisine": "french"}], "count": 1, "excluded": excluded}
    card = result_card(tool, {}, result)
    assert "recipe_100 Kept Soup" in card
    if not excluded:
        assert "Left out" not in card
        return
    assert f"Left out by the constraints ({len(excluded)}):" in card
    for entry in excluded[:10]:
        assert f"- {entry['ref']} {entry['name']}: {'; '.join(entry['reasons'])}" in card.splitlines()
    assert (f"+{len(excluded) - 10} more" in card) == (len(excluded) > 10)
