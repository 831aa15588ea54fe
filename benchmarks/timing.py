"""Timing helpers: interleaved repetitions and medians, so both sides see the same machine."""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable


def median_seconds(fn: Callable[[], object], *, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


async def paired_medians(
    ours: Callable[[], Awaitable[object]], baseline: Callable[[], Awaitable[object]], *, repeat: int, warmup: int = 5
) -> tuple[float, float]:
    """Median seconds of `ours` and `baseline`, run alternately so drift hits both alike."""
    for _ in range(warmup):
        await ours()
        await baseline()
    ours_samples, base_samples = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        await ours()
        ours_samples.append(time.perf_counter() - start)
        start = time.perf_counter()
        await baseline()
        base_samples.append(time.perf_counter() - start)
    return statistics.median(ours_samples), statistics.median(base_samples)


def report(ratio: float, target: float, **extra: object) -> dict[str, object]:
    return {"ratio": round(ratio, 3), "target": target, "ok": ratio <= target, **extra}
