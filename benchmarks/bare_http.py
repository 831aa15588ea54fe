"""A bare `mcp` SDK streamable-HTTP server with one tool returning the rows db_read returns, from the same
database (SQLite file or PostgreSQL URL): the baseline of `http_overhead`.

`python -m benchmarks.bare_http DB USER_ID PORT` serves http://127.0.0.1:PORT/mcp until terminated. The tool,
`read_rows(table, limit, name=None)`, reads the user's rows of `table` by name order (one name when given),
decodes them as the store does (text[] as lists, booleans) and advertises db_read's published outputSchema,
so the client validates its results as it validates db_read's.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Callable, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from mcp.server import MCPServer
from mcp.types import Tool

from alfred_mcp.contracts import load_contracts
from alfred_mcp.kitchen.schema import TABLES

Fetch = Callable[[str, Sequence[Any]], list[tuple[Any, ...]]]


class SameSchemaServer(MCPServer):
    """A bare server whose tools advertise `output_schema` (db_read's published one) instead of the SDK's derived one."""

    def __init__(self, name: str, output_schema: dict[str, Any]) -> None:
        super().__init__(name)
        self.published = output_schema

    async def list_tools(self) -> list[Tool]:
        return [tool.model_copy(update={"output_schema": self.published}) for tool in await super().list_tools()]


def db_read_schema() -> dict[str, Any]:
    return load_contracts()["db_read"].output_schema


def bare_server(fetch: Fetch, user_id: str, mark: str) -> MCPServer:
    """One tool returning the user's rows of a table as db_read returns them; `mark` is the driver's placeholder."""
    bare = SameSchemaServer("bare", db_read_schema())

    @bare.tool()
    async def read_rows(table: str, limit: int, name: str | None = None) -> dict[str, Any]:
        known = TABLES[table]
        columns = known.visible_columns
        arrays = [c.name for c in known.columns if c.type == "text[]"]
        flags = [c.name for c in known.columns if c.type == "bool"]
        where = f'"user_id" = {mark}' + (f' AND "name" = {mark}' if name is not None else "")
        sql = f'SELECT {", ".join(f"{chr(34)}{c}{chr(34)}" for c in columns)} FROM "{table}" WHERE {where} ORDER BY "name" LIMIT {mark}'
        found = fetch(sql, [user_id, *([name] if name is not None else []), limit + 1])
        rows = []
        for values in found[:limit]:
            row = dict(zip(columns, values))
            row.update({c: json.loads(row[c]) if isinstance(row[c], str) else row[c] for c in arrays})
            row.update({c: bool(row[c]) for c in flags})
            rows.append({key: _plain(value) for key, value in row.items()})
        return {"table": table, "rows": rows, "count": len(rows), "truncated": len(found) > limit}

    return bare


def _plain(value: Any) -> Any:
    """A driver's value as JSON carries it (PostgreSQL's uuid, numeric and timestamps; SQLite's are plain already)."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    return value if isinstance(value, (str, int, float, bool, list, type(None))) else str(value)


def _fetcher(db: str) -> tuple[Fetch, str]:
    if "://" not in db:
        connection = sqlite3.connect(db, check_same_thread=False)
        return (lambda sql, params: connection.execute(sql, params).fetchall()), "?"
    import psycopg

    pg = psycopg.connect(db, autocommit=True)
    return (lambda sql, params: pg.execute(sql, params).fetchall()), "%s"


def main(argv: Sequence[str]) -> None:
    import uvicorn

    db, user_id, port = argv[0], argv[1], int(argv[2])
    fetch, mark = _fetcher(db)
    app = bare_server(fetch, user_id, mark).streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main(sys.argv[1:])
