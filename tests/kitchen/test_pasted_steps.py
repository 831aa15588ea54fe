"""Pasted recipe text keeps each step whole: a semicolon inside a step never starts another (in a pasted paragraph,
a numbered list or plain lines), a line that goes on lower-case is the rest of the step before it, and no step
starts lower-case; for generated steps in every layout."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from alfred_mcp.kitchen.recipe_sources import recipe_in_text

WORDS = st.sampled_from(["fill", "squeeze", "warm", "the", "tortillas", "lime", "over", "chickpeas", "cabbage", "and", "sour",
                         "cream", "gently", "with", "salt", "until", "golden"])
CLAUSE = st.lists(WORDS, min_size=2, max_size=6).map(" ".join)
STEP = st.lists(CLAUSE, min_size=1, max_size=3).map(lambda clauses: "; ".join(clauses)).map(lambda text: text[0].upper() + text[1:] + ".")
HEAD = "Quux Tacos. Serves 4. 1 can chickpeas, drained; 2 tbsp olive oil; 1 lime."
LINES_HEAD = "Quux Tacos\nServes 4\n1 can chickpeas, drained\n2 tbsp olive oil\n1 lime"


def layouts(steps: list[str]) -> dict[str, str]:
    numbered = [f"{n}. {step}" for n, step in enumerate(steps, 1)]
    return {
        "paragraph": f"{HEAD} Steps: {' '.join(steps)}",
        "numbered paragraph": f"{HEAD} Steps: {' '.join(numbered)}",
        "numbered paragraph, semicolons between": f"{HEAD} Steps: {'; '.join(step.rstrip('.') for step in numbered)}.",
        "numbered lines": LINES_HEAD + "\n" + "\n".join(numbered),
        "lines under a heading": LINES_HEAD + "\nMethod\n" + "\n".join(steps),
    }


@settings(max_examples=60, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=4))
def test_a_semicolon_inside_a_step_never_starts_another(steps: list[str]) -> None:
    for layout, text in layouts(steps).items():
        recipe = recipe_in_text(text)
        assert recipe is not None, layout
        assert recipe["recipeInstructions"] == steps, (layout, text)
        assert recipe["recipeIngredient"] == ["1 can chickpeas, drained", "2 tbsp olive oil", "1 lime"], layout


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(STEP, st.integers(min_value=1, max_value=4)), min_size=1, max_size=4))
def test_a_step_wrapped_over_lines_is_one_step_and_none_starts_lower_case(wrapped: list[tuple[str, int]]) -> None:
    """'Fill with chickpeas and' / 'sour cream.' under a heading is one step; '2. squeeze lime over.' is capitalized."""
    lines: list[str] = []
    for step, cut in wrapped:
        words = step.split(" ")
        cut = min(cut, len(words) - 1)
        lines += [" ".join(words[:cut]), " ".join(words[cut:])] if cut else [step]
    recipe = recipe_in_text(LINES_HEAD + "\nMethod\n" + "\n".join(lines))
    assert recipe is not None
    assert recipe["recipeInstructions"] == [step for step, _ in wrapped]
    numbered = recipe_in_text(LINES_HEAD + "\n" + "\n".join(f"{n}. {step.lower()}" for n, (step, _) in enumerate(wrapped, 1)))
    assert numbered is not None
    assert numbered["recipeInstructions"] == [step[0] + step[1:].lower() for step, _ in wrapped]
