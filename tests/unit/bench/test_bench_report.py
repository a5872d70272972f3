"""The target table reads the right figures and judges them against the issue's limits."""

from __future__ import annotations

from typing import Any

from bench.report import render_markdown, targets


def _report(
    overhead: float, rate: float, slow: float, growth: float, cold: float, second_growth: float | None = None
) -> dict[str, Any]:
    deferred = {
        "llm_0ms": {"non_llm_overhead_ms": {"p50": overhead, "p95": overhead, "n": 20.0}},
        "llm_300ms": {"turn_latency_ms": {"p50": slow, "p95": slow, "n": 12.0}},
        "concurrency": [{"sessions": 1, "turns_per_s": 99.0}, {"sessions": 20, "turns_per_s": rate}],
        "long_session": {
            "turn50_over_turn5": growth,
            "turns_answered": 50,
            "ended_early_at": None,
            "rss_mib_by_turn": {"10": {"graph_store": 100.0}, "50": {"graph_store": 104.0}},
        },
        "long_session_2": {
            "turn50_over_turn5": second_growth,
            "rss_mib_by_turn": {"0": {"graph_store": 104.0}, "50": {"graph_store": 112.0}},
        },
    }
    return {
        "started": "t",
        "machine": {"cpus": 2, "python": "3.11"},
        "databases": {"sqlite": {"modes": {"deferred": deferred}, "cold_start": {"first_over_warm": cold}}},
    }


def test_targets_pass_and_fail_on_the_limits() -> None:
    checks = {c["target"]: c for c in targets(_report(39.0, 21.0, 655.0, 1.4, 1.9))}
    assert checks["p50 non-LLM overhead per turn at 0 ms (ms)"]["pass"] is True
    assert checks["turns/s with 20 concurrent sessions at 0 ms"]["measured"] == 21.0
    assert checks["p50 turn latency at 300 ms per call, deferred (ms)"]["pass"] is True
    assert checks["first turn after start / warm turn"]["pass"] is True
    first = "RSS growth, 1st 50-turn session (turn 10 → 50), graph_store (fraction)"
    second = "RSS growth, 2nd 50-turn session (turn 0 → 50), graph_store (fraction)"
    assert (checks[first]["measured"], checks[first]["pass"]) == (0.04, True)
    assert (checks[second]["measured"], checks[second]["pass"]) == (0.077, False)
    failing = targets(_report(41.0, 19.0, 661.0, 1.6, 2.1))
    assert [c["pass"] for c in failing[:5]] == [False, False, False, False, False]


def test_markdown_lists_every_target() -> None:
    report = _report(39.0, 21.0, 655.0, 1.4, 1.9)
    report["targets"] = targets(report)
    markdown = render_markdown(report)
    assert markdown.count("\n| ") >= len(report["targets"])
    assert "| p50 non-LLM overhead per turn at 0 ms (ms) | 39.0 | 40.0 | yes |" in markdown


def test_growth_is_judged_on_the_worse_of_the_two_long_sessions_without_the_paired_windows() -> None:
    label = "turn 50 / turn 5 latency (5-turn window medians, worse of the two 50-turn sessions)"
    one = {c["target"]: c for c in targets(_report(39.0, 21.0, 655.0, 1.44, 1.9, second_growth=1.91))}
    assert (one[label]["measured"], one[label]["pass"]) == (1.91, False)
    both = {c["target"]: c for c in targets(_report(39.0, 21.0, 655.0, 1.3, 1.9, second_growth=1.45))}
    assert (both[label]["measured"], both[label]["pass"]) == (1.45, True)
    only_first = {c["target"]: c for c in targets(_report(39.0, 21.0, 655.0, 1.3, 1.9))}
    assert only_first[label]["measured"] == 1.3


def _paired(ratio: float | None) -> dict[str, Any]:
    if ratio is None:
        return {"turns": 50, "error": "UNAVAILABLE: down"}
    return {
        "turns": 50,
        "early_turns": [3, 4, 5, 6, 7],
        "late_turns": [46, 47, 48, 49, 50],
        "early_window_median_ms": 50.0,
        "late_window_median_ms": 50.0 * ratio,
        "late_over_early": ratio,
    }


