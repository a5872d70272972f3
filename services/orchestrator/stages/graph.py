"""Stages 4-5: graph update, slot discovery and state computation."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

from services.orchestrator.background import LocalDiscoveries
from services.orchestrator.clients import Dependencies
from services.orchestrator.contracts import (
    ContextLoadingOutput,
    ExtractionOutput,
    GraphUpdateOutput,
    PendingSlotDiscovery,
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
from services.orchestrator.tracking import apply_graph_update, surface_ids
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.graph.v1 import graph_pb2
from shared.gen.interview.slots.v1 import slots_pb2
from shared.node_tracker import NodeStateTracker

# Turns that are not real answers: they neither count as shallow nor as zero-yield turns.
NOT_AN_ANSWER = {
    common_pb2.RESPONDENT_INTENT_CLARIFICATION_REQUEST,
    common_pb2.RESPONDENT_INTENT_SKIP_REQUEST,
}


class GraphUpdateStage(Stage):
    """Stage 4: apply the extraction to the surface graph (idempotent on the utterance id)."""

    name = StageName.GRAPH_UPDATE
    costly = True  # a write in the graph store

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> GraphUpdateOutput:
        loaded = ctx.get(ContextLoadingOutput)
        saved = ctx.get(UtteranceSavingOutput)
        extraction = ctx.get(ExtractionOutput)
        if extraction.skipped_for_intent:
            nothing = graph_pb2.ApplyExtractionResponse()
            tracker = _updated_tracker(loaded, nothing, ctx.turn.turn_number, skipped=True)
            return GraphUpdateOutput(response=nothing, tracker=tracker, skipped=True)
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
        tracker = _updated_tracker(loaded, response, ctx.turn.turn_number, skipped=False)
        return GraphUpdateOutput(response=response, tracker=tracker)

    async def restore(self, ctx: PipelineContext, stored: str) -> GraphUpdateOutput:
        """The checkpoint, with the tracker rebuilt from the context's and the stored response."""
        data = json.loads(stored)
        if "tracker" in data:  # a checkpoint written with it
            return GraphUpdateOutput.model_validate(data)
        out = GraphUpdateOutput.model_validate({**data, "tracker": {}})
        loaded = ctx.get(ContextLoadingOutput)
        tracker = _updated_tracker(loaded, out.response, ctx.turn.turn_number, skipped=out.skipped)
        return out.model_copy(update={"tracker": tracker})


def _updated_tracker(
    loaded: ContextLoadingOutput, response: graph_pb2.ApplyExtractionResponse, turn: int, *, skipped: bool
) -> NodeStateTracker:
    """The session's tracker after the turn's graph update (a copy: the context's stays as read)."""
    tracker = loaded.tracker.copy()
    if skipped:
        tracker.advance_to(turn)
    else:
        apply_graph_update(tracker, response, turn)
    return tracker


