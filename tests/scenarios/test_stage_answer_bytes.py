"""What stage answers leave out because the client's model has it, over every scripted stage conversation: the
reply it wrote (echoed only when the state changed it), ..."""

from __future__ import annotations

import pytest

from .driver import StageClient, TurnLog
from .scripts import SCENARIOS, Scenario, drive

pytestmark = pytest.mark.anyio


async def _driven(stage: StageClient, scenario: Scenario) -> list[TurnLog]:
    return await drive(stage, scenario)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
async def test_a_finished_turn_echoes_the_reply_only_when_the_state_changed_it(stage: StageClient, scenario: Scenario) -> None:
    logs = await _driven(stage, scenario)
    finished = 0
    for log in logs:
        for call in log.calls:
            if call.result is None or call.result.get("expected_role") is not None:
                continue
            finished += 1
            written = [call.arguments["output"]["response"]] if call.arguments.get("role") == "reply" else []
            status = await stage.client.call_tool("turn_status", {"turn": call.result["turn"]})
            kept = (status.structured_content or {})["state"]["reply"]
            if kept in written:
                assert "reply" not in call.result, call.result
            else:
                assert call.result.get("reply") == kept, (call.result, kept)
    assert finished == len(logs)