def test_growth_is_judged_on_the_alternately_answered_windows_when_measured() -> None:
    label = "turn 50 / turn 5 latency (pairs of interviews answered alternately; median of their ratios)"
    # The sequential sessions drifted (1.7, 1.8); the side-by-side windows decide.
    report = _report(39.0, 21.0, 655.0, 1.7, 1.9, second_growth=1.8)
    report["databases"]["sqlite"]["modes"]["deferred"]["paired_growth"] = _paired(1.42)
    checks = {c["target"]: c for c in targets(report)}
    assert (checks[label]["measured"], checks[label]["pass"]) == (1.42, True)
    report["databases"]["sqlite"]["modes"]["deferred"]["paired_growth"] = _paired(1.52)
    checks = {c["target"]: c for c in targets(report)}
    assert (checks[label]["measured"], checks[label]["pass"]) == (1.52, False)
    report["targets"] = targets(report)
    markdown = render_markdown(report)
    assert "one interview's turns 46-50 and a new one's turns 3-7" in markdown
    assert "window medians 50.0 → 76.0 ms (×1.52)" in markdown
    # Not measured (a failed turn): the sequential sessions decide, and the report says why.
    report["databases"]["sqlite"]["modes"]["deferred"]["paired_growth"] = _paired(None)
    checks = {c["target"]: c for c in targets(report)}
    sequential = "turn 50 / turn 5 latency (5-turn window medians, worse of the two 50-turn sessions)"
    assert checks[sequential]["measured"] == 1.8
    report["targets"] = targets(report)
    assert "side by side: not measured (UNAVAILABLE: down)" in render_markdown(report)


def test_the_sqlite_driver_micro_benchmark_is_a_table_of_its_own() -> None:
    report = _report(39.0, 21.0, 655.0, 1.4, 1.9)
    report["targets"] = targets(report)

    def figures(write: tuple[float, float], read: tuple[float, float]) -> dict[str, dict[str, float]]:
        return {
            "write_transaction": {"wall_ms": write[0], "cpu_ms": write[1]},
            "read": {"wall_ms": read[0], "cpu_ms": read[1]},
        }

    driver, inline = figures((0.69, 0.61), (0.44, 0.38)), figures((0.22, 0.21), (0.1, 0.09))
    report["micro"] = {"sqlite": {"drivers": {"aiosqlite_thread": driver, "inline": inline}}}
    markdown = render_markdown(report)
    assert "| aiosqlite_thread | 0.69 / 0.61 | 0.44 / 0.38 |" in markdown
    assert "| inline | 0.22 / 0.21 | 0.10 / 0.09 |" in markdown


def test_the_long_session_growth_is_tabled_by_stage_and_service() -> None:
    report = _report(39.0, 21.0, 655.0, 1.4, 1.9)
    long = report["databases"]["sqlite"]["modes"]["deferred"]["long_session"]
    long["growth"] = {
        "early_turn": 5,
        "late_turn": 48,
        "stages_ms": {"strategy_selection": {"early": 5.0, "late": 12.0}},
        "cpu_ms_per_turn": {
            "scoring": {"early": 8.0, "late": 14.5},
            "graph_store": {"early": 16.0, "late": 27.5},
        },
    }
    report["targets"] = targets(report)
    markdown = render_markdown(report)
    assert "| strategy_selection | 5.00 | 12.0 | 7.00 |" in markdown
    assert "| CPU per turn, scoring | 8.00 | 14.5 | 6.50 |" in markdown
    # The services' sum, and its ratio: (14.5 + 27.5) / (8 + 16) = 1.75.
    assert "| CPU per turn, all services | 24.0 | 42.0 | 18.0 |" in markdown
    assert "CPU per turn, all services, turn 48 / turn 5: 1.75" in markdown


def test_a_window_without_cpu_readings_gets_no_total() -> None:
    report = _report(39.0, 21.0, 655.0, 1.4, 1.9)
    long = report["databases"]["sqlite"]["modes"]["deferred"]["long_session"]
    long["growth"] = {
        "early_turn": 5,
        "late_turn": 48,
        "stages_ms": {},
        "cpu_ms_per_turn": {"scoring": {"late": 14.5}},  # the early window's reading is missing
    }
    report["targets"] = targets(report)
    markdown = render_markdown(report)
    assert "| CPU per turn, scoring | – | 14.5 | – |" in markdown
    assert "CPU per turn, all services" not in markdown


def test_the_machine_speed_readings_head_the_report() -> None:
    report = _report(39.0, 21.0, 655.0, 1.4, 1.9)
    report["machine"]["calibration"] = [
        {"when": "start", "median_ms": 40.1, "min_ms": 38.0, "repeats": 7},
        {"when": "after sqlite", "median_ms": 22.5, "min_ms": 21.0, "repeats": 7},
    ]
    report["targets"] = targets(report)
    markdown = render_markdown(report)
    line = next(line for line in markdown.splitlines() if line.startswith("Machine speed"))
    assert "median of 7" in line
    assert "start 40.1 ms; after sqlite 22.5 ms" in line
    assert markdown.index("Machine speed") < markdown.index("## Targets")
    # Readings from before the pause cost existed render without its line.
    assert "Cost of a pause" not in markdown
    # A report without readings (an older JSON) renders without the line.
    del report["machine"]["calibration"]
    assert "Machine speed" not in render_markdown(report)


