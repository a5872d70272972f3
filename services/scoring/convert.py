"""Protobuf ⇄ domain conversion for the scoring service, with field-level validation.

Every check records a violation on a `Violations` collector (field paths as in the request, e.g.
`inputs.node_tracker.states[3].all_response_depths[0]`); the servicer raises them all at once.
"""

from __future__ import annotations

from collections.abc import Callable

from services.scoring.engine import Detection, Selection
from services.scoring.models import CanonicalMetrics, GraphMetrics, SelectionMode, SignalInputs, Velocity
from services.scoring.ranking import ScoredCandidate
from services.scoring.registry import SignalScalar
from services.scoring.rubric.models import RUBRIC_DIMENSIONS, Rubric, RubricScore
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.scoring.v1 import scoring_pb2
from shared.llm.base import LLMUsage
from shared.methodology_models import FocusMode, InterviewPhase
from shared.node_state import RESPONSE_DEPTHS, NodeState
from shared.node_tracker import NODE_TRACKER_SCHEMA_VERSION, NodeStateTracker
from shared.validation import Violations

MAX_STRATEGY_HISTORY = 30

MODES_FROM_PROTO = {
    scoring_pb2.SELECTION_MODE_JOINT: SelectionMode.JOINT,
    scoring_pb2.SELECTION_MODE_TWO_STAGE: SelectionMode.TWO_STAGE,
}
MODES_TO_PROTO = {v: k for k, v in MODES_FROM_PROTO.items()}
FOCUS_MODES = {
    FocusMode.RECENT_NODE: common_pb2.FOCUS_MODE_RECENT_NODE,
    FocusMode.SUMMARY: common_pb2.FOCUS_MODE_SUMMARY,
    FocusMode.TOPIC: common_pb2.FOCUS_MODE_TOPIC,
}
PHASES = {
    InterviewPhase.EARLY: common_pb2.INTERVIEW_PHASE_EARLY,
    InterviewPhase.MID: common_pb2.INTERVIEW_PHASE_MID,
    InterviewPhase.LATE: common_pb2.INTERVIEW_PHASE_LATE,
}


# -- requests ---------------------------------------------------------------------------------------


def mode_from_proto(value: int, v: Violations) -> SelectionMode | None:
    """The requested mode (None = the service default); an unknown enum value is a violation."""
    if value == scoring_pb2.SELECTION_MODE_UNSPECIFIED:
        return None
    mode = MODES_FROM_PROTO.get(value)  # type: ignore[call-overload]
    if mode is None:
        v.add("mode", f"unknown selection mode {value}")
    return mode


def rubric_from_proto(msg: scoring_pb2.RubricResult, v: Violations) -> Rubric | None:
    """A given rubric: exactly the six dimensions, each 1–5 (None when no score is given)."""
    if not msg.scores:
        return None
    scores: dict[str, RubricScore] = {}
    for i, item in enumerate(msg.scores):
        if item.name not in RUBRIC_DIMENSIONS:
            v.add(
                f"scores[{i}].name",
                f"unknown dimension {item.name!r}; expected one of {', '.join(RUBRIC_DIMENSIONS)}",
            )
        elif item.name in scores:
            v.add(f"scores[{i}].name", f"duplicate dimension {item.name!r}")
        elif not 1 <= item.score <= 5:
            v.add(f"scores[{i}].score", "must be between 1 and 5")
        else:
            scores[item.name] = RubricScore(name=item.name, score=item.score, rationale=item.rationale)
    missing = [d for d in RUBRIC_DIMENSIONS if d not in scores and d not in {s.name for s in msg.scores}]
    if missing:
        v.add("scores", f"missing dimension(s): {', '.join(missing)}")
    usage = LLMUsage(
        client=msg.usage.client,
        provider=msg.usage.provider,
        model=msg.usage.model,
        input_tokens=msg.usage.input_tokens,
        output_tokens=msg.usage.output_tokens,
        cost_usd=msg.usage.cost_usd,
        latency_ms=msg.usage.latency_ms,
        calls=msg.usage.calls,
    )
    return Rubric(scores=scores, usage=usage) if len(scores) == len(RUBRIC_DIMENSIONS) else None


