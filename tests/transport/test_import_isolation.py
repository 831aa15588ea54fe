"""One user's heavy imports never stall another user: over real streamable HTTP, while ten users import
pages just under the 5 MB limit that cost the most to read (a 2.4-million-entry flat `@graph`, deeply
nested markup, JSON-LD nested 10,000 deep), another user's reads stay under 300 ms at the 99th percentile,
or, on a machine slowed by other work, under PACE_RATIO times the same reader's median read alone on the same
server just before (measured side by side, so the bar moves with the machine's pace, not with the imports).
Page parsing runs in worker threads of its own limiter, within bounds (`operations/offload.py`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from import_load import IMPORTERS, reader_under_load  # noqa: E402

pytestmark = pytest.mark.anyio
P99_LIMIT = 0.300
"""The bar on a quiet machine, where a read alone takes a few milliseconds."""
PACE_RATIO = 40
"""Measured on a shared 2-core machine: with parsing off the loop, the p99 under ten importers was 21 reads alone at
load 5 (120 ms against 5.7 ms) and 24-26 at load 12 (400-435 ms against 17 ms, over the absolute 300 ms for the
machine's load alone); with parsing on the event loop (the stall this test is for) it was 52 at load 6 (430 ms against
8.3 ms)."""


async def test_a_reader_is_not_stalled_while_ten_users_import_heavy_pages() -> None:
    load = await reader_under_load(reads=100, importers=IMPORTERS)
    assert load.import_errors == [], load.import_errors
    assert min(load.in_flight) >= IMPORTERS - 1, f"imports in flight at each read: {load.in_flight}"
    p99, alone = load.percentile(0.99), load.percentile(0.5, load.alone)
    limit = max(P99_LIMIT, PACE_RATIO * alone)
    assert p99 < limit, (f"p99 {p99 * 1000:.0f} ms (p50 {load.percentile(0.5) * 1000:.0f} ms) over {len(load.reads)} reads, "
                         f"limit {limit * 1000:.0f} ms (a read alone: {alone * 1000:.1f} ms)")
