"""Turning a model's text answer into the JSON object a role asked for."""

from __future__ import annotations

import json

import pytest

from alfred_mcp.agent.llm.output import parse_json_object, schema_instructions
from alfred_mcp.errors import ModelOutputError
from alfred_mcp.state.schema_text import schema_text

ANSWER = {"goal": "Plan dinners", "steps": [{"ref": "recipe_1", "note": "uses {braces}"}]}


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(json.dumps(ANSWER), id="bare"),
        pytest.param(f"  \n{json.dumps(ANSWER, indent=2)}\n", id="whitespace"),
        pytest.param(f"```json\n{json.dumps(ANSWER, indent=2)}\n```", id="fenced-json"),
        pytest.param(f"```\n{json.dumps(ANSWER)}\n```", id="fenced-plain"),
        pytest.param(f"Here is the plan:\n```json\n{json.dumps(ANSWER)}\n```\nLet me know!", id="fenced-amid-prose"),
        pytest.param(f"Sure. {json.dumps(ANSWER)} Done.", id="object-amid-prose"),
    ],
)
def test_json_object_is_found(text: str) -> None:
    """The object is recovered bare, fenced, or surrounded by prose."""
    assert parse_json_object(text, source="test model") == ANSWER


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("I think you should cook pasta.", "text that is not a JSON object: 'I think you should cook pasta.'", id="prose"),
        pytest.param('{"goal": "Plan dinners", "steps": [', "not a JSON object", id="truncated"),
        pytest.param('["recipe_1", "recipe_2"]', "JSON that is a list, not an object", id="list"),
        pytest.param("", "not a JSON object", id="empty"),
    ],
)
def test_non_object_answer_is_an_output_error(text: str, expected: str) -> None:
    """Anything but a JSON object raises ModelOutputError naming the source."""
    with pytest.raises(ModelOutputError, match=expected) as caught:
        parse_json_object(text, source="test model")
    assert caught.value.fields["provider"] == "test model"


def test_long_bad_answer_is_excerpted() -> None:
    """The error quotes at most 200 characters of the answer."""
    with pytest.raises(ModelOutputError) as caught:
        parse_json_object("x" * 5000, source="test model")
    assert "x" * 200 + "..." in caught.value.message and "x" * 201 not in caught.value.message


def test_schema_instructions_carry_the_schema_and_its_name() -> None:
    """Text-only JSON modes get the schema as a typed signature (state/schema_text.py) and its name."""
    schema = {"type": "object", "required": ["goal"], "properties": {"goal": {"type": "string"}, "steps": {"type": "array"}}}
    text = schema_instructions(schema, "think_output")
    assert "(think_output)" in text and text.endswith(schema_text(schema)) and "goal: string" in text and "steps?: any[]" in text