_COUNTERS = (
    "created_at_turn",
    "focus_count",
    "last_focus_turn",
    "current_focus_streak",
    "last_yield_turn",
    "turns_since_last_yield",
    "yield_count",
    "edge_count_outgoing",
    "edge_count_incoming",
    "consecutive_same_strategy",
)
_KNOWN_DEPTHS = frozenset(RESPONSE_DEPTHS)


def _plainly_valid(msg: common_pb2.NodeState, turn_number: int) -> bool:
    """Whether `_check_node_state` would record nothing, in one expression: the collector's call
    and message per check cost ~1 ms per request on a 150-node tracker, and a valid tracker (every
    turn's) needs none of them."""
    return (
        bool(msg.node_id)
        and min(
            msg.created_at_turn,
            msg.focus_count,
            msg.last_focus_turn,
            msg.current_focus_streak,
            msg.last_yield_turn,
            msg.turns_since_last_yield,
            msg.yield_count,
            msg.edge_count_outgoing,
            msg.edge_count_incoming,
            msg.consecutive_same_strategy,
        )
        >= 0
        and (
            turn_number < 1
            or max(msg.created_at_turn, msg.last_focus_turn, msg.last_yield_turn) <= turn_number
        )
        and _KNOWN_DEPTHS.issuperset(msg.all_response_depths)
    )


def _node_state(msg: common_pb2.NodeState) -> NodeState:
    return NodeState(
        node_id=msg.node_id,
        label=msg.label,
        created_at_turn=msg.created_at_turn,
        depth=msg.depth,
        node_type=msg.node_type,
        is_terminal=msg.is_terminal,
        level=msg.level,
        focus_count=msg.focus_count,
        last_focus_turn=msg.last_focus_turn or None,
        current_focus_streak=msg.current_focus_streak,
        last_yield_turn=msg.last_yield_turn or None,
        turns_since_last_yield=msg.turns_since_last_yield,
        yield_count=msg.yield_count,
        yield_rate=msg.yield_rate,
        all_response_depths=list(msg.all_response_depths),
        connected_node_ids=set(msg.connected_node_ids),
        edge_count_outgoing=msg.edge_count_outgoing,
        edge_count_incoming=msg.edge_count_incoming,
        strategy_usage_count=dict(msg.strategy_usage_count),
        last_strategy_used=msg.last_strategy_used or None,
        consecutive_same_strategy=msg.consecutive_same_strategy,
    )


def _check_node_state(msg: common_pb2.NodeState, turn_number: int, v: Violations) -> None:
    """Record every violation of one node state (field paths relative to the state)."""
    v.check(bool(msg.node_id), "node_id", "must not be empty")
    for name in _COUNTERS:
        v.check(getattr(msg, name) >= 0, name, "must not be negative")
    for name in ("created_at_turn", "last_focus_turn", "last_yield_turn"):
        if turn_number < 1:
            break  # turn_number itself is invalid (reported on its own field)
        v.check(getattr(msg, name) <= turn_number, name, f"must not be after turn_number {turn_number}")
    for i, depth in enumerate(msg.all_response_depths):
        v.check(
            depth in RESPONSE_DEPTHS,
            f"all_response_depths[{i}]",
            f"unknown depth {depth!r}; expected one of {', '.join(RESPONSE_DEPTHS)}",
        )


def tracker_from_proto(msg: common_pb2.NodeTrackerState, turn_number: int, v: Violations) -> NodeStateTracker:
    """The tracker as of `turn_number` (`turns_since_last_focus` recomputed for that turn; the yield
    counter is taken as sent, since it counts answers, not turns).

    An empty message (no states, version 0) is a fresh tracker; otherwise the version must be one
    this service understands.
    """
    if not msg.states and not msg.previous_focus and msg.schema_version == 0:
        return NodeStateTracker()
    if msg.schema_version != NODE_TRACKER_SCHEMA_VERSION:
        v.add(
            "schema_version",
            f"unsupported node tracker schema_version {msg.schema_version}; "
            f"this service reads version {NODE_TRACKER_SCHEMA_VERSION}",
        )
    states: list[NodeState] = []
    seen: set[str] = set()
    for i, raw in enumerate(msg.states):
        if raw.node_id in seen or not _plainly_valid(raw, turn_number):
            with v.nested(f"states[{i}]") as nv:
                _check_node_state(raw, turn_number, nv)
                if raw.node_id in seen:
                    nv.add("node_id", f"duplicate node id {raw.node_id!r}")
        seen.add(raw.node_id)
        states.append(_node_state(raw))
    if msg.previous_focus and msg.previous_focus not in seen:
        v.add("previous_focus", f"{msg.previous_focus!r} is not one of the tracked states")
    return NodeStateTracker.from_states(states, previous_focus=msg.previous_focus or None, clock=turn_number)


