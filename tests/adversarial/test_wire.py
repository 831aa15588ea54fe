"""Non-finite numbers as a client can really send them: raw JSON over stdio to the real server.

The SDK client turns Infinity and NaN into null, so the corpus sends them below the wire; here
the bytes `Infinity`, `-Infinity`, `NaN` and `1e400` (which JSON parsers read as Infinity) go
over the real transport, into every kind of place a number can be, and each is refused naming
its field, with nothing stored.
"""

from __future__ import annotations

import json

import pytest

from .conftest import Kitchen
from .stdio_raw import StdioServer

pytestmark = pytest.mark.sqlite_only

PLACES = [
    ("db_create", '{"table":"inventory","data":{"name":"salt","unit":"g","quantity":%s}}', "data.quantity"),
    ("db_read", '{"table":"inventory","filters":[{"field":"quantity","op":"gt","value":%s}]}', "filters[0].value"),
    ("recipes_makeable", '{"min_coverage":%s}', "min_coverage"),
    ("draft_create", '{"entity_type":"inv","items":[{"name":"rice","quantity":%s,"unit":"kg"}]}', "items[0].quantity"),
]
"""(tool, arguments with a %s for the number, the field the refusal must name): a row value, a filter
value, a plain argument, a field of a draft."""


def test_non_finite_numbers_on_the_wire_are_refused_naming_the_field(kitchen: Kitchen) -> None:
    server = StdioServer(kitchen.db)
    try:
        before = server.call("db_read", {"table": "inventory", "limit": 500})["structuredContent"]["count"]
        drafts = server.call("draft_read", {})["structuredContent"]["count"]
        for tool, arguments, field in PLACES:
            for number in ("Infinity", "-Infinity", "NaN", "1e400"):
                raw = json.dumps({"name": tool, "arguments": "@"}).replace('"@"', arguments % number)
                result = server.request("tools/call", {}, raw_params=raw)["result"]
                error = result.get("_meta", {}).get("alfred/error", {})
                assert result.get("isError") and error.get("field") == field, f"{tool} with {number}: {result}"
                assert "finite" in error["message"]
        assert server.call("db_read", {"table": "inventory", "limit": 500})["structuredContent"]["count"] == before
        assert server.call("draft_read", {})["structuredContent"]["count"] == drafts
    finally:
        server.close()
