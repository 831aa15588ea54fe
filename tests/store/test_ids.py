"""Row ids: version 7 UUIDs, time-ordered, unique, made in bulk."""

from __future__ import annotations

import time
import uuid

from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.store.ids import new_id, new_ids


@given(st.integers(min_value=0, max_value=600))
def test_a_batch_of_ids_is_distinct_canonical_version_7_uuids_in_ascending_order(count: int) -> None:
    before = time.time_ns() // 1_000_000
    ids = new_ids(count)
    after = time.time_ns() // 1_000_000
    assert len(ids) == count and len(set(ids)) == count and ids == sorted(ids)
    for text in ids:
        parsed = uuid.UUID(text)
        assert str(parsed) == text and parsed.version == 7 and parsed.variant == uuid.RFC_4122
        assert before <= parsed.int >> 80 <= after  # the first 48 bits: Unix time in milliseconds


def test_ids_made_later_sort_after_and_the_random_bits_vary() -> None:
    first = new_ids(50)
    time.sleep(0.002)
    second = new_ids(50)
    assert max(first) < min(second)
    random_bits = {uuid.UUID(text).int & ((1 << 74) - 1) for text in first + second + [new_id()]}
    assert len(random_bits) == 101
