"""The signal formulas of SPEC.md as small pure functions (the detectors call these; tests table-drive them).

Where SPEC leaves a detail open, the choice is written next to the function.
"""

from __future__ import annotations

from collections.abc import Sequence

from shared.node_state import RESPONSE_DEPTHS

# -- bands ------------------------------------------------------------------------------------------


def focus_streak_band(streak: int) -> str:
    """SPEC focus-streak bands: 0 none, 1 low, 2–3 medium, ≥ 4 high."""
    if streak <= 0:
        return "none"
    if streak == 1:
        return "low"
    if streak <= 3:
        return "medium"
    return "high"


def focus_count_band(count: int) -> str:
    """SPEC focus-count bands: 0 none, 1–2 low, 3–4 medium, ≥ 5 high."""
    if count <= 0:
        return "none"
    if count <= 2:
        return "low"
    if count <= 4:
        return "medium"
    return "high"


# -- node exhaustion --------------------------------------------------------------------------------

EXHAUSTED_MIN_TURNS_SINCE_YIELD = 3
EXHAUSTED_MIN_STREAK = 2
# 2/3 as an exact fraction test (count·3 ≥ 2·n) lives in `is_exhausted`; this is for documentation.
EXHAUSTED_MIN_SHALLOW_SHARE = 2 / 3
STAGNATION_TURNS = 3
RECENCY_HORIZON = 20


def exhaustion_score(turns_since_yield: int, focus_streak: int, shallow_share: float) -> float:
    """0.4·min(tsy,10)/10 + 0.3·min(streak,5)/5 + 0.3·shallow share (SPEC)."""
    return (
        0.4 * min(max(turns_since_yield, 0), 10) / 10
        + 0.3 * min(max(focus_streak, 0), 5) / 5
        + 0.3 * min(max(shallow_share, 0.0), 1.0)
    )


def is_exhausted(focus_count: int, turns_since_yield: int, focus_streak: int, shallow_share: float) -> bool:
    """SPEC: focus_count ≥ 1, turns_since_yield ≥ 3, focus_streak ≥ 2 and shallow share ≥ 2/3."""
    # A small epsilon keeps 2/3 computed as 2/3 (0.666…) on the right side of the boundary.
    return (
        focus_count >= 1
        and turns_since_yield >= EXHAUSTED_MIN_TURNS_SINCE_YIELD
        and focus_streak >= EXHAUSTED_MIN_STREAK
        and shallow_share >= EXHAUSTED_MIN_SHALLOW_SHARE - 1e-9
    )


def yield_stagnation(turns_since_yield: int) -> bool:
    """SPEC: three or more turns without yield."""
    return turns_since_yield >= STAGNATION_TURNS


def recency_score(turns_since_focus: int) -> float:
    """max(0, 1 − turns_since_focus/20) (SPEC)."""
    return max(0.0, 1.0 - max(turns_since_focus, 0) / RECENCY_HORIZON)


def node_opportunity(exhausted: bool, response_depths: Sequence[str], turns_since_yield: int) -> str:
    """`meta.node.opportunity`: exhausted / probe_deeper / fresh.

    SPEC gives only "probe_deeper (deep answers, no yield)"; we read it as: the node's latest answer
    was deep (rubric 4–5) and that answer produced no yield (turns_since_yield ≥ 1).
    """
    if exhausted:
        return "exhausted"
    if response_depths and response_depths[-1] == "deep" and turns_since_yield >= 1:
        return "probe_deeper"
    return "fresh"


# -- temporal ---------------------------------------------------------------------------------------

REPETITION_WINDOW = 5


def strategy_repetition_count(history: Sequence[str]) -> float:
    """Occurrences of the last strategy among the last 5, divided by 5 (0 with no history)."""
    if not history:
        return 0.0
    window = history[-REPETITION_WINDOW:]
    return window.count(history[-1]) / REPETITION_WINDOW


def turns_since_strategy_change(history: Sequence[str]) -> float:
    """min(run length of the last strategy / 5, 1); 0 with fewer than 2 entries (SPEC)."""
    if len(history) < 2:
        return 0.0
    last = history[-1]
    run = 0
    for name in reversed(history):
        if name != last:
            break
        run += 1
    return min(run / REPETITION_WINDOW, 1.0)


# -- llm --------------------------------------------------------------------------------------------

TREND_WINDOW = 6
TREND_MIN_ENTRIES = 4
TREND_FATIGUE_COUNT = 4
TREND_DELTA = 0.5


def rubric_continuous(score: int) -> float:
    """A 1–5 rubric score normalised to [0, 1]: (s − 1)/4."""
    if not 1 <= score <= 5:
        raise ValueError(f"rubric score must be 1-5, got {score}")
    return (score - 1) / 4


def response_depth_category(score: int) -> str:
    """1 → surface, 2 → shallow, 3 → moderate, 4–5 → deep."""
    if not 1 <= score <= 5:
        raise ValueError(f"rubric score must be 1-5, got {score}")
    return RESPONSE_DEPTHS[min(score, 4) - 1]


def response_trend(depth_scores: Sequence[int]) -> str | None:
    """`llm.global_response_trend` over the last 6 depth scores (None with fewer than 4).

    fatigued when ≥ 4 of them are ≤ 2; otherwise the difference of the halves' means decides
    (≥ +0.5 deepening, ≤ −0.5 shallowing, else stable). For an odd window (5 entries) the middle
    entry belongs to neither half, so both halves have the same size.
    """
    window = list(depth_scores[-TREND_WINDOW:])
    if len(window) < TREND_MIN_ENTRIES:
        return None
    if sum(1 for s in window if s <= 2) >= TREND_FATIGUE_COUNT:
        return "fatigued"
    half = len(window) // 2
    first, second = window[:half], window[-half:]
    delta = sum(second) / half - sum(first) / half
    if delta >= TREND_DELTA - 1e-9:
        return "deepening"
    if delta <= -TREND_DELTA + 1e-9:
        return "shallowing"
    return "stable"


# -- meta -------------------------------------------------------------------------------------------


def interview_progress(turn_number: int, max_turns: int) -> float:
    """turn_number / max_turns, clamped to [0, 1]."""
    if max_turns < 1:
        return 0.0
    return min(1.0, max(0.0, turn_number / max_turns))


def conversation_saturation(surface_delta: int, surface_peak: int) -> float:
    """1 − min(current delta / peak delta, 1); 0 while no turn has yielded anything (peak 0).

    The peak includes the current turn, so it is at least the current delta.
    """
    peak = max(surface_peak, surface_delta)
    if peak <= 0:
        return 0.0
    return 1.0 - min(max(surface_delta, 0) / peak, 1.0)


def canonical_saturation(canonical_delta: int, surface_delta: int) -> float:
    """1 − min(canonical delta / surface delta, 1); 0 when there are no new surface nodes (SPEC)."""
    if surface_delta <= 0:
        return 0.0
    return 1.0 - min(max(canonical_delta, 0) / surface_delta, 1.0)


# -- graph ------------------------------------------------------------------------------------------


def normalised_depth(chain_nodes: float, level_count: int) -> float:
    """A depth in nodes relative to the number of ontology levels, capped at 1 (0 without levels)."""
    if level_count <= 0:
        return 0.0
    return min(1.0, max(0.0, chain_nodes / level_count))


def edge_density(edge_count: int, concept_count: int) -> float:
    """Directed density edges / (n·(n − 1)), capped at 1; 0 with fewer than two concepts."""
    if concept_count < 2:
        return 0.0
    return min(1.0, max(edge_count, 0) / (concept_count * (concept_count - 1)))
