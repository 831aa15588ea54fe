"""What every answer of the stage tools carries to the client's model, over every scenario conversation: no
heading without content, and nothing the client's model already read in this session sent again (its model
reads every answer: a notice's rows, a context section, the instructions)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from e2e.conftest import seeded_app
from empty_markers import HEADING, empty_markers
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.state.client_memo import KEEP_TURNS

from .driver import StageClient, TurnLog
from .scripts import SCENARIOS, Scenario, done, drive, plan, reply, step, tool

pytestmark = pytest.mark.anyio



def _answers(logs: list[TurnLog]) -> list[tuple[int, dict[str, Any]]]:
    return [(turn, call.result) for turn, log in enumerate(logs, start=1) for call in log.calls if call.result is not None]


def _sections(context: str) -> list[tuple[str, str]]:
    pieces = re.split(r"(?m)^(?=## )", context)
    return [(piece.split("\n", 1)[0], piece.strip()) for piece in pieces if piece.startswith("## ")]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
async def test_no_answer_has_an_empty_marker_or_resends_what_the_client_read(stage: StageClient, scenario: Scenario) -> None:
    logs = await drive(stage, scenario)
    rows: dict[str, int] = {}
    sections: dict[str, list[tuple[str, int]]] = {}  # by heading: each version sent whole, with its turn
    instructions: set[str] = set()
    for turn, result in _answers(logs):
        notice, view = result.get("notice") or "", result.get("next") or {}
        context = view.get("context", "")
        for text in (notice, context, view.get("instructions", "")):
            assert empty_markers(text) == [], f"turn {turn}: a marker without content in:\n{text}"
        for line in context.splitlines():
            sent = rows.get(line.strip())
            assert sent is None or turn - sent > KEEP_TURNS, f"turn {turn}: a notice's row sent again: {line!r}"
        for heading, section in _sections(context):
            if not heading.endswith(":)"):  # a whole section, not the new lines of one
                versions = sections.setdefault(heading, [])
                for index, (earlier, sent) in enumerate(versions):
                    # unless a version sent after it in the same turn makes 'as sent in turn N' ambiguous
                    ambiguous = any(other != earlier and when == sent for other, when in versions[index + 1:])
                    assert earlier != section or turn - sent > KEEP_TURNS or ambiguous, f"turn {turn}: sent again whole:\n{section}"
                versions.append((section, turn))
        for part in filter(None, view.get("instructions", "").split("\n\n")):
            assert part not in instructions, f"turn {turn}: instructions sent again: {part!r}"
            instructions.add(part)
        lines = [line.strip() for line in context.splitlines() if len(line.strip()) > 40 and not HEADING.match(line)]
        assert len(lines) == len(set(lines)), f"turn {turn}: a line twice in one context:\n{context}"
        rows.update({line.strip(): turn for line in notice.splitlines()[1:] if line.strip()})


SOUP = {"name": "Tomato Soup", "servings": 2, "ingredients": [{"name": "canned tomatoes", "quantity": 1, "unit": "can"},
                                                             {"name": "onion", "quantity": 1}],
        "instructions": ["Soften the onion.", "Add the tomatoes, simmer and blend."]}


@pytest.mark.parametrize("revision", [{"patch": {"name": "Sunset Soup"}}, {"content": {**SOUP, "name": "Sunset Soup"}}],
                         ids=["patch", "content"])
async def test_a_renamed_draft_is_named_as_it_is_now_in_every_later_answer(stage: StageClient, revision: dict[str, Any]) -> None:
    """A draft renamed by draft_revise in the write step that saves it: the batch, the drafts the step covers and
    Reply's context name it by its new name only, and the notice of the revision says what changed and the draft's size
    (not its content, which the model wrote)."""
    log = await stage.turn("Draft a tomato soup and save it as Sunset Soup", {
        "understand": [{"processed_message": "draft a tomato soup, save it as Sunset Soup"}],
        "think": [plan("Draft and save the soup", step("generate", "Draft the soup", expected_count=1), step("write", "Rename and save it"))],
        "act": [tool("draft_create", entity_type="recipe", items=[SOUP]), done("Drafted gen_recipe_1"),
                tool("draft_revise", ref="gen_recipe_1", **revision), tool("draft_save", refs=["gen_recipe_1"]), done("Saved it")],
        "reply": [reply("Saved Sunset Soup, with its 2 ingredients and 2 steps.")],
    })
    answers = [call.result for call in log.calls if call.result is not None]
    revised = next(index for index, result in enumerate(answers) if (result.get("notice") or "").startswith("draft_revise"))
    notice = answers[revised]["notice"]  # what was revised and the draft's size: the model wrote the change
    assert "Sunset Soup" in notice and '"canned tomatoes"' not in notice and "2 ingredients, 2 steps, serves 2" in notice
    assert ("revised name" if "patch" in revision else "replaced whole") in notice
    for result in answers[revised:]:
        shown = "\n".join([result.get("notice") or "", (result.get("next") or {}).get("context", "")])
        assert "Tomato Soup" not in shown, shown
    assert log.final["outcome"] == "completed" and "reply" not in log.final  # the model wrote it


@pytest.mark.parametrize("role_outputs", [1, 2, 3], ids=["think-after-restart", "act-after-restart", "reply-after-restart"])
async def test_what_a_session_was_sent_holds_across_server_processes(tmp_path: Path, role_outputs: int) -> None:
    """The memo is the session's own (stored with it): a server started again on the same kitchen, continuing the
    session, still leaves out what this session's client read before the restart, and only that."""
    outputs: list[tuple[str, dict[str, Any]]] = [
        ("understand", {"processed_message": "list fish recipes"}),
        ("think", plan("List fish recipes", step("read", "Search fish recipes"))),
        ("act", tool("recipes_search", category="fish")),
    ]
    async with seeded_app(tmp_path, date.today()) as first:
        async with Client(build_server(first)) as client:
            started = (await client.call_tool("turn_start", {"message": "What fish recipes do I have?"})).structured_content
            session, read = started["session"], [started["next"]["context"]]
            for role, output in outputs[: role_outputs - 1]:
                submitted = await client.call_tool("turn_submit", {"session": session, "role": role, "output": output})
                read.append(submitted.structured_content["next"]["context"])
    sections_read = {section for context in read for _, section in _sections(context)}
    again = AlfredApp.from_settings(Settings(db=str(tmp_path / "kitchen.db"), seed_demo=False))
    await again.open()
    try:
        async with Client(build_server(again)) as client:
            role, output = outputs[role_outputs - 1]
            answer = (await client.call_tool("turn_submit", {"session": session, "role": role, "output": output})).structured_content
            context = answer["next"]["context"]
            assert "(As sent before, unchanged: " in context
            assert not [section for _, section in _sections(context) if section in sections_read], context
            assert "instructions" not in answer["next"] or "# Understand" not in answer["next"]["instructions"]
            expected_before = {"understand", *(role for role, _ in outputs[: role_outputs - 1])}
            assert not set(answer["next"].get("output_shapes", {})) & expected_before  # each role's shape is sent once
        async with Client(build_server(again)) as other:  # another session on the same kitchen was sent nothing
            opened = (await other.call_tool("session_start", {})).structured_content
            fresh = (await other.call_tool("turn_start", {"session": opened["session"], "message": "What fish recipes do I have?"})).structured_content
            assert fresh["session"] != session and "## Current task" in fresh["next"]["context"] and "output_shapes" in fresh["next"]
    finally:
        await again.close()


@pytest.mark.parametrize("message", ["What fish recipes do I have?", "Plan the cod for Friday dinner, and add lemons to my list"])
async def test_a_stage_client_is_not_quoted_its_own_words_unless_it_asks_for_everything(tmp_path: Path, message: str) -> None:
    """The client's model sent the message and read the last exchange: the answers do not quote them back to it, in
    any role's context; turn_context with `full: true` (a new chat on an old session) sends them again."""
    async with seeded_app(tmp_path, date.today()) as app:
        async with Client(build_server(app)) as client:
            started = (await client.call_tool("turn_start", {"message": message})).structured_content
            session = started["session"]
            assert message not in started["next"]["context"] and "**User says:**" not in started["next"]["context"]
            submitted = (await client.call_tool("turn_submit", {"session": session, "role": "understand",
                                                                "output": {"processed_message": "the request, restated"}})).structured_content
            assert submitted["expected_role"] == "think" and message not in submitted["next"]["context"]
            whole = (await client.call_tool("turn_context", {"session": session, "full": True})).structured_content
            assert f'**User says:** "{message}"' in whole["context"]
