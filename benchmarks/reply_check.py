"""The reply check against a labelled corpus of replies generated from scenario ledgers (tests/reply_corpus.py):
how many untruthful replies it lets through, how many truthful ones it refuses, and how long one check takes."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from reply_corpus import corpus, rates  # noqa: E402

from alfred_mcp.state.reply_check import check_reply  # noqa: E402


def reply_check_corpus() -> dict[str, object]:
    cases = corpus()
    started = time.perf_counter()
    measured = rates(check_reply, cases)
    per_check_us = (time.perf_counter() - started) / len(cases) * 1e6
    return {**measured, "per_check_us": round(per_check_us, 1)}