def inputs_from_proto(
    msg: scoring_pb2.SignalInputs,
    v: Violations,
    *,
    max_text_chars: int,
    methodology_exists: Callable[[str], bool],
) -> SignalInputs:
    """Validated domain inputs (violations recorded on `v` with an `inputs.` prefix by the caller)."""
    if v.check(bool(msg.methodology), "methodology", "must not be empty"):
        v.check(
            methodology_exists(msg.methodology), "methodology", f"unknown methodology {msg.methodology!r}"
        )
    if msg.session_id:
        v.require_id(msg.session_id, "session_id")
    v.check(msg.turn_number >= 1, "turn_number", "must be >= 1")
    v.check(msg.max_turns >= 1, "max_turns", "must be >= 1")
    v.require_text(msg.answer, "answer", max_text_chars, allow_empty=True)
    v.require_text(msg.question, "question", max_text_chars, allow_empty=True)
    v.check(
        len(msg.strategy_history) <= MAX_STRATEGY_HISTORY,
        "strategy_history",
        f"must hold at most {MAX_STRATEGY_HISTORY} entries",
    )
    for i, score in enumerate(msg.response_depth_history):
        v.check(1 <= score <= 5, f"response_depth_history[{i}]", "must be between 1 and 5")
    for name in ("surface_delta", "surface_peak", "canonical_delta"):
        v.check(getattr(msg.velocity, name) >= 0, f"velocity.{name}", "must not be negative")
    g = msg.graph_state
    for name in ("node_count", "edge_count", "orphan_count"):
        v.check(getattr(g, name) >= 0, f"graph_state.{name}", "must not be negative")
    v.check(g.depth.max_depth >= 0 and g.depth.avg_depth >= 0, "graph_state.depth", "must not be negative")
    v.check(0.0 <= g.chain_completion.ratio <= 1.0, "graph_state.chain_completion.ratio", "must be in [0, 1]")
    c = msg.canonical_state
    for name in ("concept_count", "candidate_count", "edge_count", "orphan_count", "max_depth"):
        v.check(getattr(c, name) >= 0, f"canonical_state.{name}", "must not be negative")
    with v.nested("rubric") as rv:
        rubric = rubric_from_proto(msg.rubric, rv)
    if not msg.rubric.scores and not msg.answer.strip():
        v.add("answer", "must not be empty when no rubric is given")
    with v.nested("node_tracker") as tv:
        tracker = tracker_from_proto(msg.node_tracker, msg.turn_number, tv)
    if v:
        v.raise_if_any()
    return SignalInputs(
        session_id=msg.session_id,
        methodology=msg.methodology,
        turn_number=msg.turn_number,
        max_turns=msg.max_turns,
        graph=GraphMetrics(
            node_count=g.node_count,
            edge_count=g.edge_count,
            orphan_count=g.orphan_count,
            max_depth=g.depth.max_depth,
            avg_depth=g.depth.avg_depth,
            chain_completion_ratio=g.chain_completion.ratio,
            chain_completion_has_complete=g.chain_completion.has_complete,
        ),
        canonical=CanonicalMetrics(
            concept_count=c.concept_count,
            candidate_count=c.candidate_count,
            edge_count=c.edge_count,
            orphan_count=c.orphan_count,
            max_depth=c.max_depth,
            avg_support=max(c.avg_support, 0.0),
        )
        if msg.HasField("canonical_state")
        else None,
        canonical_enabled=msg.canonical_enabled,
        tracker=tracker,
        answer=msg.answer,
        question=msg.question,
        strategy_history=tuple(msg.strategy_history),
        response_depth_history=tuple(msg.response_depth_history),
        velocity=Velocity(
            surface_delta=msg.velocity.surface_delta,
            surface_peak=msg.velocity.surface_peak,
            canonical_delta=msg.velocity.canonical_delta,
        ),
        rubric=rubric,
    )


# -- responses --------------------------------------------------------------------------------------


def signal_value(value: SignalScalar) -> common_pb2.SignalValue:
    """A typed SignalValue (bool is checked before int: bool is an int subclass)."""
    out = common_pb2.SignalValue()
    set_signal_value(out, value)
    return out


