"""The measured scenarios of `bench.run_bench`, each returning a JSON-ready dict."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

import grpc.aio

from bench.answers import FreshAnswers, answer
from bench.drive import Client, FakeControl, SessionRun, TurnSample, run_session, throughput
from bench.fake_provider import CallRecord
from bench.procs import ServiceSet
from bench.stats import critical_path, p50_p95, ratio

MIB = 1024.0


def analyse_turns(samples: Sequence[TurnSample], calls: Sequence[CallRecord]) -> dict[str, Any]:
    """Latency, per-stage times, LLM round-trips and non-LLM overhead of sequential turns.

    Only valid when turns did not overlap (one session at a time): a call belongs to the turn
    during which it started. Round-trips are counted by overlap in time, which reads them only when
    a call lasts long enough for the calls made side by side to overlap: at 0 ms each call is over
    in under a millisecond, so the count there is nearer the number of calls (`llm_calls_per_turn`
    says which kinds they were)."""
    latencies, overheads, llm_ms, trips = [], [], [], []
    tokens: list[int] = []
    kinds: Counter[str] = Counter()
    for s in samples:
        turn_calls = [c for c in calls if s.start <= c.start <= s.end]
        path = critical_path([(c.start, c.end) for c in turn_calls])
        latencies.append(s.latency_ms)
        llm_ms.append(path.llm_s * 1000)
        overheads.append(s.latency_ms - path.llm_s * 1000)
        trips.append(path.round_trips)
        tokens.append(sum(c.input_tokens for c in turn_calls))
        kinds.update(c.kind for c in turn_calls)
    stage_names = sorted({name for s in samples for name in s.stages})
    stages = {name: p50_p95([s.stages[name] for s in samples if name in s.stages]) for name in stage_names}
    out: dict[str, Any] = {
        "turns": len(samples),
        "turn_latency_ms": p50_p95(latencies),
        "llm_critical_path_ms": p50_p95(llm_ms),
        "non_llm_overhead_ms": p50_p95(overheads),
        "llm_round_trips": {
            "mode": Counter(trips).most_common(1)[0][0] if trips else 0,
            "max": max(trips, default=0),
            "histogram": {str(k): v for k, v in sorted(Counter(trips).items())},
        },
        "llm_calls_per_turn": {kind: round(n / len(samples), 2) for kind, n in sorted(kinds.items())}
        if samples
        else {},
        "input_tokens_per_turn": p50_p95([float(t) for t in tokens]),
        "stages_ms": stages,
        "per_turn": [
            {
                "turn": s.turn,
                "latency_ms": round(s.latency_ms, 1),
                "llm_ms": round(llm, 1),
                "round_trips": trip,
                "input_tokens": tok,
                "nodes_added": s.nodes_added,
            }
            for s, llm, trip, tok in zip(samples, llm_ms, trips, tokens, strict=True)
        ],
    }
    firsts = [s.first_token_s * 1000 for s in samples if s.first_token_s is not None]
    if firsts:
        out["time_to_first_token_ms"] = p50_p95(firsts)
    return out


async def sequential(
    client: Client,
    fake: FakeControl,
    turns: int,
    *,
    services: ServiceSet | None = None,
    stream: bool = False,
    offset: int = 0,
) -> dict[str, Any]:
    """One session answered turn by turn; analysed with the fake's call log (and CPU per service)."""
    session_id, _ = await client.create(max_turns=max(turns, 50))
    mark = await fake.count()
    cpu_before = services.cpu() if services else {}
    run = await run_session(client, session_id, turns, stream=stream, offset=offset)
    cpu_after = services.cpu() if services else {}
    calls = await fake.calls_since(mark)
    out = analyse_turns(run.samples, calls)
    out["ended_early_at"] = run.ended_early_at
    out["error"] = run.error
    if services and run.samples:
        out["cpu_ms_per_turn"] = cpu_per_turn(cpu_before, cpu_after, len(run.samples))
    return out


def cpu_per_turn(before: dict[str, float], after: dict[str, float], turns: int) -> dict[str, float]:
    """CPU milliseconds per turn of each service (and their total) between two readings."""
    out = {name: round((after[name] - before.get(name, 0.0)) * 1000 / turns, 1) for name in after}
    out["total"] = round(sum(out.values()), 1)
    return out


async def cold_start(
    client: Client, fake: FakeControl, warm_sessions: int = 5, *, offset: int = 0
) -> dict[str, Any]:
    """The first session and turn after start-up against fresh sessions once everything is warm.

    Each session answers a turn 1 of its own (`answer(1, offset + i)`): with one answer for all, the
    warm sessions found its labels in the services' embedding caches, which the first could not, and
    the ratio measured those caches (one encoding pass per service) instead of start-up costs.
    """
    create_s, first = await _first_turn(client, offset)
    warm = [await _first_turn(client, offset + 1 + i) for i in range(warm_sessions)]
    warm_create = statistics.median(c for c, _ in warm) * 1000
    warm_turn = statistics.median(t for _, t in warm)
    return {
        "first_create_session_ms": round(create_s * 1000, 1),
        "warm_create_session_ms": round(warm_create, 1),
        "first_turn_ms": round(first, 1),
        "warm_turn_ms": round(warm_turn, 1),
        "first_over_warm": ratio(first, warm_turn),
    }


