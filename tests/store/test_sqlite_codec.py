"""The SQLite codec: a batch of new rows encoded at once is encoded exactly as row by row."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alfred_mcp.errors import InvalidPayloadError, UnknownColumnError
from alfred_mcp.kitchen.schema import TABLES, Column, Table
from alfred_mcp.store.payloads import settable_columns
from alfred_mcp.store.sqlite.codec import encode_inserts, insert_values, rows_out

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


def _row_by_row(table: Table, rows: list[dict[str, Any]]) -> tuple[list[list[Any]], list[dict[str, Any]]]:
    values = [insert_values(table, row, user_id=USER, now=NOW) for row in rows]
    names = table.visible_columns
    pick = itemgetter(*(i for i, column in enumerate(table.columns) if column.name in names))
    return values, rows_out(table, names, [pick(row) for row in values])


def _without_ids(table: Table, values: list[Any], rows: list[dict[str, Any]]) -> tuple[list[list[Any]], list[dict[str, Any]]]:
    at = [c.name for c in table.columns].index("id")
    return [[*v[:at], "ID", *v[at + 1:]] for v in values], [{**row, "id": "ID"} for row in rows]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_batches())
def test_a_batch_is_encoded_as_its_rows_one_by_one(case: tuple[Table, list[dict[str, Any]]]) -> None:
    """Same stored values (ids aside), same returned rows, key order included, for every table and column type."""
    table, rows = case
    expected = _without_ids(table, *_row_by_row(table, rows))
    values, written = encode_inserts(table, rows, user_id=USER, now=NOW)
    got = _without_ids(table, values, written)
    assert got == expected
    assert [list(row) for row in got[1]] == [list(row) for row in expected[1]]
    assert len({row["id"] for row in written}) == len(rows)


@pytest.mark.parametrize(
    ("row", "error"),
    [
        pytest.param({"name": "x", "colour": "red"}, UnknownColumnError, id="unknown-column"),
        pytest.param({"name": "x", "user_id": "someone-else"}, UnknownColumnError, id="owner-is-no-column-of-theirs"),
        pytest.param({"name": "x", "id": "chosen"}, InvalidPayloadError, id="id-set-by-caller"),
        pytest.param({"name": "x", "tags": "not-a-list"}, InvalidPayloadError, id="text-array-not-a-list"),
    ],
)
def test_a_batch_with_one_bad_row_is_refused_as_that_row_is(row: dict[str, Any], error: type[Exception]) -> None:
    table = TABLES["recipes"]
    with pytest.raises(error) as one_by_one:
        _row_by_row(table, [{"name": "fine"}, row])
    with pytest.raises(error) as batched:
        encode_inserts(table, [{"name": "fine"}, row], user_id=USER, now=NOW)
    assert str(batched.value) == str(one_by_one.value)


def test_ids_made_in_bulk_are_distinct_version_4_uuids_in_canonical_text() -> None:
    import uuid

    from alfred_mcp.store.sqlite.codec import new_ids

    ids = new_ids(2_000)
    assert len(set(ids)) == len(ids)
    for text in ids:
        parsed = uuid.UUID(text)
        assert str(parsed) == text and parsed.version == 4 and parsed.variant == uuid.RFC_4122
