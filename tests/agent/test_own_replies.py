"""A stage client's model wrote Alfred's replies: its later contexts do not quote them (a full resend carries their
start), while the bundled loop's model (which did not keep them) reads them whole."""

from __future__ import annotations

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.agent.role_templates import OWN_REPLY_CHARS
from alfred_mcp.app import AlfredApp
from alfred_mcp.state.conversation import OWN_REPLY_CUT

pytestmark = pytest.mark.anyio

QUICK = {"quick_mode": True, "quick_mode_confidence": 0.9, "quick_read": {"tool": "recipes_search", "arguments": {"category": "fish"}}}


def _long_reply(words: int) -> str:
    return "You have three fish recipes. " + " ".join(f"Detail{n} about the cod and the salmon." for n in range(words))


@pytest.mark.parametrize("words", [5, 40, 120])
async def test_a_stage_client_is_not_quoted_its_own_earlier_reply_and_a_full_resend_gives_its_start(
    client: Client, app: AlfredApp, words: int,
) -> None:
    reply = _long_reply(words)
    await call(client, "turn_start", message="What fish recipes do I have?")
    await call(client, "turn_submit", role="understand", output=QUICK)
    await call(client, "turn_submit", role="reply", output={"response": reply})
    context = (await call(client, "turn_start", message="Thanks"))["next"]["context"]
    assert not [line for line in context.splitlines() if line.startswith(("Alfred: ", "User: "))], context
    context = (await call(client, "turn_context", full=True))["context"]  # e.g. in a new chat: the conversation too
    (line,) = [line for line in context.splitlines() if line.startswith("Alfred: ")]
    if len(reply) <= OWN_REPLY_CHARS:
        assert line == f"Alfred: {reply}"
    else:
        assert line.endswith(OWN_REPLY_CUT) and len(line) <= len("Alfred: ") + OWN_REPLY_CHARS + len(OWN_REPLY_CUT)
        assert reply.startswith(line.removeprefix("Alfred: ").removesuffix(OWN_REPLY_CUT).removesuffix("…"))


async def test_the_bundled_loops_model_reads_earlier_replies_whole(client: Client, app: AlfredApp) -> None:
    reply = _long_reply(15)
    llm = ScriptedLLM({"understand": [QUICK, QUICK], "reply": [{"response": reply}, {"response": "You're welcome."}]})
    app.llm = llm
    await call(client, "chat", message="What fish recipes do I have?")
    await call(client, "chat", message="Thanks")
    second_understand = [request for request in llm.requests if request.role == "understand"][1].prompt_text()
    assert f"Alfred: {reply}" in second_understand and OWN_REPLY_CUT not in second_understand
