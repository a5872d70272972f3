"""The calibration workload is fixed, its timing is the median of the timed repeats, and the cost of
a pause compares the same work after a sleep with the same work at once."""

from __future__ import annotations

import pytest

from bench.calibrate import measure, pause_cost, small_workload, workload


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


def test_pause_cost_times_the_work_after_each_pause_and_again_at_once() -> None:
    events: list[str] = []
    # Per round: (start, end) of the run after the pause, then of the run straight after it.
    ticks = iter([0.0, 0.0006, 1.0, 1.0003, 2.0, 2.0008, 3.0, 3.0002, 4.0, 4.0004, 5.0, 5.0003])
    result = pause_cost(
        pause_s=0.03,
        rounds=3,
        work=lambda: events.append("work"),
        clock=lambda: next(ticks),
        sleep=lambda s: events.append(f"sleep {s}"),
    )
    # One untimed run, then each round: the pause, the run after it, the run back to back.
    assert events == ["work"] + ["sleep 0.03", "work", "work"] * 3
    assert result["pause_ms"] == 30.0
    assert result["after_pause_us"] == pytest.approx(600.0)  # median of 600, 800, 400
    assert result["back_to_back_us"] == pytest.approx(300.0)  # median of 300, 200, 300
    assert result["after_pause_ratio"] == 2.0


def test_pause_cost_needs_a_round() -> None:
    with pytest.raises(ValueError, match="rounds"):
        pause_cost(rounds=0, work=lambda: None, sleep=lambda s: None)


def test_the_small_workload_is_a_smaller_piece_of_the_same_work() -> None:
    assert small_workload() == small_workload()
    assert 0 < small_workload() < workload()
