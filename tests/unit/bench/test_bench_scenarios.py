"""Where a long session's growth goes: stage medians and CPU per service around two turns."""

from __future__ import annotations

import math

from bench.drive import TurnSample
from bench.scenarios import window_growth


def _sample(turn: int, stages: dict[str, int]) -> TurnSample:
    return TurnSample("s", turn, 0.0, 0.01, stages, True, 0, 3, 2)


def test_stage_medians_and_cpu_per_turn_of_both_windows() -> None:
    # graph_update grows by one ms a turn; strategy_selection exists only late.
    samples = [_sample(t, {"graph_update": 10 + t}) for t in range(1, 21)]
    for s in samples[-5:]:
        s.stages["strategy_selection"] = 7
    # Scoring uses 5 ms of CPU per turn until turn 10, then 9 ms.
    cpu: dict[int, dict[str, float]] = {0: {"scoring": 0.0}}
    for t in range(1, 21):
        cpu[t] = {"scoring": cpu[t - 1]["scoring"] + (0.005 if t <= 10 else 0.009)}
    growth = window_growth(samples, cpu, 5, 18)
    assert growth["stages_ms"]["graph_update"] == {"early": 15.0, "late": 28.0}
    assert math.isnan(growth["stages_ms"]["strategy_selection"]["early"])
    assert growth["stages_ms"]["strategy_selection"]["late"] == 7.0
    assert growth["cpu_ms_per_turn"]["scoring"] == {"early": 5.0, "late": 9.0}


def test_a_window_without_cpu_readings_is_left_out() -> None:
    samples = [_sample(t, {"srl": 3}) for t in range(1, 8)]
    growth = window_growth(samples, {0: {"scoring": 0.0}, 7: {"scoring": 1.0}}, 5, 50)
    assert growth["cpu_ms_per_turn"] == {}  # turns 2 and 7 read for the early one: 2 is missing