def test_the_processor_is_named_beside_the_cpu_count() -> None:
    report = _report(39.0, 21.0, 655.0, 1.4, 1.9)
    amd = {"cpu_model": "AMD EPYC", "llc_level": 3, "llc_kib": 32768, "vector_isa": "AVX2"}
    report["machine"]["host"] = amd
    report["targets"] = targets(report)
    assert " · 2 CPUs (AMD EPYC, L3 32 MiB, AVX2) · Python 3.11 · " in render_markdown(report)
    # A report from before the host was read (or a system that does not tell) gives the count alone.
    report["machine"]["host"] = {"cpu_model": None, "llc_level": None, "llc_kib": None, "vector_isa": None}
    assert " · 2 CPUs · Python 3.11 · " in render_markdown(report)
    del report["machine"]["host"]
    assert " · 2 CPUs · Python 3.11 · " in render_markdown(report)


def test_the_cost_of_a_pause_follows_the_machine_speed() -> None:
    report = _report(39.0, 21.0, 655.0, 1.4, 1.9)
    pause = {"pause_ms": 30.0, "after_pause_us": 570.0, "back_to_back_us": 310.0}
    speed = {"median_ms": 14.2, "min_ms": 13.5, "repeats": 7}
    report["machine"]["calibration"] = [
        {"when": "start", **speed, **pause, "after_pause_ratio": 1.84},
        {"when": "after sqlite", **speed, **pause, "after_pause_ratio": 1.7},
    ]
    report["targets"] = targets(report)
    lines = render_markdown(report).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Machine speed"))
    assert lines[at + 1] == ""  # a paragraph of its own
    pause_line = lines[at + 2]
    assert pause_line.startswith("Cost of a pause")
    assert "after a 30.0 ms sleep" in pause_line
    assert "start ×1.84 (570.0 against 310.0 µs); after sqlite ×1.70" in pause_line


def test_pooled_rounds_are_named_with_each_pairs_ratio() -> None:
    report = _report(39.0, 21.0, 655.0, 1.3, 1.9)
    paired = _paired(1.43) | {
        "rounds": 3,
        "round_ratios": [1.43, 1.41, 1.45],
        "early_window_median_ms": 56.1,
        "late_window_median_ms": 91.4,
        "pooled_late_over_early": 1.63,
    }
    report["databases"]["sqlite"]["modes"]["deferred"]["paired_growth"] = paired
    report["targets"] = targets(report)
    markdown = render_markdown(report)
    assert (
        "×1.43, the median of 3 pairs of interviews answered one after the other (ratios per pair: "
        "1.43, 1.41, 1.45); their windows pooled read 56.1 → 91.4 ms (×1.63)"
    ) in markdown
    # One round (or an older report): the windows' medians and their ratio, no pairs.
    report["databases"]["sqlite"]["modes"]["deferred"]["paired_growth"] = _paired(1.44)
    markdown = render_markdown(report)
    assert "window medians 50.0 → 72.0 ms (×1.44)." in markdown
    assert "answered one after the other" not in markdown


def test_round_trips_are_read_at_300_ms_and_calls_by_kind_at_0_ms() -> None:
    report = _report(39.0, 21.0, 655.0, 1.4, 1.9)
    deferred = report["databases"]["sqlite"]["modes"]["deferred"]
    # At 0 ms the overlap count reads calls (4), not the two round-trips the turn waits for.
    deferred["llm_0ms"]["llm_round_trips"] = {"mode": 4, "max": 4}
    deferred["llm_0ms"]["llm_calls_per_turn"] = {"extraction": 1.0, "rubric": 1.0, "slots": 0.95, "text": 1.0}
    deferred["llm_300ms"]["llm_round_trips"] = {"mode": 2, "max": 3}
    report["targets"] = targets(report)
    markdown = render_markdown(report)
    assert "| llm_300ms | sequential LLM round-trips | 2 (max 3) |" in markdown
    assert (
        "| llm_0ms | LLM calls started in the turn (mean, by kind) | "
        "3.95 (extraction 1.00, rubric 1.00, slots 0.95, text 1.00) |"
    ) in markdown
    assert "4 (max 4)" not in markdown
