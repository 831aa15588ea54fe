"""Row ids: time-ordered UUIDs (version 7, RFC 9562), made in bulk, the same on every backend.

A version 7 UUID starts with the Unix time in milliseconds, so the rows of one save share a prefix
and land side by side in every index on `id` (and on a foreign key to it), at its newest end once
all ids are time-ordered, where random (version 4) ids land all over it: a batch of 320 rows then
writes about half the pages. The other 74
bits are random, so ids stay unguessable and unique across processes and replicas. (PostgreSQL's
column default, gen_random_uuid(), only serves rows written outside the store.)
"""

from __future__ import annotations

import os
import time

_VARIANT = {digit: format((int(digit, 16) & 0x3) | 0x8, "x") for digit in "0123456789abcdef"}
"""The first hex digit of the fourth group: its top two bits are the RFC 9562 variant, 10."""


def new_ids(count: int) -> list[str]:
    """`count` new version 7 UUIDs as canonical text, in ascending order, from one clock and random read."""
    stamp = format(time.time_ns() // 1_000_000 & 0xFFFF_FFFF_FFFF, "012x")
    head = f"{stamp[:8]}-{stamp[8:]}-7"
    text = os.urandom(10 * count).hex()
    return sorted(
        f"{head}{text[o:o + 3]}-{_VARIANT[text[o + 3]]}{text[o + 4:o + 7]}-{text[o + 7:o + 19]}"
        for o in range(0, 20 * count, 20)
    )


def new_id() -> str:
    """One new row id (see `new_ids`)."""
    return new_ids(1)[0]
