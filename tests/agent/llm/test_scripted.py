"""The scripted model: replays role outputs in order, records every request, fails clearly when it runs out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alfred_mcp.agent.llm.base import LLM, ModelRequest
from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.errors import ConfigError, ModelOutputError, ModelUnavailableError

SCHEMA = {"type": "object"}


def _request(role: str, prompt: str = "hi") -> ModelRequest:
    return ModelRequest.ask(role, f"You are {role}.", prompt, SCHEMA, f"{role}_output")


@pytest.mark.anyio
async def test_each_role_consumes_its_own_outputs_in_order() -> None:
    """A role mapping is consumed per role, in order, whatever the interleaving."""
    llm = ScriptedLLM({"think": [{"n": 1}, {"n": 2}], "act": [{"a": 1}]})
    answers = [(await llm.complete(_request(role))).data for role in ("think", "act", "think")]
    assert answers == [{"n": 1}, {"a": 1}, {"n": 2}]
    assert llm.remaining() == {"think": 0, "act": 0}
    assert isinstance(llm, LLM)


@pytest.mark.anyio
async def test_a_list_is_consumed_in_call_order_for_any_role() -> None:
    """A plain list answers whichever role calls next."""
    llm = ScriptedLLM([{"first": True}, {"second": True}])
    assert (await llm.complete(_request("understand"))).data == {"first": True}
    assert (await llm.complete(_request("reply"))).data == {"second": True}


@pytest.mark.anyio
async def test_every_request_is_recorded() -> None:
    """Requests are kept in order (prompts can be audited) and counted per role."""
    llm = ScriptedLLM({"think": [{}, {}], "act": [{}]})
    for role, prompt in (("think", "plan recipe_1"), ("act", "do step 1"), ("think", "again")):
        await llm.complete(_request(role, prompt))
    assert [r.messages[0].content for r in llm.requests] == ["plan recipe_1", "do step 1", "again"]
    assert llm.calls_by_role() == {"think": 2, "act": 1}
    assert "You are act." in llm.requests[1].prompt_text()


@pytest.mark.anyio
async def test_running_out_is_a_clear_unavailable_error() -> None:
    """An exhausted role raises ModelUnavailableError naming the role and how many were replayed."""
    llm = ScriptedLLM({"think": [{"n": 1}]})
    await llm.complete(_request("think"))
    with pytest.raises(ModelUnavailableError, match="no more outputs for role 'think' \\(it replayed 1\\)") as caught:
        await llm.complete(_request("think"))
    assert caught.value.fields == {"role": "think", "played": 1}
    with pytest.raises(ModelUnavailableError, match="role 'reply' \\(it replayed 0\\)"):
        await llm.complete(_request("reply"))
    assert len(llm.requests) == 3


@pytest.mark.anyio
async def test_scripted_error_is_raised_in_its_turn() -> None:
    """A ModelError in the script is raised when its turn comes, then the script goes on."""
    llm = ScriptedLLM({"act": [ModelOutputError("garbled"), {"ok": True}]})
    with pytest.raises(ModelOutputError, match="garbled"):
        await llm.complete(_request("act"))
    assert (await llm.complete(_request("act"))).data == {"ok": True}


@pytest.mark.anyio
async def test_answers_are_copies() -> None:
    """Mutating an answer (or the source script) does not change what is replayed later."""
    output = {"steps": [1]}
    script = {"think": [output, output]}
    llm = ScriptedLLM(script)
    output["steps"].append("edited")
    first = await llm.complete(_request("think"))
    first.data["steps"].append(2)
    second = await llm.complete(_request("think"))
    assert first.raw_text == json.dumps({"steps": [1]}) and second.data == {"steps": [1]}


@pytest.mark.anyio
async def test_from_file_skips_notes_and_names_the_model(tmp_path: Path) -> None:
    """A JSON file maps roles to outputs; "_"-prefixed keys are notes."""
    path = tmp_path / "demo.json"
    path.write_text(json.dumps({"_provenance": "written by hand", "reply": [{"text": "Done."}]}))
    llm = ScriptedLLM.from_file(path)
    response = await llm.complete(_request("reply"))
    assert response.data == {"text": "Done."} and response.model == "scripted:demo.json"
    assert llm.remaining() == {"reply": 0}


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param(None, "Cannot read the model script", id="missing"),
        pytest.param("{not json", "is not JSON: Expecting property name enclosed in double quotes at line 1", id="not-json"),
        pytest.param('"think"', "must be an object \\(role -> list of outputs\\) or a list", id="wrong-top-level"),
        pytest.param('{"think": {"goal": "x"}}', "Script entry 'think' must be a list of outputs", id="not-a-list"),
        pytest.param('{"think": [{"goal": "x"}, "plan"]}', "Script output 1 of 'think' must be a JSON object, got str", id="not-an-object"),
    ],
)
def test_bad_script_file_is_a_config_error(tmp_path: Path, content: str | None, expected: str) -> None:
    """A missing or malformed script fails at load time with the reason."""
    path = tmp_path / "script.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ConfigError, match=expected):
        ScriptedLLM.from_file(path)
