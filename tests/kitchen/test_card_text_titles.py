"""recipe_show's text writes a cuisine and a difficulty as its card does (the cook's QA: the card said 'Indian · Medium',
the text 'indian · medium', and 'middle-eastern' read 'Middle-eastern')."""

from __future__ import annotations

import pytest

from alfred_mcp.kitchen.view_texts import recipe_text


@pytest.mark.parametrize(("cuisine", "difficulty", "said"), [
    ("indian", "medium", "Indian · Medium"), ("middle-eastern", "easy", "Middle Eastern · Easy"),
    ("Thai", None, "Thai"), (None, "hard", "Hard"), ("south  east-asian", None, "South East Asian"),
])
def test_the_card_text_titles_cuisine_and_difficulty(cuisine: str | None, difficulty: str | None, said: str) -> None:
    card = {"name": "Quux", "recipe": "recipe_1", "ingredients": [], "steps": [], "allergens": [], "conflicts": [],
            **({"cuisine": cuisine} if cuisine else {}), **({"difficulty": difficulty} if difficulty else {})}
    assert recipe_text(card).splitlines()[0] == f"Quux (recipe_1) · {said}"
