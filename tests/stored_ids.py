"""The database ids a client must never see, read from the database itself, and a check of what came back.

Since UUID-shaped text a person gives is stored and returned as given, a test that a server leaks no
id asks the database which ids exist (every kitchen row's id and foreign keys, the user's id, the
session's id) and looks for exactly those, in any form (dashed, compact, any case).
"""

from __future__ import annotations

import json
import re
from typing import Any

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import TABLES


async def stored_ids(app: AlfredApp, user_id: str | None = None) -> set[str]:
    """Every id of the user's kitchen rows (ids and foreign keys), the user's own id and its current session's."""
    user = user_id or app.user_id
    ids = {user}
    for table in TABLES.values():
        columns = ("id", *(column.name for column in table.fk_columns))
        for row in await app.store.select(table, Query(), user_id=user):
            ids.update(str(row[name]) for name in columns if row.get(name))
    session = await app.store.current_session(user)
    if session is not None:
        ids.add(session.session_id)
    return {value.lower() for value in ids if len(value.replace("-", "")) == 32}


HEX_RUN = re.compile(r"[0-9a-f]{8}")
"""Eight hex digits in a row: a UUID shows them dashed or compact, so a text without any shows no UUID (and is not
searched for each)."""


def ids_shown(payload: Any, ids: set[str]) -> list[str]:
    """The ids of `ids` that appear anywhere in `payload` (dashed or compact, any case)."""
    text = (payload if isinstance(payload, str) else json.dumps(payload, default=str)).lower()
    may_show_uuids = HEX_RUN.search(text) is not None
    return sorted(i for i in ids if (may_show_uuids or HEX_RUN.search(i) is None) and (i in text or i.replace("-", "") in text))