async def _first_turn(client: Client, offset: int) -> tuple[float, float]:
    session_id, create_s = await client.create(max_turns=50)
    run = await run_session(client, session_id, 1, offset=offset)
    return create_s, run.samples[0].latency_ms


async def long_session(
    client: Client, fake: FakeControl, services: ServiceSet, turns: int = 50, *, offset: int = 0
) -> dict[str, Any]:
    """A `turns`-turn interview: cost of turn 5 vs turn `turns`, RSS per service along the way."""
    session_id, _ = await client.create(max_turns=turns)
    mark = await fake.count()
    memory: dict[int, dict[str, float]] = {0: _rss(services)}
    cpu: dict[int, dict[str, float]] = {0: services.cpu()}

    async def sample_memory(sample: TurnSample) -> None:
        cpu[sample.turn] = services.cpu()  # a /proc read per service: far below a turn's cost
        if sample.turn % 10 == 0 or sample.turn == 1:
            memory[sample.turn] = _rss(services)

    run: SessionRun = await run_session(client, session_id, turns, offset=offset, after_turn=sample_memory)
    calls = await fake.calls_since(mark)
    analysis = analyse_turns(run.samples, calls)
    per_turn = {t["turn"]: t for t in analysis["per_turn"]}

    def window(center: int) -> float:
        values = [per_turn[t]["latency_ms"] for t in range(center - 2, center + 3) if t in per_turn]
        return statistics.median(values) if values else float("nan")

    last = max(per_turn) if per_turn else 0
    first_rss = memory.get(10) or memory.get(1) or {}
    last_rss = memory.get(last) or _rss(services)
    return {
        "turns_answered": len(run.samples),
        "ended_early_at": run.ended_early_at,
        "termination_reason": run.termination_reason,
        "error": run.error,
        "turn5_ms": per_turn.get(5, {}).get("latency_ms"),
        "turn50_ms": per_turn.get(turns, {}).get("latency_ms"),
        "turn5_window_median_ms": round(window(5), 1),
        "turn50_window_median_ms": round(window(turns - 2), 1),
        "turn50_over_turn5": ratio(window(turns - 2), window(5)),
        "turn5_input_tokens": per_turn.get(5, {}).get("input_tokens"),
        "turn50_input_tokens": per_turn.get(turns, {}).get("input_tokens"),
        "rss_mib_by_turn": {str(k): v for k, v in sorted(memory.items())},
        "rss_growth_mib_turn10_to_end": {
            name: round(last_rss.get(name, 0.0) - first_rss.get(name, 0.0), 1) for name in last_rss
        },
        "growth": window_growth(run.samples, cpu, 5, turns - 2),
        "analysis": analysis,
    }


async def paired_growth(
    client: Client, turns: int = 50, *, offset: int = 0, half: int = 2, rounds: int = 1
) -> dict[str, Any]:
    """Turn `turns` against turn 5, measured side by side: one interview answers its first
    `turns - 5 - half` turns alone, then a new interview's turns 1..5+half and the first one's
    last turns are answered alternately (new 1, old 44, new 2, old 45, ...).

    The sequential 50-turn session measures turn 5 and turn 50 about two minutes apart, and this
    host's speed drifts by up to 2x within minutes (`bench.calibrate`): the drift then reads as
    growth, or hides it. Alternating the two windows' turns puts both under the same conditions.
    Both interviews use `offset`, so both windows' answers were seen by earlier scenarios: the
    embedding caches are warm in both (the harsher comparison: turn 5 keeps no encoding cost that
    turn 50 also pays).

    `rounds` pairs of interviews are answered one pair after the other: one round's 5 + 5 turns
    gave ratios from 1.38 to 1.54 for the same code (five rounds in one run), a spread as wide as
    the margin to the target. The result (`late_over_early`) is the median of the rounds' own
    ratios, each taken under one round's conditions. The windows pooled over all rounds are
    reported too (`pooled_late_over_early`), but they are no estimate of the growth when the host's
    speed drifts between rounds: on 2026-12-02 three rounds read 1.43, 1.41 and 1.45 while their
    pooled medians read 1.63, the early median falling on a fast round's turn and the late one on
    a slow round's."""
    result: dict[str, Any] = {
        "turns": turns,
        "rounds": rounds,
        "error": None,
        "round_ratios": [],
        # Per round, each window's turns as answered: (turn, ms) pairs, to see a ratio's outliers.
        "round_latencies_ms": [],
    }
    early: list[TurnSample] = []
    late: list[TurnSample] = []
    for _ in range(rounds):
        got = await _paired_round(client, turns, offset, half)
        if isinstance(got, str):
            result["error"] = got
            return result
        round_early, round_late = got
        early += round_early
        late += round_late
        result["round_ratios"].append(ratio(_median_ms(round_late), _median_ms(round_early)))
        result["round_latencies_ms"].append(
            {
                "early": [[s.turn, round(s.latency_ms, 1)] for s in round_early],
                "late": [[s.turn, round(s.latency_ms, 1)] for s in round_late],
            }
        )
    early_ms, late_ms = _median_ms(early), _median_ms(late)
    result.update(
        {
            "early_turns": sorted({s.turn for s in early}),
            "late_turns": sorted({s.turn for s in late}),
            "early_window_median_ms": round(early_ms, 1),
            "late_window_median_ms": round(late_ms, 1),
            "pooled_late_over_early": ratio(late_ms, early_ms),
            "late_over_early": round(statistics.median(result["round_ratios"]), 2),
        }
    )
    return result


