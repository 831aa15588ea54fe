"""A row kitchen_undo brings back after a delete is labelled 'restored' in the contexts and the session's refs, never
'created' (it was not made anew: it is the same row, with the same ref), for every table a person deletes from."""

from __future__ import annotations

import re

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("table", ["recipes", "inventory", "shopping_list", "tasks", "meal_plans"])
async def test_a_row_undo_brings_back_is_labelled_restored(app: AlfredApp, table: str) -> None:
    async with Client(build_server(app)) as client:
        (row,) = (await call(client, "db_read", table=table, limit=1))["rows"]
        await call(client, "db_delete", table=table, filters=[{"field": "id", "op": "eq", "value": row["id"]}])
        undone = await call(client, "kitchen_undo")
        assert [item["ref"] for item in undone["restored"]] == [row["id"]]
        context = (await call(client, "turn_start", message="is it back?"))["next"]["context"]
        lines = [line for line in context.splitlines() if re.match(rf"- {row['id']}\b", line)]
        assert lines and all("[restored]" in line and "[created]" not in line for line in lines), lines
