"""Where a long session's growth goes (stage medians and CPU per service around two turns), and the
side-by-side measurement of turn 50 against turn 5."""

from __future__ import annotations

import asyncio
import math

import grpc
import grpc.aio

from bench.answers import answer
from bench.drive import TurnSample
from bench.fake_provider import CallRecord
from bench.scenarios import analyse_turns, cold_start, paired_growth, window_growth


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


def _call(kind: str, start: float, end: float, tokens: int = 10) -> CallRecord:
    return CallRecord(0, kind, "anthropic", False, start, end, tokens, 5)


def test_a_call_belongs_to_the_turn_it_started_in_and_counts_by_kind() -> None:
    turns = [
        TurnSample("s", 1, 0.0, 1.0, {}, True, 0, 3, 2),
        TurnSample("s", 2, 2.0, 3.0, {}, True, 0, 3, 2),
    ]
    calls = [
        # turn 1: extraction and rubric side by side (one round-trip), then the question
        _call("extraction", 0.1, 0.4, tokens=100),
        _call("rubric", 0.2, 0.5),
        _call("text", 0.6, 0.9),
        # a deferred discovery's call beside the question, ending after the turn: still turn 1's
        _call("slots", 0.8, 1.5),
        # turn 2: three calls one after the other
        _call("extraction", 2.1, 2.2, tokens=100),
        _call("rubric", 2.3, 2.4),
        _call("text", 2.5, 2.6),
    ]
    out = analyse_turns(turns, calls)
    per_turn = out["per_turn"]
    assert [t["round_trips"] for t in per_turn] == [2, 3]
    # turn 1: 0.1-0.5 and 0.6-1.5 merged; turn 2: 3 × 0.1 s
    assert [t["llm_ms"] for t in per_turn] == [1300.0, 300.0]
    assert [t["input_tokens"] for t in per_turn] == [130, 120]
    assert out["llm_calls_per_turn"] == {"extraction": 1.0, "rubric": 1.0, "slots": 0.5, "text": 1.0}
    assert out["llm_round_trips"]["histogram"] == {"2": 1, "3": 1}


def test_no_turns_no_calls_per_turn() -> None:
    assert analyse_turns([], [])["llm_calls_per_turn"] == {}


def test_a_window_without_cpu_readings_is_left_out() -> None:
    samples = [_sample(t, {"srl": 3}) for t in range(1, 8)]
    growth = window_growth(samples, {0: {"scoring": 0.0}, 7: {"scoring": 1.0}}, 5, 50)
    assert growth["cpu_ms_per_turn"] == {}  # turns 2 and 7 read for the early one: 2 is missing


class _Client:
    """Answers every turn at once; the old interview's turn t takes t ms, the new one's 10 ms."""

    def __init__(self, fail_at: tuple[str, int] | None = None) -> None:
        self.calls: list[tuple[str, int]] = []
        self._fail_at = fail_at
        self._sessions = 0

    async def create(self, max_turns: int) -> tuple[str, float]:
        self._sessions += 1
        return ("old" if self._sessions == 1 else "new"), 0.0

    async def submit(self, session_id: str, turn: int, text: str) -> TurnSample:
        assert text == answer(turn, 26)  # both interviews answer with the given offset
        self.calls.append((session_id, turn))
        if (session_id, turn) == self._fail_at:
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.UNAVAILABLE,
                grpc.aio.Metadata(),
                grpc.aio.Metadata(),
                details="down",
                debug_error_string=None,
            )
        ms = turn if session_id == "old" else 10
        return TurnSample(session_id, turn, 0.0, ms / 1000, {}, True, 0, 3, 2)


def test_the_two_windows_are_answered_alternately() -> None:
    client = _Client()
    result = asyncio.run(paired_growth(client, 50, offset=26))  # type: ignore[arg-type]
    assert client.calls[:43] == [("old", t) for t in range(1, 44)]
    assert client.calls[43:] == [c for i in range(1, 8) for c in (("new", i), ("old", 43 + i))]
    assert (result["early_turns"], result["late_turns"]) == ([3, 4, 5, 6, 7], [46, 47, 48, 49, 50])
    assert (result["early_window_median_ms"], result["late_window_median_ms"]) == (10.0, 48.0)
    assert result["late_over_early"] == 4.8


def test_a_failed_turn_leaves_the_ratio_unmeasured() -> None:
    client = _Client(fail_at=("old", 45))
    result = asyncio.run(paired_growth(client, 50, offset=26))  # type: ignore[arg-type]
    assert "late_over_early" not in result
    assert result["error"] == "UNAVAILABLE: down"
    assert client.calls[-1] == ("old", 45)


