"""The server as a real subprocess over stdio, the way Claude Desktop starts it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from .helpers import call, call_error, eq

pytestmark = pytest.mark.anyio
REPO = Path(__file__).resolve().parents[2]


def server_params(db: Path) -> StdioServerParameters:
    env = {"PYTHONPATH": str(REPO), "ALFRED_DB": str(db), "ALFRED_CHECK_RESULTS": "1"}
    return StdioServerParameters(command=sys.executable, args=["-m", "alfred_mcp"], env={**env, "PATH": os.environ.get("PATH", "")})


@pytest.mark.parametrize("mode", ["auto", "legacy"], ids=["2026-07-28", "2025-11-25"])
async def test_stdio_server_seeds_and_serves_refs(tmp_path: Path, mode: str) -> None:
    """First start seeds the demo kitchen; reads, updates and errors speak refs only."""
    async with Client(server_params(tmp_path / "kitchen.db"), mode=mode) as client:
        expected = "2026-07-28" if mode == "auto" else "2025-11-25"
        assert client.protocol_version == expected
        recipes = await call(client, "db_read", table="recipes", limit=3)
        assert recipes["count"] == 3 and recipes["rows"][0]["id"] == "recipe_1"
        updated = await call(client, "db_update", table="recipes", filters=[eq("id", "recipe_1")], data={"servings": 6})
        assert updated["rows"][0]["servings"] == 6
        error = await call_error(client, "db_delete", table="recipes", filters=[eq("id", "recipe_77")])
        assert error["code"] == "unknown_ref"


async def test_refs_survive_a_server_restart(tmp_path: Path) -> None:
    """A ref assigned before a restart names the same row after it; counters continue."""
    db = tmp_path / "kitchen.db"
    async with Client(server_params(db)) as client:
        first = await call(client, "db_read", table="recipes", order_by=[{"field": "name"}], limit=2)
        await call(client, "db_delete", table="recipes", filters=[eq("id", first["rows"][1]["id"])])
    async with Client(server_params(db)) as client:
        again = await call(client, "db_read", table="recipes", filters=[eq("id", first["rows"][0]["id"])])
        assert again["rows"][0]["name"] == first["rows"][0]["name"]
        error = await call_error(client, "db_read", table="recipes", filters=[eq("id", first["rows"][1]["id"])])
        assert error["code"] == "deleted_ref"
        created = await call(client, "db_create", table="recipes", data={"name": "Restart Soup"})
        assert created["rows"][0]["id"] not in {r["id"] for r in first["rows"]}
