"""The calibration workload is fixed and its timing is the median of the timed repeats."""

from __future__ import annotations

import pytest

from bench.calibrate import measure, workload


def test_the_workload_is_deterministic_and_does_the_work() -> None:
    first = workload()
    assert first == workload()
    assert first > 0


def test_measure_reports_the_median_and_fastest_of_the_timed_runs_only() -> None:
    calls: list[int] = []
    # Clock readings in seconds: (start, end) per timed run; the untimed first run reads no clock.
    ticks = iter([0.0, 0.010, 1.0, 1.030, 2.0, 2.020])
    result = measure(repeats=3, work=lambda: calls.append(1), clock=lambda: next(ticks))
    assert len(calls) == 4  # one untimed run, then three timed
    assert result == {"median_ms": 20.0, "min_ms": 10.0, "repeats": 3}


def test_measure_needs_a_repeat() -> None:
    with pytest.raises(ValueError, match="repeats"):
        measure(repeats=0, work=lambda: None)
