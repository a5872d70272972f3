"""Small statistics of the benchmark: percentiles, the LLM critical path of a turn, summaries."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation between closest ranks (NumPy's default).

    NaN for an empty sequence."""
    if not 0 <= q <= 100:
        raise ValueError(f"q must be in [0, 100], got {q}")
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = math.floor(pos)
    high = math.ceil(pos)
    if low == high:
        return float(ordered[low])
    return float(ordered[low] + (ordered[high] - ordered[low]) * (pos - low))


def p50_p95(values: Sequence[float]) -> dict[str, float]:
    """{"p50", "p95", "n"} rounded to 0.1 (n as a float for a uniform JSON shape)."""
    return {
        "p50": round(percentile(values, 50), 1),
        "p95": round(percentile(values, 95), 1),
        "n": float(len(values)),
    }


@dataclass(frozen=True)
class CriticalPath:
    """The LLM calls of one turn merged into sequential round-trips."""

    round_trips: int  # groups of overlapping calls: calls that overlap count as one
    llm_s: float  # wall time covered by at least one call
    calls: int


def merge_intervals(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """Overlapping (or touching) intervals merged, in start order."""
    merged: list[tuple[float, float]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def critical_path(intervals: Sequence[tuple[float, float]]) -> CriticalPath:
    """Round-trips and covered time of a turn's LLM calls (each a (start, end) on one clock)."""
    merged = merge_intervals(intervals)
    return CriticalPath(
        round_trips=len(merged), llm_s=sum(end - start for start, end in merged), calls=len(intervals)
    )


def ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator rounded to 0.01 (NaN when the denominator is 0)."""
    return round(numerator / denominator, 2) if denominator else math.nan
