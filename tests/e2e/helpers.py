"""Small helpers for driving tools through the real client."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.raw_ids import raw_ids_in
from alfred_mcp.kitchen.schema import Table, row_label
from alfred_mcp.server.dispatch import ERROR_META
from alfred_mcp.state.entity_resolver import name_words

_GIVEN = "_alfred_test_given_ids"
"""The attribute holding the UUID-shaped text a client sent in its arguments: the only UUID-shaped text it may see come back."""


def ids_not_given(client: Client, arguments: dict[str, Any], *payloads: Any) -> list[str]:
    """UUID-shaped text in `payloads` that this client never sent (a database id, since text people give is
    returned as given); `arguments` is what it sends now."""
    given: set[str] = getattr(client, _GIVEN, None) or set()
    object.__setattr__(client, _GIVEN, given)
    given.update(found.lower() for found in raw_ids_in(json.dumps(arguments)))
    text = json.dumps(payloads, default=str)
    return [found for found in raw_ids_in(text) if found.lower() not in given]


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; return its structured content (checked for UUIDs)."""
    result = await client.call_tool(tool, arguments)
    text = "".join(block.text for block in result.content if block.type == "text")
    assert not result.is_error, text
    leaked = ids_not_given(client, arguments, text, result.structured_content)
    assert leaked == [], (leaked, text[:500])
    return result.structured_content


async def call_error(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must fail; return the error's fields (checked for UUIDs).

    An error result has no structuredContent (it would break the tool's outputSchema): its text is
    the message and `_meta["alfred/error"]` holds the fields.
    """
    result = await client.call_tool(tool, arguments)
    text = "".join(block.text for block in result.content if block.type == "text")
    assert result.is_error, f"{tool} unexpectedly succeeded: {text}"
    assert result.structured_content is None, "an error result must not carry structuredContent"
    fields: dict[str, Any] = (result.meta or {})[ERROR_META]
    assert text == f"Error: {fields['message']}"
    assert ids_not_given(client, arguments, text, fields) == []
    return fields


def eq(field: str, value: Any) -> dict[str, Any]:
    return {"field": field, "op": "eq", "value": value}


def among(field: str, values: list[Any]) -> dict[str, Any]:
    return {"field": field, "op": "in", "value": values}


def strings_in(value: Any) -> list[str]:
    """Every string inside a decoded JSON value, as a client's model reads it (escapes undone)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in strings_in(item)]
    if isinstance(value, list):
        return [text for item in value for text in strings_in(item)]
    return []


async def row_labels(app: AlfredApp, table: Table) -> list[str]:
    """The labels of the user's rows of `table`, as the session shows them."""
    rows = await app.store.select(table, Query(limit=500), user_id=app.user_id)
    return [row_label(table, row) for row in rows]


def word_only_one_holds(labels: list[str]) -> tuple[str, str] | None:
    """A word of one label no other label holds (and that is not the whole label): (word, label)."""
    counts = Counter(word for label in set(labels) for word in set(name_words(label)))
    for label in sorted(labels):
        if labels.count(label) > 1:
            continue
        word = next((w for w in sorted(name_words(label)) if counts[w] == 1 and w != label.casefold()), None)
        if word is not None:
            return word, label
    return None