def set_signal_value(target: common_pb2.SignalValue, value: SignalScalar) -> None:
    """Fill `target` in place (no intermediate message: a large decomposition has thousands)."""
    if isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, int):
        target.int_value = value
    elif isinstance(value, float):
        target.double_value = value
    else:
        target.string_value = str(value)


def rubric_to_proto(rubric: Rubric | None) -> scoring_pb2.RubricResult:
    """The rubric in dimension order (an empty message when no rubric was used)."""
    if rubric is None:
        return scoring_pb2.RubricResult()
    u = rubric.usage
    return scoring_pb2.RubricResult(
        scores=[
            common_pb2.RubricScore(name=s.name, score=s.score, rationale=s.rationale)
            for s in (rubric.scores[d] for d in RUBRIC_DIMENSIONS if d in rubric.scores)
        ],
        usage=common_pb2.LlmUsage(
            client=u.client,
            provider=u.provider,
            model=u.model,
            input_tokens=u.input_tokens,
            output_tokens=u.output_tokens,
            cost_usd=u.cost_usd,
            latency_ms=u.latency_ms,
            calls=u.calls,
        ),
    )


def _fill_signals(
    detection: Detection, out: scoring_pb2.DetectSignalsResponse | scoring_pb2.SelectStrategyResponse
) -> None:
    for name, value in detection.signals.global_signals.items():
        set_signal_value(out.signals[name], value)
    for key, values in detection.signals.node_signals.items():
        item = out.node_signals.add(node_id=key)
        for name, value in values.items():
            set_signal_value(item.signals[name], value)


def detection_to_proto(detection: Detection) -> scoring_pb2.DetectSignalsResponse:
    """DetectSignals response."""
    out = scoring_pb2.DetectSignalsResponse(rubric=rubric_to_proto(detection.rubric))
    _fill_signals(detection, out)
    return out


def _fill_candidate(item: common_pb2.ScoredCandidate, c: ScoredCandidate) -> None:
    # Messages are built in place (`add`, then set fields): constructing each contribution and
    # candidate separately and copying it into its parent took 3x longer, and a 150-node session
    # sends ~1 000 candidates per turn (bench/bench_scoring.py, selection_to_proto).
    item.strategy = c.strategy
    item.node_id = c.node_id or ""
    item.node_label = c.node_label
    item.base_score = c.base_score
    item.phase_multiplier = c.phase_multiplier
    item.phase_bonus = c.phase_bonus
    item.final_score = c.final_score
    item.rank = c.rank
    item.selected = c.selected
    add = item.contributions.add
    for x in c.contributions:
        contribution = add(
            weight_key=x.weight_key,
            signal_name=x.signal_name,
            weight=x.weight,
            contribution=x.contribution,
            node_scoped=x.node_scoped,
        )
        set_signal_value(contribution.raw_value, x.raw_value)


def candidate_to_proto(c: ScoredCandidate) -> common_pb2.ScoredCandidate:
    """One candidate with its decomposition."""
    out = common_pb2.ScoredCandidate()
    _fill_candidate(out, c)
    return out


def selection_to_proto(
    selection: Selection, *, alternatives_limit: int = 0, decomposition_limit: int = 0
) -> scoring_pb2.SelectStrategyResponse:
    """SelectStrategy response (limits of 0 mean all candidates)."""
    out = scoring_pb2.SelectStrategyResponse(
        strategy=selection.strategy,
        focus_node_id=selection.focus_node_id or "",
        focus_mode=FOCUS_MODES[selection.focus_mode],
        generates_closing_question=selection.generates_closing_question,
        phase=PHASES[selection.phase],
        rubric=rubric_to_proto(selection.detection.rubric),
        mode=MODES_TO_PROTO[selection.mode],
    )
    _fill_signals(selection.detection, out)
    for alt in selection.alternatives(alternatives_limit or None):
        out.alternatives.append(
            common_pb2.StrategyAlternative(
                strategy=alt.strategy, node_id=alt.node_id or "", score=alt.score, rank=alt.rank
            )
        )
    # Best first: the selected candidate (rank 1) is always among those returned.
    candidates = selection.candidates[:decomposition_limit] if decomposition_limit else selection.candidates
    add = out.decomposition.add
    for c in candidates:
        _fill_candidate(add(), c)
    return out
