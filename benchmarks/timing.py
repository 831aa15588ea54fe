"""Timing helpers: interleaved samples, medians and the spread, so both sides see the same machine.

Every ratio is measured side by side: one sample of each side, alternately, many times. The
ratio reported is median(ours) / median(baseline); `spread` gives the 10th and 90th percentiles
of the per-pair ratios, so a noisy run shows as a wide spread instead of a wrong number.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

MIN_SAMPLES = 30


@dataclass(frozen=True)
class Paired:
    """Interleaved samples (seconds) of two sides."""

    ours: list[float]
    base: list[float]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ours) / statistics.median(self.base)

    def spread(self) -> list[float]:
        """[p10, p90] of the per-pair ratios."""
        return percentiles([o / b for o, b in zip(self.ours, self.base)])

    def fields(self, ours: str = "ours_ms", base: str = "base_ms") -> dict[str, object]:
        return {
            ours: ms(statistics.median(self.ours)), base: ms(statistics.median(self.base)),
            "spread": [round(value, 3) for value in self.spread()], "samples": len(self.ours),
        }


def percentiles(values: Sequence[float], low: int = 10, high: int = 90) -> list[float]:
    """The `low` and `high` percentiles of `values`."""
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return [cuts[low - 1], cuts[high - 1]]


def ms(seconds: float) -> float:
    return round(seconds * 1e3, 3)


def median_seconds(fn: Callable[[], object], *, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


async def timed(fn: Callable[[], Awaitable[object]]) -> float:
    start = time.perf_counter()
    await fn()
    return time.perf_counter() - start


async def paired(
    ours: Callable[[], Awaitable[object]], baseline: Callable[[], Awaitable[object]], *, repeat: int = MIN_SAMPLES,
    warmup: int = 5,
) -> Paired:
    """`repeat` samples of each side, run alternately (which goes first alternates too) after a warm-up."""
    for _ in range(warmup):
        await ours()
        await baseline()
    result = Paired([], [])
    for i in range(repeat):
        if i % 2:
            result.base.append(await timed(baseline))
            result.ours.append(await timed(ours))
        else:
            result.ours.append(await timed(ours))
            result.base.append(await timed(baseline))
    return result


async def interleaved(
    ours: Callable[[], Awaitable[float]], baseline: Callable[[], Awaitable[float]], *, repeat: int = MIN_SAMPLES,
    warmup: int = 3,
) -> Paired:
    """Like `paired`, for sides that time themselves (each call returns the seconds it measured)."""
    for _ in range(warmup):
        await ours()
        await baseline()
    result = Paired([], [])
    for i in range(repeat):
        if i % 2:
            result.base.append(await baseline())
            result.ours.append(await ours())
        else:
            result.ours.append(await ours())
            result.base.append(await baseline())
    return result


def paired_sync(ours: Callable[[], object], baseline: Callable[[], object], *, repeat: int = MIN_SAMPLES, warmup: int = 3) -> Paired:
    """`paired` for synchronous sides: `repeat` timed runs of each, alternately (which goes first alternates too)."""
    for _ in range(warmup):
        ours()
        baseline()
    result = Paired([], [])
    sides = ((ours, result.ours), (baseline, result.base))
    for i in range(repeat):
        for fn, samples in (sides if i % 2 == 0 else sides[::-1]):
            start = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - start)
    return result


async def paired_medians(
    ours: Callable[[], Awaitable[object]], baseline: Callable[[], Awaitable[object]], *, repeat: int, warmup: int = 5
) -> tuple[float, float]:
    """Median seconds of `ours` and `baseline`, run alternately so drift hits both alike."""
    result = await paired(ours, baseline, repeat=repeat, warmup=warmup)
    return statistics.median(result.ours), statistics.median(result.base)


def report(ratio: float, target: float, **extra: object) -> dict[str, object]:
    return {"ratio": round(ratio, 3), "target": target, "ok": ratio <= target, **extra}
