"""Saturation counters (stage 5) and the continuation rules (stage 7), as pure functions.

Numbers are SPEC.md's decided defaults; they come from `TerminationRules` so a deployment can tune
them. All inputs come from persisted state, so a restart between turns changes no decision.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from services.orchestrator.contracts import SaturationState
from shared.gen.interview.common.v1 import common_pb2

SHALLOW_DEPTH_SCORE = 2  # rubric 1 → surface, 2 → shallow (SPEC)


@dataclass(frozen=True)
class TerminationRules:
    """Thresholds of the hard stops and saturation rules."""

    min_turn_for_saturation: int = 5
    graph_saturated_turns: int = 5
    quality_degraded_turns: int = 6
    depth_plateau_turns: int = 6
    node_exhausted_turns_without_yield: int = 3


@dataclass(frozen=True)
class TurnYield:
    """What this turn added to the graphs."""

    nodes_created: int
    edges_created: int
    node_count: int
    max_depth: int
    canonical_count: int | None  # active + candidate slots; None when canonical slots are off


def update_saturation(
    previous: SaturationState, turn: TurnYield, *, depth_score: int, counts_as_answer: bool
) -> tuple[SaturationState, int, int]:
    """The counters after this turn, with the surface and canonical deltas.

    `counts_as_answer` is False for clarification and skip requests: such a turn neither counts as a
    shallow answer nor as a zero-yield turn (the respondent did not really answer).
    """
    new_info = turn.nodes_created + turn.edges_created
    surface_delta = turn.nodes_created
    canonical_delta = 0
    if turn.canonical_count is not None:
        canonical_delta = max(0, turn.canonical_count - previous.prev_canonical_count)
    if not counts_as_answer:
        low_info = previous.consecutive_low_info
        shallow = previous.consecutive_shallow
        plateau = previous.consecutive_depth_plateau
    else:
        low_info = previous.consecutive_low_info + 1 if new_info == 0 else 0
        shallow = previous.consecutive_shallow + 1 if depth_score <= SHALLOW_DEPTH_SCORE else 0
        if new_info > 0:
            plateau = 0
        elif turn.max_depth == previous.prev_max_depth:
            plateau = previous.consecutive_depth_plateau + 1
        else:
            plateau = 1
    state = SaturationState(
        consecutive_low_info=low_info,
        consecutive_shallow=shallow,
        consecutive_depth_plateau=plateau,
        prev_max_depth=turn.max_depth,
        surface_velocity_peak=max(previous.surface_velocity_peak, surface_delta),
        prev_surface_node_count=turn.node_count,
        canonical_velocity_peak=max(previous.canonical_velocity_peak, canonical_delta),
        prev_canonical_count=(
            turn.canonical_count if turn.canonical_count is not None else previous.prev_canonical_count
        ),
    )
    return state, surface_delta, canonical_delta


@dataclass(frozen=True)
class FocusedNode:
    """What the exhaustion rule needs of a tracked node."""

    focus_count: int
    turns_since_last_yield: int


@dataclass(frozen=True)
class Decision:
    """The continuation decision."""

    should_continue: bool
    reason: int  # common_pb2.TerminationReason


def decide(
    *,
    turn_number: int,
    max_turns: int,
    phase: int,
    closing_selected: bool,
    stop_requested: bool,
    saturation: SaturationState,
    nodes: Iterable[FocusedNode],
    rules: TerminationRules,
) -> Decision:
    """Apply the respondent's stop, the hard stops, then (from turn 5 or late) the saturation rules."""
    reasons = common_pb2.TerminationReason
    if stop_requested:
        return Decision(False, reasons.TERMINATION_REASON_RESPONDENT_STOP)
    if turn_number >= max_turns:
        return Decision(False, reasons.TERMINATION_REASON_MAX_TURNS)
    if closing_selected:
        return Decision(False, reasons.TERMINATION_REASON_CLOSING_STRATEGY)
    late = phase == common_pb2.INTERVIEW_PHASE_LATE
    if turn_number < rules.min_turn_for_saturation and not late:
        return Decision(True, reasons.TERMINATION_REASON_UNSPECIFIED)
    if saturation.consecutive_low_info >= rules.graph_saturated_turns:
        return Decision(False, reasons.TERMINATION_REASON_GRAPH_SATURATED)
    if saturation.consecutive_shallow >= rules.quality_degraded_turns:
        return Decision(False, reasons.TERMINATION_REASON_QUALITY_DEGRADED)
    if saturation.consecutive_depth_plateau >= rules.depth_plateau_turns:
        return Decision(False, reasons.TERMINATION_REASON_DEPTH_PLATEAU)
    focused = [n for n in nodes if n.focus_count >= 1]
    if focused and all(n.turns_since_last_yield >= rules.node_exhausted_turns_without_yield for n in focused):
        return Decision(False, reasons.TERMINATION_REASON_ALL_NODES_EXHAUSTED)
    return Decision(True, reasons.TERMINATION_REASON_UNSPECIFIED)
