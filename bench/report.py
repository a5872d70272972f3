"""The benchmark's targets and its Markdown report."""

from __future__ import annotations

import math
from typing import Any

from bench.calibrate import describe_host
from bench.stats import ratio

OVERHEAD_TARGET_MS = 40.0
THROUGHPUT_TARGET = 20.0
THROUGHPUT_SESSIONS = 20
SLOW_TARGET_MS = 2 * 300.0 + 60.0
GROWTH_TARGET = 1.5
COLD_TARGET = 2.0
MEMORY_GROWTH_TARGET = 0.05  # "flat": RSS at the end within 5 % of RSS at turn 10


def _get(data: dict[str, Any], *path: str) -> Any:
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def _check(name: str, measured: float | None, limit: float, *, at_least: bool = False) -> dict[str, Any]:
    if measured is None or (isinstance(measured, float) and math.isnan(measured)):
        return {"target": name, "measured": None, "limit": limit, "pass": None}
    ok = measured >= limit if at_least else measured <= limit
    return {"target": name, "measured": measured, "limit": limit, "pass": ok}


def _worst(*ratios: float | None) -> float | None:
    """The largest of the ratios measured (one session's 5-turn windows are noisy on this machine:
    a slow turn-5 window alone can pass a session that grows)."""
    measured = [r for r in ratios if r is not None]
    return max(measured) if measured else None


def _growth_check(
    paired: dict[str, Any] | None, long: dict[str, Any], long_2: dict[str, Any]
) -> dict[str, Any]:
    """Turn 50 against turn 5: judged on the side-by-side windows (`scenarios.paired_growth`),
    which this host's drift in speed cannot bias; a report without them (older JSON) falls back on
    the worse of the two sequential sessions."""
    if paired and paired.get("late_over_early") is not None:
        return _check(
            "turn 50 / turn 5 latency (pairs of interviews answered alternately; median of their ratios)",
            paired["late_over_early"],
            GROWTH_TARGET,
        )
    return _check(
        "turn 50 / turn 5 latency (5-turn window medians, worse of the two 50-turn sessions)",
        _worst(long.get("turn50_over_turn5"), long_2.get("turn50_over_turn5")),
        GROWTH_TARGET,
    )


