"""Saturation counters and continuation rules (SPEC: decided defaults)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypedDict

import pytest

from services.orchestrator.contracts import SaturationState
from services.orchestrator.rules import (
    Decision,
    FocusedNode,
    TerminationRules,
    TurnYield,
    decide,
    update_saturation,
)
from shared.gen.interview.common.v1 import common_pb2

R = common_pb2.TerminationReason
RULES = TerminationRules()


def _yield(
    nodes: int = 0, edges: int = 0, count: int = 5, depth: int = 2, canonical: int | None = None
) -> TurnYield:
    return TurnYield(
        nodes_created=nodes, edges_created=edges, node_count=count, max_depth=depth, canonical_count=canonical
    )


def test_zero_yield_turns_accumulate_and_a_yield_resets_them() -> None:
    state = SaturationState()
    for expected in (1, 2, 3):
        state, _, _ = update_saturation(state, _yield(), depth_score=4, counts_as_answer=True)
        assert state.consecutive_low_info == expected
    state, delta, _ = update_saturation(state, _yield(nodes=2, count=7), depth_score=4, counts_as_answer=True)
    assert (state.consecutive_low_info, delta, state.surface_velocity_peak) == (0, 2, 2)


def test_shallow_counts_scores_one_and_two_only() -> None:
    state = SaturationState()
    state, _, _ = update_saturation(state, _yield(nodes=1), depth_score=2, counts_as_answer=True)
    state, _, _ = update_saturation(state, _yield(nodes=1), depth_score=1, counts_as_answer=True)
    assert state.consecutive_shallow == 2
    state, _, _ = update_saturation(state, _yield(nodes=1), depth_score=3, counts_as_answer=True)
    assert state.consecutive_shallow == 0


def test_depth_plateau_counts_only_zero_yield_turns_at_the_same_depth() -> None:
    state = SaturationState(prev_max_depth=2)
    state, _, _ = update_saturation(state, _yield(depth=2), depth_score=3, counts_as_answer=True)
    state, _, _ = update_saturation(state, _yield(depth=2), depth_score=3, counts_as_answer=True)
    assert state.consecutive_depth_plateau == 2
    state, _, _ = update_saturation(state, _yield(nodes=1, depth=2), depth_score=3, counts_as_answer=True)
    assert state.consecutive_depth_plateau == 0


def test_clarification_and_skip_turns_change_no_counter() -> None:
    before = SaturationState(
        consecutive_low_info=3, consecutive_shallow=4, consecutive_depth_plateau=2, prev_max_depth=2
    )
    after, _, _ = update_saturation(before, _yield(), depth_score=1, counts_as_answer=False)
    assert (after.consecutive_low_info, after.consecutive_shallow, after.consecutive_depth_plateau) == (
        3,
        4,
        2,
    )


def test_canonical_delta_and_peak() -> None:
    state = SaturationState(prev_canonical_count=3)
    state, _, canonical = update_saturation(
        state, _yield(nodes=2, canonical=5), depth_score=3, counts_as_answer=True
    )
    assert canonical == 2 and state.prev_canonical_count == 5 and state.canonical_velocity_peak == 2


class _DecideArgs(TypedDict, total=False):
    turn: int
    max_turns: int
    closing_selected: bool
    stop_requested: bool
    saturation: SaturationState
    nodes: list[FocusedNode]


def _decide(
    turn: int = 6,
    max_turns: int = 20,
    *,
    phase: int = common_pb2.INTERVIEW_PHASE_MID,
    closing_selected: bool = False,
    stop_requested: bool = False,
    saturation: SaturationState | None = None,
    nodes: Iterable[FocusedNode] = (),
) -> Decision:
    return decide(
        turn_number=turn,
        max_turns=max_turns,
        phase=phase,
        closing_selected=closing_selected,
        stop_requested=stop_requested,
        saturation=SaturationState() if saturation is None else saturation,
        nodes=nodes,
        rules=RULES,
    )


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"stop_requested": True, "turn": 1}, R.TERMINATION_REASON_RESPONDENT_STOP),
        ({"turn": 20, "max_turns": 20}, R.TERMINATION_REASON_MAX_TURNS),
        ({"closing_selected": True, "turn": 2}, R.TERMINATION_REASON_CLOSING_STRATEGY),
        ({"saturation": SaturationState(consecutive_low_info=5)}, R.TERMINATION_REASON_GRAPH_SATURATED),
        ({"saturation": SaturationState(consecutive_shallow=6)}, R.TERMINATION_REASON_QUALITY_DEGRADED),
        ({"saturation": SaturationState(consecutive_depth_plateau=6)}, R.TERMINATION_REASON_DEPTH_PLATEAU),
        (
            {"nodes": [FocusedNode(1, 3), FocusedNode(2, 4), FocusedNode(0, 0)]},
            R.TERMINATION_REASON_ALL_NODES_EXHAUSTED,
        ),
    ],
)
def test_each_termination_reason(kwargs: _DecideArgs, reason: int) -> None:
    decision = _decide(**kwargs)
    assert decision == Decision(False, reason)


def test_saturation_rules_wait_for_turn_five_unless_late() -> None:
    saturated = SaturationState(consecutive_low_info=5)
    assert _decide(turn=4, saturation=saturated).should_continue
    late = _decide(turn=4, max_turns=6, saturation=saturated, phase=common_pb2.INTERVIEW_PHASE_LATE)
    assert late.reason == R.TERMINATION_REASON_GRAPH_SATURATED


def test_thresholds_are_exclusive_below() -> None:
    below = SaturationState(consecutive_low_info=4, consecutive_shallow=5, consecutive_depth_plateau=5)
    assert _decide(saturation=below).should_continue
    assert _decide(nodes=[FocusedNode(1, 2), FocusedNode(1, 5)]).should_continue
    assert _decide(nodes=[FocusedNode(0, 9)]).should_continue  # never-focused nodes do not count
