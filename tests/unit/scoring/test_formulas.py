"""Table-driven tests of every SPEC.md signal formula, boundaries included."""

from __future__ import annotations

import pytest

from services.scoring import formulas as f
from shared.methodology import phase_for
from shared.methodology_models import InterviewPhase
from shared.signal_catalog import bin_continuous


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.0, "low"),
        (0.25, "low"),
        (0.2500001, "mid"),
        (0.5, "mid"),
        (0.7499999, "mid"),
        (0.75, "high"),
        (1.0, "high"),
        (-0.1, "low"),
        (3.0, "high"),
    ],
)
def test_binning_boundaries_low_is_inclusive_at_quarter_high_inclusive_at_three_quarters(
    value: float, expected: str
) -> None:
    assert bin_continuous(value) == expected


E, M, L = InterviewPhase.EARLY, InterviewPhase.MID, InterviewPhase.LATE


@pytest.mark.parametrize(
    ("max_turns", "expected"),
    [
        # early ≤ max(2, round(0.1·20)=2) = 2; late after 18
        (20, {1: E, 2: E, 3: M, 18: M, 19: L, 20: L}),
        # round(0.1·30)=3 → early ≤ 3; late after 28
        (30, {3: E, 4: M, 28: M, 29: L}),
        # round(0.1·50)=5 → early ≤ 5; late after 48
        (50, {5: E, 6: M, 48: M, 49: L}),
        # round(0.1·10)=1 → max(2, 1) = 2; late after 8
        (10, {2: E, 3: M, 8: M, 9: L}),
        # mid bound 3, early bound 2 < 3: early ≤ 2, mid 3, late after 3
        (5, {2: E, 3: M, 4: L}),
        # mid bound 2, early 2 ≥ 2 → early = max(1, 2 − 1) = 1; mid 2; late after 2
        (4, {1: E, 2: M, 3: L, 4: L}),
        # mid bound 1, early 2 ≥ 1 → early = max(1, 0) = 1; no mid turn; late after 1
        (3, {1: E, 2: L}),
        # round(0.1·25)=round(2.5)=2 (banker's rounding) → early ≤ 2
        (25, {2: E, 3: M, 23: M, 24: L}),
        # round(0.1·35)=round(3.5)=4 → early ≤ 4
        (35, {4: E, 5: M}),
    ],
)
def test_phase_boundaries_for_several_max_turns(max_turns: int, expected: dict[int, InterviewPhase]) -> None:
    assert {turn: phase_for(turn, max_turns) for turn in expected} == expected


@pytest.mark.parametrize(
    ("tsy", "streak", "shallow", "expected"),
    [
        (0, 0, 0.0, 0.0),
        (10, 5, 1.0, 1.0),
        (20, 9, 1.0, 1.0),  # both minimums cap
        (5, 0, 0.0, 0.2),  # 0.4·5/10
        (0, 5, 0.0, 0.3),  # 0.3·5/5
        (0, 0, 2 / 3, 0.2),  # 0.3·2/3
        (3, 2, 2 / 3, 0.12 + 0.12 + 0.2),
        (1, 1, 1 / 3, 0.04 + 0.06 + 0.1),
    ],
)
def test_exhaustion_score(tsy: int, streak: int, shallow: float, expected: float) -> None:
    assert f.exhaustion_score(tsy, streak, shallow) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("focus_count", "tsy", "streak", "shallow", "expected"),
    [
        (1, 3, 2, 2 / 3, True),  # every criterion exactly at its boundary
        (0, 3, 2, 2 / 3, False),  # never focused
        (1, 2, 2, 2 / 3, False),  # yield too recent
        (1, 3, 1, 2 / 3, False),  # streak too short
        (1, 3, 2, 1 / 3, False),  # answers not shallow enough
        (5, 9, 4, 1.0, True),
    ],
)
def test_exhausted(focus_count: int, tsy: int, streak: int, shallow: float, expected: bool) -> None:
    assert f.is_exhausted(focus_count, tsy, streak, shallow) is expected


@pytest.mark.parametrize(("tsy", "expected"), [(0, False), (2, False), (3, True), (10, True)])
def test_yield_stagnation(tsy: int, expected: bool) -> None:
    assert f.yield_stagnation(tsy) is expected


@pytest.mark.parametrize(
    ("tsf", "expected"), [(0, 1.0), (1, 0.95), (10, 0.5), (19, 0.05), (20, 0.0), (35, 0.0)]
)
def test_recency_score(tsf: int, expected: float) -> None:
    assert f.recency_score(tsf) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("streak", "band"), [(0, "none"), (1, "low"), (2, "medium"), (3, "medium"), (4, "high"), (9, "high")]
)
def test_focus_streak_bands(streak: int, band: str) -> None:
    assert f.focus_streak_band(streak) == band


