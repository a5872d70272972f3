"""Protobuf ⇄ domain conversion at the service edge (no logic beyond field mapping)."""

from __future__ import annotations

from shared.errors import InvalidArgumentError
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.slots.v1 import slots_pb2
from shared.llm.base import LLMUsage

from .domain import (
    CanonicalEdge,
    CanonicalState,
    CanonicalStateReport,
    DiscoverSlotsInput,
    DiscoveryResult,
    GraphComparison,
    Slot,
    SlotMapping,
    SlotStatus,
    SurfaceCounts,
    SurfaceEdgeIn,
    SurfaceNodeIn,
)

_STATUS_TO_PB: dict[SlotStatus, slots_pb2.SlotStatus] = {
    SlotStatus.CANDIDATE: slots_pb2.SLOT_STATUS_CANDIDATE,
    SlotStatus.ACTIVE: slots_pb2.SLOT_STATUS_ACTIVE,
}
_STATUS_FROM_PB: dict[int, SlotStatus] = {int(v): k for k, v in _STATUS_TO_PB.items()}


def discover_request(req: slots_pb2.DiscoverSlotsRequest) -> DiscoverSlotsInput:
    """`DiscoverSlotsRequest` → domain input."""
    return DiscoverSlotsInput(
        session_id=req.session_id,
        turn_number=req.turn_number,
        methodology=req.methodology,
        nodes=tuple(
            SurfaceNodeIn(id=n.node_id, label=n.label, node_type=n.node_type, embedding=tuple(n.embedding))
            for n in req.nodes
        ),
        edges=tuple(
            SurfaceEdgeIn(
                id=e.edge_id,
                source_node_id=e.source_node_id,
                target_node_id=e.target_node_id,
                edge_type=e.edge_type,
            )
            for e in req.edges
        ),
    )


def status_filter(value: int) -> SlotStatus | None:
    """`SlotStatus` enum of a list request → domain filter (UNSPECIFIED = any)."""
    if value == slots_pb2.SLOT_STATUS_UNSPECIFIED:
        return None
    status = _STATUS_FROM_PB.get(value)
    if status is None:
        raise InvalidArgumentError.for_field("status", f"unknown value {value}")
    return status


def surface_counts(req: slots_pb2.GetCanonicalStateRequest) -> SurfaceCounts:
    """The surface counts of a state request (negative values are rejected by validation first)."""
    return SurfaceCounts.model_construct(node_count=req.surface_node_count, edge_count=req.surface_edge_count)


def slot(value: Slot) -> slots_pb2.Slot:
    """Domain slot → `Slot` (promoted_turn 0 while candidate)."""
    return slots_pb2.Slot(
        id=value.id,
        session_id=value.session_id,
        slot_name=value.slot_name,
        description=value.description,
        node_type=value.node_type,
        status=_STATUS_TO_PB[value.status],
        support_count=value.support_count,
        first_seen_turn=value.first_seen_turn,
        promoted_turn=value.promoted_turn or 0,
    )


def mapping(value: SlotMapping) -> slots_pb2.SlotMapping:
    """Domain mapping → `SlotMapping`."""
    return slots_pb2.SlotMapping(
        surface_node_id=value.surface_node_id,
        slot_id=value.slot_id,
        similarity=value.similarity,
        assigned_turn=value.assigned_turn,
    )


def edge(value: CanonicalEdge) -> slots_pb2.CanonicalEdge:
    """Domain canonical edge → `CanonicalEdge`."""
    return slots_pb2.CanonicalEdge(
        id=value.id,
        source_slot_id=value.source_slot_id,
        target_slot_id=value.target_slot_id,
        edge_type=value.edge_type,
        support_count=value.support_count,
        surface_edge_ids=list(value.surface_edge_ids),
    )


def state(value: CanonicalState) -> common_pb2.CanonicalGraphState:
    """Domain metrics → `CanonicalGraphState`."""
    return common_pb2.CanonicalGraphState(
        concept_count=value.concept_count,
        candidate_count=value.candidate_count,
        edge_count=value.edge_count,
        orphan_count=value.orphan_count,
        max_depth=value.max_depth,
        avg_support=value.avg_support,
    )


def comparison(value: GraphComparison) -> common_pb2.GraphComparison:
    """Domain comparison → `GraphComparison`."""
    return common_pb2.GraphComparison(
        surface_node_count=value.surface_node_count,
        surface_edge_count=value.surface_edge_count,
        canonical_concept_count=value.canonical_concept_count,
        canonical_edge_count=value.canonical_edge_count,
        compression_ratio=value.compression_ratio,
    )


def usage(value: LLMUsage) -> common_pb2.LlmUsage:
    """LLM usage → `LlmUsage`."""
    return common_pb2.LlmUsage(
        client=value.client,
        provider=value.provider,
        model=value.model,
        input_tokens=value.input_tokens,
        output_tokens=value.output_tokens,
        cost_usd=value.cost_usd,
        latency_ms=value.latency_ms,
        calls=value.calls,
    )


def discover_response(result: DiscoveryResult) -> slots_pb2.DiscoverSlotsResponse:
    """Domain result → `DiscoverSlotsResponse`."""
    response = slots_pb2.DiscoverSlotsResponse(
        slots_created=[slot(s) for s in result.slots_created],
        slots_updated=[slot(s) for s in result.slots_updated],
        slots_promoted=[slot(s) for s in result.slots_promoted],
        mappings_created=[mapping(m) for m in result.mappings_created],
        canonical_edges_changed=[edge(e) for e in (*result.edges_created, *result.edges_updated)],
        replayed=result.replayed,
        usage=usage(result.llm_usage),
    )
    if result.canonical_state is not None:
        response.canonical_state.CopyFrom(state(result.canonical_state))
    return response


def state_response(report: CanonicalStateReport) -> slots_pb2.GetCanonicalStateResponse:
    """Domain report → `GetCanonicalStateResponse`."""
    return slots_pb2.GetCanonicalStateResponse(
        canonical_state=state(report.state), comparison=comparison(report.comparison)
    )