def discovery_request(
    loaded: ContextLoadingOutput, update: GraphUpdateOutput, turn_number: int
) -> slots_pb2.DiscoverSlotsRequest | None:
    """The DiscoverSlots request of a turn: its new nodes and new or reinforced edges (None when
    canonical slots are off or the turn added nothing to map)."""
    if not loaded.canonical_enabled or update.skipped:
        return None
    created = update.response.nodes_created
    edges = [*update.response.edges_created, *update.response.edges_reinforced]
    if not created and not edges:
        return None
    return slots_pb2.DiscoverSlotsRequest(
        session_id=loaded.session_id,
        turn_number=turn_number,
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


class SlotDiscoveryStage(Stage):
    """Stage 4.5: map new surface nodes to canonical slots (DiscoverSlots is idempotent per turn).

    Inline mode maps this turn's nodes before state computation (one more LLM round-trip on the
    critical path). Deferred mode sends a turn's request in the background once this stage's reads
    are stored and the graph update is done (`DiscoveryStart`), and the next turn runs this stage
    beside extraction to make sure those earlier discoveries completed (usually a stored-result
    replay): canonical signals lag one turn.
    """

    name = StageName.SLOT_DISCOVERY
    costly = True  # an LLM call and a write in canonical_slots (inline), or a wait for them

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> SlotDiscoveryOutput:
        loaded = ctx.get(ContextLoadingOutput)
        # Earlier deferred discoveries first, in either mode (the mode may have changed since).
        caught_up = await complete_pending(self._d.deps, loaded.state.pending_slots, self._d.discoveries)
        request = (
            discovery_request(loaded, ctx.get(GraphUpdateOutput), ctx.turn.turn_number)
            if loaded.slot_mode == "inline"
            else None
        )
        response: slots_pb2.DiscoverSlotsResponse | None = None
        if request is not None:
            response = await self._d.deps(
                self._d.deps.slots.DiscoverSlots, request, service="canonical_slots"
            )
        runs = [*caught_up, response] if response is not None else caught_up
        self._d.known_slots.add_runs(loaded.session_id, runs)
        canonical_state: common_pb2.CanonicalGraphState | None = None
        slot_ids: dict[str, str] | None = None
        if loaded.canonical_enabled and loaded.slot_mode != "inline":
            # Off the critical path: this chain runs beside extraction and the graph update.
            ids = surface_ids(loaded.tracker)
            if caught_up and caught_up[-1].HasField("canonical_state"):
                # The last pending run is the session's latest (this turn's starts only after this
                # output is stored, and discovery is the only writer), so the state stored with it is
                # the current one: no GetCanonicalState.
                canonical_state = caught_up[-1].canonical_state
                slot_ids = await resolve_slots(self._d, loaded.session_id, ids)
            else:
                canonical_state, slot_ids = await canonical_reads(self._d, loaded.session_id, ids)
        return SlotDiscoveryOutput(
            response=response,
            caught_up=caught_up,
            mode=loaded.slot_mode,
            skipped=response is None and not caught_up,
            canonical_state=canonical_state,
            slot_ids=slot_ids,
        )


async def complete_pending(
    deps: Dependencies,
    pending: Sequence[PendingSlotDiscovery],
    local: LocalDiscoveries | None = None,
) -> list[slots_pb2.DiscoverSlotsResponse]:
    """Make sure deferred discoveries completed, in turn order (edges may use an earlier turn's
    slots): the response of a run this process started (`local`), else the request sent again
    (idempotent per turn: a replay of the finished run, or a wait for the run in progress)."""
    responses = []
    for item in pending:
        response = await local.take(item.request.session_id, item.request.turn_number) if local else None
        if response is None:
            sent: slots_pb2.DiscoverSlotsResponse = await deps(
                deps.slots.DiscoverSlots, item.request, service="canonical_slots"
            )
            response = sent
        responses.append(response)
    return responses


async def resolve_slots(d: StageDeps, session_id: str, node_ids: list[str]) -> dict[str, str]:
    """Surface node id → canonical slot id for the mapped ones among `node_ids`: the mappings
    already seen, and canonical_slots asked for the rest (no call when none is left)."""
    found, missing = d.known_slots.split(session_id, node_ids)
    if not missing:
        return found
    resolved: slots_pb2.ResolveNodesResponse = await d.deps(
        d.deps.slots.ResolveNodes,
        slots_pb2.ResolveNodesRequest(session_id=session_id, node_ids=missing),
        service="canonical_slots",
    )
    d.known_slots.add(session_id, resolved.slot_ids)
    found.update(resolved.slot_ids)
    return found


async def canonical_reads(
    d: StageDeps, session_id: str, node_ids: list[str], surface: common_pb2.GraphState | None = None
) -> tuple[common_pb2.CanonicalGraphState, dict[str, str]]:
    """The session's canonical state and the slots of `node_ids` (the two calls go out together).

    Without `surface` the state is asked for with zero surface counts: the comparison is then the
    caller's to compute (`canonical_comparison`)."""
    counts = surface or common_pb2.GraphState()
    canonical, slot_ids = await asyncio.gather(
        d.deps(
            d.deps.slots.GetCanonicalState,
            slots_pb2.GetCanonicalStateRequest(
                session_id=session_id,
                surface_node_count=counts.node_count,
                surface_edge_count=counts.edge_count,
            ),
            service="canonical_slots",
        ),
        resolve_slots(d, session_id, node_ids),
    )
    return canonical.canonical_state, slot_ids


def canonical_comparison(
    canonical: common_pb2.CanonicalGraphState, surface: common_pb2.GraphState
) -> common_pb2.GraphComparison:
    """Surface vs canonical sizes, as GetCanonicalState computes them (compression = surface
    nodes per active concept, 0 without one)."""
    concepts = canonical.concept_count
    return common_pb2.GraphComparison(
        surface_node_count=surface.node_count,
        surface_edge_count=surface.edge_count,
        canonical_concept_count=concepts,
        canonical_edge_count=canonical.edge_count,
        compression_ratio=surface.node_count / concepts if concepts else 0.0,
    )


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
        graph_state = await self._graph_state(loaded, update)
        canonical_state = comparison = None
        canonical_count: int | None = None
        slot_ids: dict[str, str] | None = None
        if loaded.canonical_enabled:
            ids = surface_ids(update.tracker)
            snapshot = ctx.get(SlotDiscoveryOutput).snapshot()
            if snapshot is not None:
                # Deferred mode: read beside extraction. The nodes this turn created are not mapped
                # before its own discovery runs, so the slots of the nodes tracked before it are all.
                canonical_state, known = snapshot
                slot_ids = {i: known[i] for i in ids if i in known}
            else:
                # The tracker's slot resolution (for strategy selection) needs the same inputs as
                # the canonical state, so the two calls go out together.
                canonical_state, slot_ids = await canonical_reads(
                    self._d, loaded.session_id, ids, graph_state
                )
            comparison = canonical_comparison(canonical_state, graph_state)
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
            slot_ids=slot_ids,
            graph_state=graph_state,
            canonical_state=canonical_state,
            comparison=comparison,
            saturation=saturation,
            new_info=turn_yield.nodes_created + turn_yield.edges_created,
            surface_delta=surface_delta,
            canonical_delta=canonical_delta,
            is_shallow=rubric.depth_score <= 2,
        )

    async def _graph_state(
        self, loaded: ContextLoadingOutput, update: GraphUpdateOutput
    ) -> common_pb2.GraphState:
        """The metrics ApplyExtraction returned with the update; asked for only when it was skipped."""
        if not update.skipped and update.response.HasField("graph_state"):
            return update.response.graph_state
        state_response: graph_pb2.GetGraphStateResponse = await self._d.deps(
            self._d.deps.graph.GetGraphState,
            graph_pb2.GetGraphStateRequest(session_id=loaded.session_id, methodology=loaded.methodology),
            service="graph_store",
        )
        return state_response.graph_state
