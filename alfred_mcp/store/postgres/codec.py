"""Values into and out of PostgreSQL, so PostgresStore returns exactly what SQLiteStore returns.

Out: loaders registered on each connection turn uuid and date into text ('YYYY-MM-DD'),
timestamptz into ISO-8601 UTC with microseconds and a Z, numeric into float, so rows need no
Python pass. In: every value is checked against its column's type before it is sent, so a bad
value is told as a sentence naming the column (the server's own message would name neither),
and filters on uuid/date/timestamp columns are made safe for the server's stricter types.
"""

from __future__ import annotations

import math
import re
import uuid
from datetime import date, datetime, timezone
from typing import Any

from psycopg.adapt import AdaptersMap, Buffer, Loader
from psycopg.types.numeric import FloatLoader
from psycopg.types.string import TextLoader

from alfred_mcp.errors import ConstraintViolationError, InvalidFilterError, InvalidPayloadError
from alfred_mcp.kitchen.query import Filter, Where, check_where
from alfred_mcp.kitchen.schema import TABLES, Column, Table
from alfred_mcp.store.base import Row
from alfred_mcp.store.ddl import check_messages
from alfred_mcp.store.payloads import check_payload_keys, check_restored_keys

NIL_UUID = "00000000-0000-0000-0000-000000000000"
"""Never a row's id (ids are version 7 UUIDs, see store/ids.py): what an id that is not a UUID becomes, so it matches nothing."""
INT_RANGE = (-(2**31), 2**31 - 1)
_DATE = re.compile(r"\d{4}-\d\d-\d\d")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d([T ]\d\d:\d\d(:\d\d(\.\d{1,6})?)?(Z|[+-]\d\d(:?\d\d)?)?)?")
_PG_TIMESTAMP = re.compile(r"(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00")
_ID_OPS = ("eq", "neq", "in", "not_in")


# -- out ------------------------------------------------------------------------------------


class UtcTimestampLoader(Loader):
    """timestamptz text (session TimeZone UTC) -> '2026-01-12T09:30:00.000000Z', as SQLite stores it."""

    def load(self, data: Buffer) -> str:
        text = bytes(data).decode()
        match = _PG_TIMESTAMP.fullmatch(text)
        if match is None:
            return text
        day, clock, fraction = match.groups()
        return f"{day}T{clock}.{(fraction or '').ljust(6, '0')}Z"


def register_loaders(adapters: AdaptersMap) -> None:
    """Make a connection return SQLiteStore's types (needs TimeZone UTC and DateStyle ISO)."""
    adapters.register_loader("uuid", TextLoader)
    adapters.register_loader("date", TextLoader)
    adapters.register_loader("numeric", FloatLoader)
    adapters.register_loader("timestamptz", UtcTimestampLoader)


# -- in: payloads ---------------------------------------------------------------------------


def new_row_values(table: Table, row: Row, *, row_id: str, user_id: str, now: datetime) -> list[Any]:
    """A new row's values for every column of `table`, in order: `row_id`, the owner, the stamps and the
    schema defaults filled as SQLiteStore fills them.

    Raises:
        UnknownColumnError, InvalidPayloadError: a key that is no settable column, or a value of the wrong type.
    """
    check_payload_keys(table, row)
    return [row_id if column.name == "id" else encode(table, column, _initial_value(column, row, user_id, now)) for column in table.columns]


def restored_row_values(table: Table, row: Row, *, user_id: str) -> list[Any]:
    """The values, for every column of `table`, of a row put back as it was (its own id and stamps: an undo)."""
    check_restored_keys(table, row)
    return [encode(table, column, user_id if column.name == "user_id" else row.get(column.name)) for column in table.columns]


def update_assignments(table: Table, values: Row) -> list[tuple[str, Any]]:
    """(column, encoded value) pairs for an UPDATE; refuses an empty or store-owned payload."""
    check_payload_keys(table, values)
    if not values:
        raise InvalidPayloadError("Nothing to update: give at least one column value.", field="data", table=table.name)
    return [(name, encode(table, table.column(name), value)) for name, value in values.items()]


def _initial_value(column: Column, row: Row, user_id: str, now: datetime) -> Any:
    if column.name == "user_id":
        return user_id
    if column.name in ("created_at", "updated_at"):
        return now
    if column.name in row:
        return row[column.name]
    if column.type == "timestamp" and column.default == "now":
        return now
    return list(column.default) if isinstance(column.default, tuple) else column.default


def encode(table: Table, column: Column, value: Any) -> Any:
    """`value` as the server's type for `column`, or an error naming the column.

    Raises:
        InvalidPayloadError: a text[] column got something that is not a list.
        ConstraintViolationError: the value cannot be the column's type (same message as the SQLite CHECK).
    """
    if value is None or column.name == "user_id":
        return value
    encoder = _ENCODERS.get(column.type)
    return encoder(table, column, value) if encoder else value


def _encode_text(table: Table, column: Column, value: Any) -> Any:
    if isinstance(value, str) and "\x00" in value:
        raise _violation(table, column, f"{column.name} must not contain NUL characters.")
    return value