def targets(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets, checked on SQLite with deferred slot discovery."""
    db = report["databases"].get("sqlite", {})
    deferred = _get(db, "modes", "deferred") or {}
    rate = next(
        (c["turns_per_s"] for c in deferred.get("concurrency", []) if c["sessions"] == THROUGHPUT_SESSIONS),
        None,
    )
    long = deferred.get("long_session") or {}
    long_2 = deferred.get("long_session_2") or {}
    checks = [
        _check(
            "p50 non-LLM overhead per turn at 0 ms (ms)",
            _get(deferred, "llm_0ms", "non_llm_overhead_ms", "p50"),
            OVERHEAD_TARGET_MS,
        ),
        _check(
            f"turns/s with {THROUGHPUT_SESSIONS} concurrent sessions at 0 ms",
            rate,
            THROUGHPUT_TARGET,
            at_least=True,
        ),
        _check(
            "p50 turn latency at 300 ms per call, deferred (ms)",
            _get(deferred, "llm_300ms", "turn_latency_ms", "p50"),
            SLOW_TARGET_MS,
        ),
        _growth_check(deferred.get("paired_growth"), long, long_2),
        _check("first turn after start / warm turn", _get(db, "cold_start", "first_over_warm"), COLD_TARGET),
    ]
    for label, session, first in (("1st", long, "10"), ("2nd", long_2, "0")):
        rss = session.get("rss_mib_by_turn") or {}
        start = rss.get(first) or {}
        end = rss[max(rss, key=int)] if rss else {}
        for name in sorted(end):
            if start.get(name):
                growth = round((end[name] - start[name]) / start[name], 3)
                checks.append(
                    _check(
                        f"RSS growth, {label} 50-turn session (turn {first} → 50), {name} (fraction)",
                        growth,
                        MEMORY_GROWTH_TARGET,
                    )
                )
    ended = long.get("ended_early_at")
    checks.append(
        {
            "target": "50-turn session reaches turn 50",
            "measured": long.get("turns_answered"),
            "limit": 50,
            "pass": ended is None and long.get("turns_answered") == 50,
        }
    )
    return checks


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def _pp(stat: dict[str, float] | None) -> str:
    return "–" if not stat else f"{_fmt(stat.get('p50'))} / {_fmt(stat.get('p95'))}"


def _growth_lines(growth: dict[str, Any] | None) -> list[str]:
    """Where the long session's growth goes: stage durations and CPU per service, both windows."""
    if not growth:
        return []
    early, late = growth.get("early_turn"), growth.get("late_turn")
    lines = [
        "",
        f"Where the growth goes (medians over turns {early}±2 and {late}±2; stages overlap, so their "
        "sum is not the turn):",
        "",
        f"| stage or service | turn {early} (ms) | turn {late} (ms) | growth (ms) |",
        "|---|---:|---:|---:|",
    ]
    cpu = growth.get("cpu_ms_per_turn", {})
    rows = [(name, pair) for name, pair in growth.get("stages_ms", {}).items()]
    rows += [(f"CPU per turn, {name}", pair) for name, pair in cpu.items()]
    total = {
        label: sum(pair[label] for pair in cpu.values())
        for label in ("early", "late")
        if cpu and all(label in pair for pair in cpu.values())
    }
    if len(total) == 2:
        rows.append(("CPU per turn, all services", total))
    for name, pair in rows:
        a, b = pair.get("early"), pair.get("late")
        delta = b - a if isinstance(a, int | float) and isinstance(b, int | float) else None
        lines.append(f"| {name} | {_fmt(a)} | {_fmt(b)} | {_fmt(delta)} |")
    if len(total) == 2 and total["early"]:
        # Wall time swings with whatever else the two cores run; CPU time much less so.
        lines += [
            "",
            f"CPU per turn, all services, turn {late} / turn {early}: "
            f"{ratio(total['late'], total['early']):.2f} (the latency ratio's steadier companion).",
        ]
    return lines


def render_markdown(report: dict[str, Any]) -> str:
    """The whole report as Markdown tables."""
    lines = [
        "# Benchmark report",
        "",
        f"{report['started']} · {_cpus(report['machine'])} · Python {report['machine']['python']} · "
        f"suite {report.get('suite_wall_s', '–')} s",
        "",
        *_calibration_lines(report["machine"].get("calibration")),
        "## Targets (SQLite, deferred slot discovery, fake LLM)",
        "",
        "| target | measured | limit | pass |",
        "|---|---:|---:|:---:|",
    ]
    for t in report["targets"]:
        mark = {True: "yes", False: "**NO**", None: "n/a"}[t["pass"]]
        lines.append(f"| {t['target']} | {_fmt(t['measured'])} | {_fmt(t['limit'])} | {mark} |")
    for kind, db in report["databases"].items():
        lines += ["", f"## {kind}", ""]
        if "skipped" in db:
            lines.append(f"skipped: {db['skipped']}")
            continue
        lines += _database_section(db)
    micro = report.get("micro")
    if micro:
        lines += ["", "## Micro-benchmarks", "", *_micro_section(micro)]
    return "\n".join(lines) + "\n"


def _cpus(machine: dict[str, Any]) -> str:
    """The CPU count, and the processor where the report knows it: "2 CPUs (AMD EPYC, L3 32 MiB, AVX2)"."""
    described = describe_host(machine.get("host"))
    return f"{machine['cpus']} CPUs ({described})" if described else f"{machine['cpus']} CPUs"


def _span(turns: list[int] | None) -> str:
    return f"{turns[0]}-{turns[-1]}" if turns else "–"


def _paired_lines(paired: dict[str, Any] | None) -> list[str]:
    """The side-by-side measurement of turn 50 against turn 5 (`scenarios.paired_growth`)."""
    if not paired:
        return []
    if paired.get("late_over_early") is None:
        turns, error = paired.get("turns"), paired.get("error")
        return ["", f"Turn {turns} and turn 5 side by side: not measured ({error})."]
    late, early = _span(paired.get("late_turns")), _span(paired.get("early_turns"))
    rounds = paired.get("round_ratios") or []
    windows = f"{_fmt(paired.get('early_window_median_ms'))} → {_fmt(paired.get('late_window_median_ms'))} ms"
    if len(rounds) > 1:
        figure = (
            f"×{_fmt(paired.get('late_over_early'))}, the median of {len(rounds)} pairs of interviews "
            f"answered one after the other (ratios per pair: {', '.join(_fmt(r) for r in rounds)}); "
            f"their windows pooled read {windows} (×{_fmt(paired.get('pooled_late_over_early'))}), "
            "a figure that a drift of the host's speed between pairs biases."
        )
    else:
        figure = f"window medians {windows} (×{_fmt(paired.get('late_over_early'))})."
    return [
        "",
        f"Turn {paired.get('turns')} and turn 5 side by side (one interview's turns {late} and a new "
        f"one's turns {early}, answered alternately, so that both windows run under the same machine "
        f"conditions; answers seen before, caches warm in both): {figure}",
    ]


def _calibration_lines(calibration: list[dict[str, Any]] | None) -> list[str]:
    """The machine's speed while the report was measured (`bench.calibrate`)."""
    if not calibration:
        return []
    readings = "; ".join(f"{c['when']} {_fmt(c['median_ms'])} ms" for c in calibration)
    lines = [
        f"Machine speed (`python -m bench.calibrate`, a fixed CPU workload, median of "
        f"{calibration[0]['repeats']}; lower is faster): {readings}. The host's speed varies from day "
        "to day and within minutes: a reading tells a slow run from a fast one, it does not correct "
        "a figure.",
        "",
    ]
    paused = [c for c in calibration if "after_pause_ratio" in c]
    if paused:  # reports from before the reading existed have none
        ratios = "; ".join(
            f"{c['when']} ×{_fmt(c['after_pause_ratio'])} "
            f"({_fmt(c['after_pause_us'])} against {_fmt(c['back_to_back_us'])} µs)"
            for c in paused
        )
        lines += [
            f"Cost of a pause (the same small piece of work right after a {_fmt(paused[0]['pause_ms'])} ms "
            f"sleep, against back to back): {ratios}. Every service of a turn works right after "
            "waiting for the others, so this factor weighs on the whole non-LLM overhead.",
            "",
        ]
    return lines


def _calls_cell(per_kind: dict[str, float] | None) -> str:
    """'4 (extraction 1, rubric 1, …)': the mean number of calls a turn started, by kind."""
    if not per_kind:
        return "–"
    kinds = ", ".join(f"{kind} {_fmt(n)}" for kind, n in per_kind.items())
    return f"{_fmt(round(sum(per_kind.values()), 2))} ({kinds})"


def _database_section(db: dict[str, Any]) -> list[str]:
    cold = db.get("cold_start", {})
    lines = [
        f"Start-up {db.get('startup_s')} s. "
        f"First CreateSession {_fmt(cold.get('first_create_session_ms'))} ms "
        f"(warm {_fmt(cold.get('warm_create_session_ms'))}); first turn {_fmt(cold.get('first_turn_ms'))} ms "
        f"(warm turn 1: {_fmt(cold.get('warm_turn_ms'))} ms, ratio {_fmt(cold.get('first_over_warm'))}).",
        "",
        "### Inline vs deferred slot discovery (p50 / p95, ms)",
        "",
        "| scenario | metric | " + " | ".join(db["modes"]) + " |",
        "|---|---|" + "---:|" * len(db["modes"]),
    ]
    rows = [
        ("0 ms LLM", "llm_0ms", "turn_latency_ms"),
        ("0 ms LLM", "llm_0ms", "non_llm_overhead_ms"),
        ("300 ms LLM", "llm_300ms", "turn_latency_ms"),
        ("300 ms LLM", "llm_300ms", "llm_critical_path_ms"),
        ("300 ms LLM", "llm_300ms", "non_llm_overhead_ms"),
        ("StreamTurn 300 ms", "stream_300ms", "time_to_first_token_ms"),
        ("StreamTurn 300 ms", "stream_300ms", "turn_latency_ms"),
    ]
    for label, scenario, metric in rows:
        cells = [_pp(_get(m, scenario, metric)) for m in db["modes"].values()]
        lines.append(f"| {label} | {metric} | " + " | ".join(cells) + " |")
    cells = [_calls_cell(_get(m, "llm_0ms", "llm_calls_per_turn")) for m in db["modes"].values()]
    lines.append("| llm_0ms | LLM calls started in the turn (mean, by kind) | " + " | ".join(cells) + " |")
    cells = []
    for m in db["modes"].values():
        trips = _get(m, "llm_300ms", "llm_round_trips") or {}
        cells.append(f"{trips.get('mode', '–')} (max {trips.get('max', '–')})")
    lines.append("| llm_300ms | sequential LLM round-trips | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Sequential round-trips are the turn's LLM calls with overlapping ones merged, read at 300 ms "
        "per call: at 0 ms a call is over in under a millisecond, calls made side by side seldom "
        "overlap, and the same count reads the number of calls instead.",
    ]
    lines += ["", "### CPU per turn by service (ms; sequential turns at 0 ms LLM)", ""]
    names = sorted({n for m in db["modes"].values() for n in (_get(m, "llm_0ms", "cpu_ms_per_turn") or {})})
    lines += ["| mode | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for mode, m in db["modes"].items():
        cpu = _get(m, "llm_0ms", "cpu_ms_per_turn") or {}
        lines.append(f"| {mode} | " + " | ".join(_fmt(cpu.get(n)) for n in names) + " |")
    lines += [
        "",
        "Machine while measuring (cores busy; other = processes not ours, e.g. other test runs):",
        "",
    ]
    for mode, m in db["modes"].items():
        load = m.get("machine") or {}
        lines.append(
            f"- {mode}: ours {_fmt(load.get('our_cores'))}, other {_fmt(load.get('other_cores'))}, "
            f"load average {_fmt(load.get('loadavg_1m'))} over {_fmt(load.get('wall_s'))} s"
        )
    for mode, m in db["modes"].items():
        stages = _get(m, "llm_300ms", "stages_ms") or {}
        base = _get(m, "llm_0ms", "stages_ms") or {}
        lines += [
            "",
            f"### Per-stage p50 / p95 (ms), {mode}",
            "",
            "| stage | 0 ms LLM | 300 ms LLM |",
            "|---|---:|---:|",
        ]
        for name in sorted(set(stages) | set(base)):
            lines.append(f"| {name} | {_pp(base.get(name))} | {_pp(stages.get(name))} |")
    first_mode: dict[str, Any] = next(iter(db["modes"].values()), {})
    long = first_mode.get("long_session")
    if long:
        lines += [
            "",
            "### 50-turn session (0 ms LLM)",
            "",
            f"Answered {long.get('turns_answered')} turns (ended early at: {long.get('ended_early_at')}). "
            f"Turn 5 {_fmt(long.get('turn5_ms'))} ms, turn 50 {_fmt(long.get('turn50_ms'))} ms; "
            "5-turn window medians "
            f"{_fmt(long.get('turn5_window_median_ms'))} → {_fmt(long.get('turn50_window_median_ms'))} ms "
            f"(×{_fmt(long.get('turn50_over_turn5'))}). Input tokens per turn: "
            f"{_fmt(long.get('turn5_input_tokens'))} → {_fmt(long.get('turn50_input_tokens'))}.",
            "",
            "| service | "
            + " | ".join(f"RSS turn {t} (MiB)" for t in long.get("rss_mib_by_turn", {}))
            + " |",
            "|---|" + "---:|" * len(long.get("rss_mib_by_turn", {})),
        ]
        names = sorted({n for snap in long.get("rss_mib_by_turn", {}).values() for n in snap})
        for name in names:
            cells = [_fmt(snap.get(name)) for snap in long.get("rss_mib_by_turn", {}).values()]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines += _growth_lines(long.get("growth"))
    second = first_mode.get("long_session_2")
    if second:
        lines += [
            "",
            f"Second 50-turn session (memory plateau): answered {second.get('turns_answered')} turns; "
            f"turn 5 → 50 window medians {_fmt(second.get('turn5_window_median_ms'))} → "
            f"{_fmt(second.get('turn50_window_median_ms'))} ms.",
            "",
            "| service | "
            + " | ".join(f"RSS turn {t} (MiB)" for t in second.get("rss_mib_by_turn", {}))
            + " |",
            "|---|" + "---:|" * len(second.get("rss_mib_by_turn", {})),
        ]
        for name in sorted({n for snap in second.get("rss_mib_by_turn", {}).values() for n in snap}):
            cells = [_fmt(snap.get(name)) for snap in second.get("rss_mib_by_turn", {}).values()]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += _paired_lines(first_mode.get("paired_growth"))
    conc = first_mode.get("concurrency")
    if conc:
        lines += [
            "",
            "### Concurrent sessions (0 ms LLM)",
            "",
            "Each session answers in words no other session or scenario used: the services encode "
            "every label, as for new interviews (`bench.answers.FreshAnswers`).",
            "",
            "| sessions | turns | wall s | turns/s | turn latency p50 / p95 ms | CPU ms/turn, all services "
            "| failed sessions |",
            "|---:|---:|---:|---:|---:|---:|---|",
        ]
        for c in conc:
            errors = c.get("errors") or []
            failed = f"{len(errors)}: {errors[0]}" if errors else "0"
            lines.append(
                f"| {c.get('sessions')} | {c.get('turns')} | {_fmt(c.get('wall_s'))} | "
                f"{_fmt(c.get('turns_per_s'))} | {_pp(c.get('turn_latency_ms'))} | "
                f"{_fmt((c.get('cpu_ms_per_turn') or {}).get('total'))} | {failed} |"
            )
    memory = db.get("memory")
    if memory:
        lines += ["", "### Memory at the end", "", "| service | RSS MiB | peak RSS MiB |", "|---|---:|---:|"]
        for name, m in sorted(memory.items()):
            lines.append(f"| {name} | {_fmt(m['rss_mib'])} | {_fmt(m['peak_rss_mib'])} |")
    return lines


def _micro_section(micro: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    graph = micro.get("graph_store", {})
    if "results" in graph:
        lines += [
            "graph_store ApplyExtraction (gRPC, SQLite):",
            "",
            "| existing nodes | median ms | p90 ms | median CPU ms | SearchNodes median ms |",
            "|---:|---:|---:|---:|---:|",
        ]
        for r in graph["results"]:
            lines.append(
                f"| {r['existing_nodes']} | {r['median_ms']} | {r['p90_ms']} | {r['median_cpu_ms']} "
                f"| {r.get('search_median_ms', '–')} |"
            )
    elif graph:
        lines.append(f"graph_store: {graph.get('error')}")
    scoring = micro.get("scoring", {})
    if "results" in scoring:
        lines += [
            "",
            "scoring (in process, median ms):",
            "",
            "| nodes | candidates | detect | rank_joint | select_joint | selection_to_proto |",
            "|---:|---:|---:|---:|---:|---:|",
        ]
        for r in scoring["results"].values():
            lines.append(
                f"| {r['nodes']} | {r['candidates']} | {r['detect']['median_ms']} | "
                f"{r['rank_joint']['median_ms']} | "
                f"{r['select_joint']['median_ms']} | {r['selection_to_proto']['median_ms']} |"
            )
    elif scoring:
        lines.append(f"scoring: {scoring.get('error')}")
    sqlite = micro.get("sqlite", {})
    if "drivers" in sqlite:
        lines += [
            "",
            "SQLite driver (in process, per statement, median ms; wall / CPU):",
            "",
            "| driver | write transaction | primary-key read |",
            "|---|---:|---:|",
        ]
        for name, r in sqlite["drivers"].items():
            kinds = ("write_transaction", "read")
            cells = [f"{_fmt(r[k]['wall_ms'])} / {_fmt(r[k]['cpu_ms'])}" for k in kinds]
            lines.append(f"| {name} | {' | '.join(cells)} |")
    elif sqlite:
        lines.append(f"sqlite: {sqlite.get('error')}")
    return lines
