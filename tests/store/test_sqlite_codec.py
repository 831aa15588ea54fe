"""The SQLite codec's encoder of new rows: every column filled as the schema says, and the rows it returns
are what a read of the stored values gives back."""

from __future__ import annotations

import json
import uuid
from operator import itemgetter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alfred_mcp.errors import InvalidPayloadError, UnknownColumnError
from alfred_mcp.kitchen.schema import TABLES, Column, Table
from alfred_mcp.store.payloads import settable_columns
from alfred_mcp.store.sqlite.codec import encode_inserts, rows_out

NOW = "2026-01-12T18:30:00.000000Z"
USER = "user-1"


def _value(column: Column) -> st.SearchStrategy[Any]:
    by_type: dict[str, st.SearchStrategy[Any]] = {
        "bool": st.one_of(st.booleans(), st.sampled_from([0, 1])),
        "int": st.integers(0, 1_000),
        "numeric": st.one_of(st.integers(0, 50), st.floats(0, 50, allow_nan=False)),
        "text[]": st.one_of(st.lists(st.text(max_size=4), max_size=3), st.tuples(st.text(max_size=4))),
    }
    return st.one_of(st.none(), by_type.get(column.type, st.text(max_size=6)))


@st.composite
def _batches(draw: st.DrawFn) -> tuple[Table, list[dict[str, Any]]]:
    table = draw(st.sampled_from([t for t in TABLES.values() if t.user_owned]))
    settable = [c for c in table.columns if c.name in settable_columns(table)]
    rows = []
    for _ in range(draw(st.integers(1, 4))):
        chosen = draw(st.lists(st.sampled_from(settable), unique_by=lambda c: c.name, max_size=len(settable)))
        rows.append({column.name: draw(_value(column)) for column in chosen})
    return table, rows


def _stored(column: Column, row: dict[str, Any]) -> Any:
    """What the schema says a new row stores in `column`: the store's own value, the given one, or the default."""
    if column.name == "user_id":
        return USER
    if column.name in ("created_at", "updated_at") or (column.name not in row and column.type == "timestamp" and column.default == "now"):
        return NOW
    value = row.get(column.name, column.default)
    if value is None:
        return None
    if column.type == "bool" and isinstance(value, bool):
        return int(value)
    return json.dumps(list(value), ensure_ascii=False, separators=(",", ":")) if column.type == "text[]" else value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_batches())
def test_new_rows_store_what_the_schema_says_and_return_what_a_read_gives_back(case: tuple[Table, list[dict[str, Any]]]) -> None:
    table, rows = case
    values, written = encode_inserts(table, rows, user_id=USER, now=NOW)
    at = [c.name for c in table.columns].index("id")
    assert [[v for i, v in enumerate(stored) if i != at] for stored in values] == [
        [_stored(column, row) for column in table.columns if column.name != "id"] for row in rows
    ]
    ids = [stored[at] for stored in values]
    assert len(set(ids)) == len(rows) and all(uuid.UUID(row_id).version == 7 for row_id in ids)
    names = table.visible_columns
    pick = itemgetter(*(i for i, column in enumerate(table.columns) if column.name in names))
    assert written == rows_out(table, names, [pick(stored) for stored in values])
    assert all(list(row) == list(names) for row in written)


@pytest.mark.parametrize(
    ("row", "error", "named"),
    [
        pytest.param({"name": "x", "colour": "red"}, UnknownColumnError, "colour", id="unknown-column"),
        pytest.param({"name": "x", "user_id": "someone-else"}, UnknownColumnError, "user_id", id="owner-is-no-column-of-theirs"),
        pytest.param({"name": "x", "id": "chosen"}, InvalidPayloadError, "id", id="id-set-by-caller"),
        pytest.param({"name": "x", "tags": "not-a-list"}, InvalidPayloadError, "tags", id="text-array-not-a-list"),
    ],
)
def test_a_batch_with_one_bad_row_is_refused_as_that_row_alone_is(row: dict[str, Any], error: type[Exception], named: str) -> None:
    table = TABLES["recipes"]
    with pytest.raises(error) as alone:
        encode_inserts(table, [row], user_id=USER, now=NOW)
    with pytest.raises(error) as batched:
        encode_inserts(table, [{"name": "fine"}, row], user_id=USER, now=NOW)
    assert str(batched.value) == str(alone.value) and named in str(alone.value)