def _encode_array(table: Table, column: Column, value: Any) -> list[str]:
    if not isinstance(value, (list, tuple)):
        raise InvalidPayloadError(f"'{column.name}' takes a list of strings.", field=column.name)
    if not all(isinstance(item, str) and "\x00" not in item for item in value):
        raise _violation(table, column, f"{column.name} must be a list of strings.")
    return list(value)


def _encode_bool(table: Table, column: Column, value: Any) -> bool:
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise _rule(table, column, "bool")


def _encode_int(table: Table, column: Column, value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int):
        raise _violation(table, column, f"{column.name} must be a whole number.")
    if not INT_RANGE[0] <= value <= INT_RANGE[1]:
        if column.minimum is not None or column.maximum is not None:
            raise _rule(table, column, "range")
        raise _violation(table, column, f"{column.name} is out of range.")
    return int(value)


def _encode_numeric(table: Table, column: Column, value: Any) -> float | int:
    if not isinstance(value, (int, float)) or (isinstance(value, float) and not math.isfinite(value)):
        raise _violation(table, column, f"{column.name} must be a finite number.")
    return float(value) if isinstance(value, bool) else value


def _encode_date(table: Table, column: Column, value: Any) -> date:
    parsed = parse_date(value)
    if parsed is None:
        raise _violation(table, column, f"{column.name} must be a date (YYYY-MM-DD).")
    return parsed


def _encode_timestamp(table: Table, column: Column, value: Any) -> datetime:
    parsed = parse_timestamp(value)
    if parsed is None:
        raise _violation(table, column, f"{column.name} must be an ISO-8601 timestamp.")
    return parsed


def _encode_uuid(table: Table, column: Column, value: Any) -> str:
    canonical = canonical_uuid(value)
    if canonical is None:
        target = TABLES[column.fk.table].noun if column.fk else "row"
        raise _violation(table, column, f"{column.name} does not point at an existing {target}.")
    return canonical


_ENCODERS = {
    "text": _encode_text, "text[]": _encode_array, "bool": _encode_bool, "int": _encode_int,
    "numeric": _encode_numeric, "date": _encode_date, "timestamp": _encode_timestamp, "uuid": _encode_uuid,
}


def _rule(table: Table, column: Column, rule: str) -> ConstraintViolationError:
    """The error SQLiteStore gives when CHECK `<column>_<rule>` fails."""
    _column, message = check_messages(table.name)[f"{column.name}_{rule}"]
    return _violation(table, column, f"{message}.")


def _violation(table: Table, column: Column, message: str) -> ConstraintViolationError:
    return ConstraintViolationError(message, field=column.name, table=table.name)


def uuid_key(value: Any) -> str:
    """`value` as the server's uuid text; one that is not a UUID becomes the nil UUID, which no row has."""
    return canonical_uuid(value) or NIL_UUID


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def canonical_uuid(value: Any) -> str | None:
    """The lowercase hyphenated form of a UUID string; None when `value` is not one."""
    if not isinstance(value, str):
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


def parse_date(value: Any) -> date | None:
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None


def parse_timestamp(value: Any) -> datetime | None:
    """An aware datetime (naive input is UTC) from an ISO-8601 string or datetime."""
    if isinstance(value, str):
        if not _TIMESTAMP.fullmatch(value):
            return None
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)


# -- in: filters ----------------------------------------------------------------------------


def postgres_where(table: Table, where: Where) -> Where:
    """`where` checked against the schema, with values PostgreSQL's strict types accept.

    A non-UUID compared with a uuid column becomes the nil UUID, which no row has: it
    matches nothing, as on SQLite. A malformed date or timestamp is refused.

    Raises:
        UnknownColumnError, InvalidFilterError: as `check_where`, or a malformed date/timestamp.
    """
    check_where(table, where)
    return Where(
        all_of=tuple(_postgres_filter(table, clause) for clause in where.all_of),
        any_of=tuple(_postgres_filter(table, clause) for clause in where.any_of),
    )


def _postgres_filter(table: Table, clause: Filter) -> Filter:
    column = table.column(clause.field)
    if clause.op in ("is_null", "contains"):
        return clause
    if isinstance(clause.value, list):
        return Filter(clause.field, clause.op, [_filter_value(column, clause.op, item) for item in clause.value])
    return Filter(clause.field, clause.op, _filter_value(column, clause.op, clause.value))


def _filter_value(column: Column, op: str, value: Any) -> Any:
    if column.type == "uuid" and op in _ID_OPS:
        return canonical_uuid(value) or NIL_UUID
    if column.type == "date" and parse_date(value) is None:
        raise InvalidFilterError(f"'{op}' on '{column.name}' needs a date (YYYY-MM-DD), got {value!r}.", field=column.name, value=value)
    if column.type == "timestamp" and parse_timestamp(value) is None:
        raise InvalidFilterError(
            f"'{op}' on '{column.name}' needs an ISO-8601 timestamp, got {value!r}.", field=column.name, value=value
        )
    if isinstance(value, str) and "\x00" in value:
        raise InvalidFilterError(f"'{op}' on '{column.name}' cannot match NUL characters.", field=column.name)
    return value
