"""Percentiles and the LLM critical path of a turn (what the benchmark reports)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.stats import critical_path, merge_intervals, p50_p95, percentile


@pytest.mark.parametrize(
    "values",
    [[5.0], [3.0, 1.0], [10.0, 20.0, 30.0, 40.0], [7.0, 1.0, 3.0, 9.0, 5.0, 2.0, 8.0], list(range(101))],
)
@pytest.mark.parametrize("q", [0, 5, 50, 90, 95, 100])
def test_percentile_matches_numpy_linear_interpolation(values: list[float], q: float) -> None:
    assert percentile(values, q) == pytest.approx(float(np.percentile(values, q)))


def test_percentile_of_nothing_is_nan_and_q_is_checked() -> None:
    assert math.isnan(percentile([], 50))
    with pytest.raises(ValueError, match="q must be"):
        percentile([1.0], 101)


def test_p50_p95_rounds_and_counts() -> None:
    assert p50_p95([1.0, 2.0, 3.0, 4.0]) == {"p50": 2.5, "p95": 3.9, "n": 4.0}


def test_overlapping_calls_are_one_round_trip() -> None:
    # extraction and rubric overlap (one round-trip), question generation follows (a second).
    path = critical_path([(0.0, 0.30), (0.01, 0.31), (0.40, 0.70)])
    assert path.round_trips == 2
    assert path.calls == 3
    assert path.llm_s == pytest.approx(0.31 + 0.30)


def test_nested_and_touching_intervals_merge() -> None:
    assert merge_intervals([(0.0, 1.0), (0.2, 0.5), (1.0, 1.5), (2.0, 2.1)]) == [(0.0, 1.5), (2.0, 2.1)]
    assert critical_path([]).round_trips == 0
