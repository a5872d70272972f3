"""Stages 4-5: graph update, slot discovery and state computation."""

from __future__ import annotations

from services.orchestrator.contracts import (
    ContextLoadingOutput,
    ExtractionOutput,
    GraphUpdateOutput,
    RubricOutput,
    SlotDiscoveryOutput,
    SrlOutput,
    StageName,
    StateComputationOutput,
    UtteranceSavingOutput,
)
from services.orchestrator.pipeline import PipelineContext, Stage
from services.orchestrator.rules import TurnYield, update_saturation
from services.orchestrator.stages.common import StageDeps
from services.orchestrator.tracking import apply_graph_update, load_tracker
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.graph.v1 import graph_pb2
from shared.gen.interview.slots.v1 import slots_pb2

# Turns that are not real answers: they neither count as shallow nor as zero-yield turns.
NOT_AN_ANSWER = {
    common_pb2.RESPONDENT_INTENT_CLARIFICATION_REQUEST,
    common_pb2.RESPONDENT_INTENT_SKIP_REQUEST,
}


class GraphUpdateStage(Stage):
    """Stage 4: apply the extraction to the surface graph (idempotent on the utterance id)."""

    name = StageName.GRAPH_UPDATE

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> GraphUpdateOutput:
        loaded = ctx.get(ContextLoadingOutput)
        saved = ctx.get(UtteranceSavingOutput)
        extraction = ctx.get(ExtractionOutput)
        tracker = load_tracker(loaded.tracker)
        if extraction.skipped_for_intent:
            tracker.advance_to(ctx.turn.turn_number)
            return GraphUpdateOutput(
                response=graph_pb2.ApplyExtractionResponse(), tracker=tracker.to_dict(), skipped=True
            )
        request = graph_pb2.ApplyExtractionRequest(
            session_id=loaded.session_id,
            utterance_id=saved.user_utterance_id,
            turn_number=ctx.turn.turn_number,
            methodology=loaded.methodology,
            utterance_text=ctx.turn.text,
            concepts=extraction.response.concepts,
            relationships=extraction.response.relationships,
        )
        response: graph_pb2.ApplyExtractionResponse = await self._d.deps(
            self._d.deps.graph.ApplyExtraction, request, service="graph_store"
        )
        apply_graph_update(tracker, response, ctx.turn.turn_number)
        return GraphUpdateOutput(response=response, tracker=tracker.to_dict())


class SlotDiscoveryStage(Stage):
    """Stage 4.5: map the turn's new surface nodes to canonical slots (idempotent per turn).

    Inline mode runs it before state computation; deferred mode runs it concurrently with question
    generation, so canonical signals lag one turn but the critical path has one LLM call less.
    """

    name = StageName.SLOT_DISCOVERY

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> SlotDiscoveryOutput:
        loaded = ctx.get(ContextLoadingOutput)
        update = ctx.get(GraphUpdateOutput)
        if not loaded.canonical_enabled:
            return SlotDiscoveryOutput(mode=loaded.slot_mode, skipped=True)
        created = update.response.nodes_created
        edges = [*update.response.edges_created, *update.response.edges_reinforced]
        if not created and not edges:
            return SlotDiscoveryOutput(mode=loaded.slot_mode, skipped=True)
        request = slots_pb2.DiscoverSlotsRequest(
            session_id=loaded.session_id,
            turn_number=ctx.turn.turn_number,
            methodology=loaded.methodology,
            nodes=[
                slots_pb2.SurfaceNodeInput(
                    node_id=n.id, label=n.label, node_type=n.node_type, embedding=n.embedding
                )
                for n in created
            ],
            edges=[
                slots_pb2.SurfaceEdgeInput(
                    edge_id=e.id,
                    source_node_id=e.source_node_id,
                    target_node_id=e.target_node_id,
                    edge_type=e.edge_type,
                )
                for e in edges
            ],
        )
        response: slots_pb2.DiscoverSlotsResponse = await self._d.deps(
            self._d.deps.slots.DiscoverSlots, request, service="canonical_slots"
        )
        return SlotDiscoveryOutput(response=response, mode=loaded.slot_mode)


class StateComputationStage(Stage):
    """Stage 5: fresh surface (and canonical) metrics and the saturation counters."""

    name = StageName.STATE_COMPUTATION

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> StateComputationOutput:
        loaded = ctx.get(ContextLoadingOutput)
        update = ctx.get(GraphUpdateOutput)
        rubric = ctx.get(RubricOutput)
        srl = ctx.get(SrlOutput)
        state_response: graph_pb2.GetGraphStateResponse = await self._d.deps(
            self._d.deps.graph.GetGraphState,
            graph_pb2.GetGraphStateRequest(session_id=loaded.session_id, methodology=loaded.methodology),
            service="graph_store",
        )
        graph_state = state_response.graph_state
        canonical_state = comparison = None
        canonical_count: int | None = None
        if loaded.canonical_enabled:
            canonical: slots_pb2.GetCanonicalStateResponse = await self._d.deps(
                self._d.deps.slots.GetCanonicalState,
                slots_pb2.GetCanonicalStateRequest(
                    session_id=loaded.session_id,
                    surface_node_count=graph_state.node_count,
                    surface_edge_count=graph_state.edge_count,
                ),
                service="canonical_slots",
            )
            canonical_state, comparison = canonical.canonical_state, canonical.comparison
            canonical_count = canonical_state.concept_count + canonical_state.candidate_count
        turn_yield = TurnYield(
            nodes_created=len(update.response.nodes_created),
            edges_created=len(update.response.edges_created),
            node_count=graph_state.node_count,
            max_depth=graph_state.depth.max_depth,
            canonical_count=canonical_count,
        )
        saturation, surface_delta, canonical_delta = update_saturation(
            loaded.state.saturation,
            turn_yield,
            depth_score=rubric.depth_score,
            counts_as_answer=srl.intent not in NOT_AN_ANSWER,
        )
        return StateComputationOutput(
            graph_state=graph_state,
            canonical_state=canonical_state,
            comparison=comparison,
            saturation=saturation,
            new_info=turn_yield.nodes_created + turn_yield.edges_created,
            surface_delta=surface_delta,
            canonical_delta=canonical_delta,
            is_shallow=rubric.depth_score <= 2,
        )
