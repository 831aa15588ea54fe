"""db_read's cursor: where the next page starts, as an opaque string the client hands back.

A cursor names the last row of a page by its ref (never an id) and carries a fingerprint of the
read it belongs to (table, filters, order), so it cannot continue a different read. The store
continues after that row in the read's order (keyset pagination: `Query.after`), so a page
costs the same however deep it is, and no row is skipped or repeated when rows are added.
"""

from __future__ import annotations

import base64
import binascii
import hashlib

from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import Table

_VERSION = "c1"
MAX_CURSOR = 200


def fingerprint(table: Table, query: Query) -> str:
    """A short digest of what makes two reads the same read (columns and limit may differ between pages)."""
    return hashlib.sha256(repr((table.name, query.where, query.order_by)).encode()).hexdigest()[:12]


def encode_cursor(table: Table, query: Query, last_ref: str) -> str:
    """The cursor of the page that continues after `last_ref`."""
    text = f"{_VERSION}|{fingerprint(table, query)}|{last_ref}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: object, table: Table, query: Query) -> str:
    """The ref a page continues after.

    Raises:
        InputError: not a cursor db_read gave, or one of another read (other table, filters or order).
    """
    try:
        text = base64.urlsafe_b64decode(str(cursor) + "=" * (-len(str(cursor)) % 4)).decode()
        version, digest, ref = text.split("|")
    except (ValueError, UnicodeDecodeError, binascii.Error):
        raise InputError("'cursor' is not a cursor db_read returned; pass next_cursor as it came.", field="cursor") from None
    if version != _VERSION or not isinstance(cursor, str) or len(cursor) > MAX_CURSOR:
        raise InputError("'cursor' is not a cursor db_read returned; pass next_cursor as it came.", field="cursor")
    if digest != fingerprint(table, query):
        raise InputError(
            "'cursor' belongs to another read: keep the same table, filters and order_by while paging "
            "(columns and limit may change), or read again without 'cursor'.",
            field="cursor", table=table.name,
        )
    return ref
