"""An internal error says what it can: the tool, the field and the limit of a failed model check, and
never that nothing changed when the call had already committed.

Handlers are replaced here by ones that fail on purpose (a bug is what makes an internal error;
the corpus shows the real handlers never produce one).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client
from pydantic import BaseModel, Field

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.server.tools import HANDLERS

from .conftest import Kitchen
from .harness import KitchenSnapshot, call, db_ids

pytestmark = [pytest.mark.anyio, pytest.mark.sqlite_only]


class Record(BaseModel):
    summary: str = Field(max_length=200)


async def _model_check_fails(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    Record(summary="s" * 300)
    return {}


async def _result_holds_a_raw_id(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    """A handler with a bug: it shows the id of a row it read."""
    async with app.work("describe_table") as work:
        (row,) = await work.store.select(TABLES["recipes"], Query(limit=1), user_id=app.user_id)
    return {"tables": [{"name": row["id"]}]}


async def _result_holds_a_registry_id(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    """A handler with a bug: it shows a row id the session's registry holds, without reading the row."""
    async with app.work("describe_table") as work:
        row_id = work.session.registry.resolve("recipe_1")
    return {"tables": [{"name": f"see {row_id.replace('-', '').upper()}"}]}


async def _result_holds_typed_uuid_text(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    """UUID-shaped text that is no id of ours (a URL someone saved) is data, not a leak."""
    async with app.work("describe_table") as work:
        await work.store.select(TABLES["recipes"], Query(limit=1), user_id=app.user_id)
    return {"tables": [{"name": "https://x.test/r/123e4567-e89b-12d3-a456-426614174000"}]}


@pytest.fixture
def failing(request: pytest.FixtureRequest) -> Iterator[None]:
    original = HANDLERS["describe_table"]
    HANDLERS["describe_table"] = request.param
    yield
    HANDLERS["describe_table"] = original


@pytest.mark.parametrize("failing", [_model_check_fails], indirect=True)
async def test_a_failed_model_check_names_the_tool_the_field_and_the_limit(kitchen_app: AlfredApp, failing: None) -> None:
    async with Client(build_server(kitchen_app)) as client:
        outcome = await call(client, "describe_table", {})
    assert outcome.fields["code"] == "internal_error" and outcome.fields["tool"] == "describe_table"
    assert outcome.fields["field"] == "Record.summary" and "200 characters" in outcome.fields["limit"]
    assert "describe_table" in outcome.text and "Record.summary" in outcome.text and "nothing was changed" not in outcome.text


@pytest.mark.parametrize("failing", [_result_holds_a_raw_id, _result_holds_a_registry_id], indirect=True)
async def test_a_result_that_cannot_be_sent_says_the_call_completed(kitchen_app: AlfredApp, kitchen: Kitchen, failing: None) -> None:
    """The leak guard knows the ids the call handled: a row it read, a row its session's registry holds (any form)."""
    async with Client(build_server(kitchen_app)) as client:
        outcome = await call(client, "describe_table", {})
    snapshot = KitchenSnapshot(kitchen.db)
    ids = db_ids(snapshot.take())
    snapshot.close()
    assert outcome.fields["code"] == "internal_error" and not outcome.leaked(ids)
    assert "after it completed" in outcome.text and "kept" in outcome.text


@pytest.mark.parametrize("failing", [_result_holds_typed_uuid_text], indirect=True)
async def test_uuid_shaped_text_that_is_no_id_of_ours_goes_out_as_given(kitchen_app: AlfredApp, failing: None) -> None:
    async with Client(build_server(kitchen_app)) as client:
        outcome = await call(client, "describe_table", {})
    assert outcome.ok and outcome.structured["tables"][0]["name"] == "https://x.test/r/123e4567-e89b-12d3-a456-426614174000"