class _FirstTurns:
    """Sessions answering turn 1; the first takes 60 ms, later ones 40 ms. Records each answer."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def create(self, max_turns: int) -> tuple[str, float]:
        return f"s{len(self.texts)}", 0.001

    async def submit(self, session_id: str, turn: int, text: str) -> TurnSample:
        self.texts.append(text)
        ms = 60 if len(self.texts) == 1 else 40
        return TurnSample(session_id, turn, 0.0, ms / 1000, {}, True, 0, 3, 2)


def test_cold_start_gives_every_session_new_words() -> None:
    client = _FirstTurns()
    result = asyncio.run(cold_start(client, None, 3, offset=40))  # type: ignore[arg-type]
    # One answer for all let the warm sessions hit the embedding caches the first one filled.
    assert client.texts == [answer(1, 40), answer(1, 41), answer(1, 42), answer(1, 43)]
    assert len(set(client.texts)) == 4
    assert (result["first_turn_ms"], result["warm_turn_ms"], result["first_over_warm"]) == (60.0, 40.0, 1.5)


class _Rounds:
    """Pairs of interviews one after the other: in round r the old interview's turn t takes
    t + 2r ms, the new one's turns 10 ms."""

    def __init__(self) -> None:
        self.sessions: list[str] = []

    async def create(self, max_turns: int) -> tuple[str, float]:
        self.sessions.append(f"s{len(self.sessions)}")
        return self.sessions[-1], 0.0

    async def submit(self, session_id: str, turn: int, text: str) -> TurnSample:
        index = self.sessions.index(session_id)
        ms = 10 if index % 2 else turn + 2 * (index // 2)
        return TurnSample(session_id, turn, 0.0, ms / 1000, {}, True, 0, 3, 2)


def test_rounds_are_pooled_and_each_reported() -> None:
    client = _Rounds()
    result = asyncio.run(paired_growth(client, 50, offset=26, rounds=3))  # type: ignore[arg-type]
    assert len(client.sessions) == 6  # a new pair of interviews per round
    assert result["round_ratios"] == [4.8, 5.0, 5.2]
    # 15 late samples (46-50, 48-52, 50-54 ms): their median is 50; 15 early ones at 10 ms.
    assert (result["early_window_median_ms"], result["late_window_median_ms"]) == (10.0, 50.0)
    assert result["pooled_late_over_early"] == 5.0
    assert result["late_over_early"] == 5.0  # the median of the rounds' ratios
    assert (result["early_turns"], result["late_turns"]) == ([3, 4, 5, 6, 7], [46, 47, 48, 49, 50])
    # Each round's windows, turn by turn: the third round's old turns took t + 4 ms.
    assert len(result["round_latencies_ms"]) == 3
    assert result["round_latencies_ms"][2] == {
        "early": [[t, 10.0] for t in range(3, 8)],
        "late": [[t, float(t + 4)] for t in range(46, 51)],
    }


class _Drifting(_Rounds):
    """Three pairs of interviews on a host whose speed drifts between pairs: each round's windows
    (turns 3-7 of the new interview, 46-50 of the old one) take the latencies of a run of
    2026-12-02, whose rounds read 1.43, 1.41 and 1.45 and whose pooled windows read 1.63."""

    EARLY = ([38.5, 41.6, 45.7, 46.0, 56.1], [43.1, 48.8, 50.9, 59.6, 60.8], [65.6, 68.4, 73.5, 80.9, 89.9])
    LATE = (
        [61.2, 61.3, 65.2, 69.0, 101.2],
        [64.7, 71.1, 71.9, 101.0, 151.8],
        [91.4, 93.5, 106.8, 108.7, 162.3],
    )

    async def submit(self, session_id: str, turn: int, text: str) -> TurnSample:
        index = self.sessions.index(session_id)
        rnd, new = divmod(index, 2)
        window, first = (self.EARLY, 3) if new else (self.LATE, 46)
        at = turn - first
        ms = window[rnd][at] if 0 <= at < 5 else 1.0
        return TurnSample(session_id, turn, 0.0, ms / 1000, {}, True, 0, 3, 2)


def test_growth_is_the_median_of_the_pairs_ratios_not_of_their_pooled_windows() -> None:
    result = asyncio.run(paired_growth(_Drifting(), 50, offset=26, rounds=3))  # type: ignore[arg-type]
    assert result["round_ratios"] == [1.43, 1.41, 1.45]
    # pooled, the early median is the fast second round's 56.1 ms, the late one the slow third's
    assert (result["early_window_median_ms"], result["late_window_median_ms"]) == (56.1, 91.4)
    assert result["pooled_late_over_early"] == 1.63
    assert result["late_over_early"] == 1.43
