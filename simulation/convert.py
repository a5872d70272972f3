"""Public-API protobuf messages → the simulation's records (the only module that reads protobuf)."""

from __future__ import annotations

from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from simulation.records import (
    Contribution,
    GraphEdge,
    GraphNode,
    GraphSnapshot,
    RankedCandidate,
    SessionSummary,
    SignalScalar,
    TurnRecord,
    Usage,
)


def _enum(enum_type: object, value: int, prefix: str) -> str:
    name: str = enum_type.Name(value)  # type: ignore[attr-defined]
    return name.removeprefix(prefix).lower()


def termination_name(value: int) -> str:
    """`TERMINATION_REASON_MAX_TURNS` → `max_turns` (`unspecified` while running)."""
    return _enum(common_pb2.TerminationReason, value, "TERMINATION_REASON_")


def signal_value(value: common_pb2.SignalValue) -> SignalScalar | None:
    """The set member of a SignalValue oneof, or None when nothing is set."""
    kind = value.WhichOneof("kind")
    if kind is None:
        return None
    result: SignalScalar = getattr(value, kind)
    return result


def usage_of(summary: pb.UsageSummary) -> Usage:
    """A UsageSummary as a `Usage` with a per-client breakdown."""
    total = summary.total
    by_client = {
        u.client or f"client{i}": Usage(
            input_tokens=u.input_tokens, output_tokens=u.output_tokens, cost_usd=u.cost_usd, calls=u.calls
        )
        for i, u in enumerate(summary.by_client)
    }
    return Usage(
        input_tokens=total.input_tokens,
        output_tokens=total.output_tokens,
        cost_usd=total.cost_usd,
        calls=total.calls,
        by_client=by_client,
    )


# How many of a turn's ranked candidates a record keeps: enough to see what the choice beat.
CANDIDATES_KEPT = 5


def ranked_candidates(result: pb.TurnResult, keep: int = CANDIDATES_KEPT) -> list[RankedCandidate]:
    """The `keep` best candidates of the turn's score decomposition, best first."""
    best = sorted(result.score_decomposition, key=lambda c: c.rank)[:keep]
    return [
        RankedCandidate(
            rank=c.rank,
            strategy=c.strategy,
            focus_label=c.node_label,
            score=round(c.final_score, 4),
            base_score=round(c.base_score, 4),
            phase_multiplier=c.phase_multiplier,
            phase_bonus=c.phase_bonus,
            selected=c.selected,
            contributions=[
                Contribution(weight_key=k.weight_key, weight=k.weight, contribution=round(k.contribution, 4))
                for k in c.contributions
            ],
        )
        for c in best
    ]


def turn_record(question: str, answer: str, result: pb.TurnResult) -> TurnRecord:
    """The orchestrator's side of one turn (the respondent's side is added by the runner)."""
    signals: dict[str, SignalScalar] = {}
    for name, value in result.signals.items():
        scalar = signal_value(value)
        if scalar is not None:
            signals[name] = scalar
    state = result.graph_state
    return TurnRecord(
        turn=result.turn_number,
        question=question,
        answer=answer,
        strategy=result.strategy_selected,
        focus_node_id=result.focus_node_id,
        focus_label=result.focus_label,
        next_question=result.next_question,
        should_continue=result.should_continue,
        termination_reason=termination_name(result.termination_reason),
        intent=_enum(common_pb2.RespondentIntent, result.intent, "RESPONDENT_INTENT_"),
        phase=_enum(common_pb2.InterviewPhase, result.phase, "INTERVIEW_PHASE_"),
        node_count=state.node_count,
        edge_count=state.edge_count,
        nodes_added=len(result.nodes_added),
        edges_added=len(result.edges_added),
        max_depth=state.depth.max_depth,
        chain_completion_ratio=state.chain_completion.ratio,
        extraction_skipped=result.extracted.skipped,
        signals=signals,
        candidates=ranked_candidates(result),
        usage=usage_of(result.usage),
        latency_ms=result.latency_ms,
    )


def graph_snapshot(response: pb.GetSessionGraphResponse) -> GraphSnapshot:
    """The final surface graph."""
    labels = {n.id: n.label for n in response.nodes}
    state = response.graph_state
    return GraphSnapshot(
        nodes=[_node(n) for n in response.nodes],
        edges=[_edge(e) for e in response.edges],
        max_depth=state.depth.max_depth,
        max_depth_normalized=state.depth.max_depth_normalized,
        chain_completion_ratio=state.chain_completion.ratio,
        has_complete_chain=state.chain_completion.has_complete,
        complete_chain_count=state.chain_completion.complete_chain_count,
        longest_chain=[labels.get(i, i) for i in state.depth.longest_chain_path],
        longest_chain_edge_types=list(state.depth.longest_chain_edge_types),
        canonical_slot_count=len(response.slots),
        slot_of={m.surface_node_id: m.slot_id for m in response.mappings},
    )


def _node(n: common_pb2.Node) -> GraphNode:
    return GraphNode(
        id=n.id,
        label=n.label,
        node_type=n.node_type,
        level=n.level,
        is_terminal=n.is_terminal,
        created_turn=n.created_turn,
        superseded_by=n.superseded_by,
    )


def _edge(e: common_pb2.Edge) -> GraphEdge:
    return GraphEdge(
        id=e.id,
        source=e.source_node_id,
        target=e.target_node_id,
        edge_type=e.edge_type,
        created_turn=e.created_turn,
    )


def session_summary(response: pb.GetSessionResponse) -> SessionSummary:
    """The session at the end of the run."""
    s = response.session
    return SessionSummary(
        session_id=s.session_id,
        status=pb.SessionStatus.Name(s.status).removeprefix("SESSION_STATUS_").lower(),
        termination_reason=termination_name(s.termination_reason),
        turn_count=s.turn_count,
        max_turns=s.max_turns,
        strategy_history=list(s.strategy_history),
        usage=usage_of(s.usage),
        transcript_length=len(response.transcript),
    )