async def _paired_round(
    client: Client, turns: int, offset: int, half: int
) -> tuple[list[TurnSample], list[TurnSample]] | str:
    """One pair of interviews (see `paired_growth`): the two windows' samples, or what failed."""
    early_center = 5
    late_center = turns - half
    lead = turns - (early_center + half)  # the old interview's turns before the alternation
    old_id, _ = await client.create(max_turns=turns)
    run = await run_session(client, old_id, lead, offset=offset)
    if run.error or run.ended_early_at is not None:
        return run.error or f"ended early at turn {run.ended_early_at}"
    new_id, _ = await client.create(max_turns=turns)
    early: list[TurnSample] = []
    late: list[TurnSample] = []
    try:
        for i in range(1, early_center + half + 1):
            early.append(await client.submit(new_id, i, answer(i, offset)))
            late.append(await client.submit(old_id, lead + i, answer(lead + i, offset)))
    except grpc.aio.AioRpcError as exc:
        return f"{exc.code().name}: {exc.details()}"
    return _window(early, early_center, half), _window(late, late_center, half)


def _window(samples: Sequence[TurnSample], center: int, half: int) -> list[TurnSample]:
    """The samples of the turns `center`±`half`."""
    return [s for s in samples if center - half <= s.turn <= center + half]


def _median_ms(samples: Sequence[TurnSample]) -> float:
    return statistics.median(s.latency_ms for s in samples)


def window_growth(
    samples: Sequence[TurnSample],
    cpu_by_turn: dict[int, dict[str, float]],
    early: int,
    late: int,
    half: int = 2,
) -> dict[str, Any]:
    """Where a long session's growth goes: per stage, the median duration over the turns
    `early`±`half` and `late`±`half`; per service, the CPU ms per turn over the same turns
    (`cpu_by_turn[t]`: CPU seconds per service read after turn t, 0 before the first)."""

    stages: dict[str, dict[str, float]] = {}
    for name in sorted({n for s in samples for n in s.stages}):
        pair = {}
        for label, center in (("early", early), ("late", late)):
            values = [s.stages[name] for s in _window(samples, center, half) if name in s.stages]
            pair[label] = float(statistics.median(values)) if values else float("nan")
        stages[name] = pair
    cpu: dict[str, dict[str, float]] = {}
    for label, center in (("early", early), ("late", late)):
        first, last = center - half - 1, center + half
        if first in cpu_by_turn and last in cpu_by_turn:
            for name, used in cpu_by_turn[last].items():
                per_turn = (used - cpu_by_turn[first].get(name, 0.0)) * 1000 / (last - first)
                cpu.setdefault(name, {})[label] = round(per_turn, 1)
    return {"early_turn": early, "late_turn": late, "stages_ms": stages, "cpu_ms_per_turn": cpu}


def _rss(services: ServiceSet) -> dict[str, float]:
    return {name: round(m.get("VmRSS", 0) / MIB, 1) for name, m in services.memory().items()}


async def concurrency(
    client: Client, services: ServiceSet, levels: Sequence[tuple[int, int]], fresh: FreshAnswers
) -> list[dict[str, Any]]:
    """Turns per second with N sessions answering concurrently (N, turns each).

    Every session answers in words of its own from `fresh`: sessions sharing words (or reusing an
    earlier scenario's) skip the label encodings a new interview pays, which read as throughput."""
    out = []
    for sessions, turns_each in levels:
        offsets = [fresh.take(turns_each) for _ in range(sessions)]
        before = services.cpu()
        result = await throughput(client, offsets, turns_each)
        if result["turns"]:
            result["cpu_ms_per_turn"] = cpu_per_turn(before, services.cpu(), result["turns"])
        latencies = result.pop("latencies_ms")
        result["turn_latency_ms"] = p50_p95(latencies)
        out.append(result)
    return out


def peak_memory(services: ServiceSet) -> dict[str, dict[str, float]]:
    """Current and peak RSS (MiB) per service."""
    return {
        name: {
            "rss_mib": round(m.get("VmRSS", 0) / MIB, 1),
            "peak_rss_mib": round(m.get("VmHWM", 0) / MIB, 1),
        }
        for name, m in services.memory().items()
    }
