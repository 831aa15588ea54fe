"""A session's first turn as a stage client's model drives it, counted (the calls and the bytes its model read): following
the answers, which bring each role's instructions and output shape (the default listing), or with Understand's and
Think's outputs sent in the first turn_start (what the stage listing's tools/list makes possible). The category
search's turn (tests/scenarios/scripts.py): one read step whose tool Act calls; a lookup, so answered from its rows (no
Reply call)."""

from __future__ import annotations

from typing import Any

from mcp import Client

from .scripts import CATEGORY_SEARCH

SEARCH = CATEGORY_SEARCH.turns[0]


class Counted:
    """A client's calls through the real client, counted with the bytes of the text the model read."""

    def __init__(self, client: Client) -> None:
        self.client, self.calls, self.bytes = client, 0, 0

    async def __call__(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = await self.client.call_tool(tool, arguments)
        assert not result.is_error, result.content
        self.calls, self.bytes = self.calls + 1, self.bytes + len(result.content[0].text.encode())  # type: ignore[union-attr]
        return dict(result.structured_content or {})


async def followed_first_turn(client: Client) -> tuple[dict[str, str], dict[str, str], Counted]:
    """A first turn driven answer by answer (Understand, Think with one read step, Act, Reply): each role's output shape
    and the instructions each answer sent (by role), as the client's model read them; its calls and bytes."""
    shapes: dict[str, str] = {}
    instructions: dict[str, str] = {}
    counted = Counted(client)
    answer = await counted("turn_start", message=SEARCH.message)
    for role, output in [("understand", SEARCH.outputs["understand"][0]), ("think", SEARCH.outputs["think"][0]),
                         ("act", SEARCH.outputs["act"][0]), ("act", SEARCH.outputs["act"][1]), ("reply", SEARCH.outputs["reply"][0])]:
        if role == "reply" and "answered" in answer:  # a lookup: its model tells the user from the rows, no Reply call
            break
        view = answer["next"]
        assert view["role"] == role
        shapes.update(view.get("output_shapes", {}))
        if "instructions" in view:
            instructions[role] = instructions.get(role, "") + view["instructions"]
        answer = await counted("turn_submit", role=role, output=output)
    assert answer["outcome"] == "completed"
    return shapes, instructions, counted


async def sent_ahead_first_turn(client: Client) -> Counted:
    """The category search's first turn with Understand's and Think's outputs sent ahead in the first call, its one
    step's tool called by Act."""
    counted = Counted(client)
    answer = await counted("turn_start", message=SEARCH.message,
                           then=[{"role": "understand", "output": SEARCH.outputs["understand"][0]},
                                 {"role": "think", "output": SEARCH.outputs["think"][0]}])
    assert answer["expected_role"] == "act" and "not_applied" not in answer and "refused" not in answer
    for output in SEARCH.outputs["act"]:
        answer = await counted("turn_submit", role="act", output=output)
    if "answered" not in answer:  # a lookup is answered from its rows: no Reply call
        answer = await counted("turn_submit", role="reply", output=SEARCH.outputs["reply"][0])
    assert answer["outcome"] == "completed"
    return counted