@pytest.mark.parametrize(
    ("count", "band"), [(0, "none"), (1, "low"), (2, "low"), (3, "medium"), (4, "medium"), (5, "high")]
)
def test_focus_count_bands(count: int, band: str) -> None:
    assert f.focus_count_band(count) == band


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        ((), 0.0),
        (("deepen",), 0.2),
        (("explore", "deepen", "deepen"), 0.4),
        (("deepen", "deepen", "deepen", "deepen", "deepen"), 1.0),
        # only the last 5 count: 7 × deepen → 5/5
        (("deepen",) * 7, 1.0),
        # last is explore: 2 explores among the last 5
        (("deepen", "explore", "deepen", "deepen", "explore"), 0.4),
        # the window is the last 5: the first explore falls out
        (("explore", "deepen", "deepen", "deepen", "deepen", "explore"), 0.2),
    ],
)
def test_strategy_repetition_count(history: tuple[str, ...], expected: float) -> None:
    assert f.strategy_repetition_count(history) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        ((), 0.0),
        (("deepen",), 0.0),  # fewer than 2 entries
        (("explore", "deepen"), 0.2),  # run of 1
        (("deepen", "deepen"), 0.4),
        (("explore", "deepen", "deepen", "deepen"), 0.6),
        (("deepen",) * 5, 1.0),
        (("deepen",) * 9, 1.0),  # capped at 1
    ],
)
def test_turns_since_strategy_change(history: tuple[str, ...], expected: float) -> None:
    assert f.turns_since_strategy_change(history) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ((), None),
        ((3, 3, 3), None),  # fewer than 4 entries
        ((1, 1, 1, 1), "fatigued"),
        ((2, 2, 5, 2, 2), "fatigued"),  # 4 of 5 are ≤ 2
        ((1, 2, 5, 5, 2, 1), "fatigued"),  # exactly 4 of 6 are ≤ 2
        ((1, 2, 5, 5, 3, 1), "stable"),  # only 3 are ≤ 2; halves 8/3 → 9/3 = +0.33
        ((1, 2, 3, 4), "deepening"),  # halves (1+2)/2=1.5 → (3+4)/2=3.5: +2.0
        ((2, 3, 3, 3), "deepening"),  # 2.5 → 3.0 = +0.5: the threshold is inclusive
        ((3, 3, 3, 4), "deepening"),  # (3,3)=3.0 → (3,4)=3.5 = +0.5
        ((3, 3, 2, 4), "stable"),  # (3,3)=3.0 → (2,4)=3.0 = 0
        ((5, 4, 3, 2), "shallowing"),  # 4.5 → 2.5 = −2.0
        ((4, 4, 4, 3), "shallowing"),  # 4.0 → 3.5 = −0.5: inclusive
        ((4, 4, 4, 4, 3), "shallowing"),  # odd window, middle excluded: (4,4)=4.0 → (4,3)=3.5 = −0.5
        ((3, 3, 3, 3, 3, 3), "stable"),
        ((3, 3, 4, 3, 4, 4), "stable"),  # (3+3+4)/3 → (3+4+4)/3 = +0.33
        ((2, 3, 3, 3, 3, 4), "deepening"),  # 8/3 → 10/3 = +0.67
        ((1, 1, 1, 4, 4, 4, 4, 4, 4), "stable"),  # only the last 6 count: the 1s fall out
        ((4, 4, 1, 3, 3), "shallowing"),  # odd window: middle 1 excluded; (4,4) → (3,3) = −1
    ],
)
def test_response_trend(scores: tuple[int, ...], expected: str | None) -> None:
    assert f.response_trend(scores) == expected


@pytest.mark.parametrize(
    ("delta", "peak", "expected"),
    [(0, 0, 0.0), (5, 5, 0.0), (0, 5, 1.0), (2, 8, 0.75), (4, 8, 0.5), (9, 8, 0.0), (3, 0, 0.0)],
)
def test_conversation_saturation(delta: int, peak: int, expected: float) -> None:
    assert f.conversation_saturation(delta, peak) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("canonical", "surface", "expected"),
    [(0, 0, 0.0), (3, 0, 0.0), (0, 4, 1.0), (1, 4, 0.75), (4, 4, 0.0), (6, 4, 0.0)],
)
def test_canonical_saturation(canonical: int, surface: int, expected: float) -> None:
    assert f.canonical_saturation(canonical, surface) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("score", "continuous", "category"),
    [(1, 0.0, "surface"), (2, 0.25, "shallow"), (3, 0.5, "moderate"), (4, 0.75, "deep"), (5, 1.0, "deep")],
)
def test_rubric_mapping(score: int, continuous: float, category: str) -> None:
    assert f.rubric_continuous(score) == continuous
    assert f.response_depth_category(score) == category


@pytest.mark.parametrize("bad", [0, 6, -1])
def test_rubric_scores_outside_1_to_5_are_rejected(bad: int) -> None:
    with pytest.raises(ValueError, match="1-5"):
        f.rubric_continuous(bad)
    with pytest.raises(ValueError, match="1-5"):
        f.response_depth_category(bad)


@pytest.mark.parametrize(
    ("turn", "max_turns", "expected"),
    [(0, 20, 0.0), (5, 20, 0.25), (20, 20, 1.0), (25, 20, 1.0), (1, 1, 1.0)],
)
def test_interview_progress(turn: int, max_turns: int, expected: float) -> None:
    assert f.interview_progress(turn, max_turns) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("chain", "levels", "expected"), [(0, 4, 0.0), (2, 4, 0.5), (4, 4, 1.0), (6, 4, 1.0), (3, 0, 0.0)]
)
def test_normalised_depth(chain: float, levels: int, expected: float) -> None:
    assert f.normalised_depth(chain, levels) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("edges", "concepts", "expected"), [(0, 0, 0.0), (3, 1, 0.0), (1, 2, 0.5), (2, 2, 1.0), (6, 4, 0.5)]
)
def test_edge_density(edges: int, concepts: int, expected: float) -> None:
    assert f.edge_density(edges, concepts) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("exhausted", "depths", "tsy", "expected"),
    [
        (True, ["deep"], 1, "exhausted"),
        (False, ["shallow", "deep"], 1, "probe_deeper"),
        (False, ["deep"], 0, "fresh"),  # the deep answer yielded
        (False, ["deep", "shallow"], 2, "fresh"),  # latest answer not deep
        (False, [], 4, "fresh"),
    ],
)
def test_node_opportunity(exhausted: bool, depths: list[str], tsy: int, expected: str) -> None:
    assert f.node_opportunity(exhausted, depths, tsy) == expected
