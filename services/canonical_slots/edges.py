"""Incremental canonical-edge aggregation.

Every surface edge the service receives is recorded once (a re-sent edge id is ignored). Each run
then aggregates all *pending* surface edges whose endpoints are both mapped: an edge between two
slots adds its id to the canonical edge (source slot, target slot, edge type) — created on first
use — whose support is the number of distinct surface edge ids; an edge inside one slot is a
self-loop and not a canonical edge. Edges with an unmapped endpoint stay pending for a later run.
"""

from __future__ import annotations

import uuid

from .domain import CanonicalEdge, DiscoverSlotsInput, SurfaceEdgeState
from .models import CanonicalEdgeRow, SurfaceEdgeRow
from .repository import SlotRepository
from .views import edge_view


async def record_surface_edges(repo: SlotRepository, req: DiscoverSlotsInput) -> None:
    """Store the request's surface edges the service has not seen (as pending)."""
    known = await repo.known_surface_edges(req.session_id, [e.id for e in req.edges])
    for edge in req.edges:
        if edge.id in known:
            continue
        known.add(edge.id)
        repo.add(
            SurfaceEdgeRow(
                session_id=req.session_id,
                surface_edge_id=edge.id,
                source_node_id=edge.source_node_id,
                target_node_id=edge.target_node_id,
                edge_type=edge.edge_type,
                turn_number=req.turn_number,
                state=SurfaceEdgeState.PENDING.value,
            )
        )
    await repo.flush()


async def aggregate_edges(
    repo: SlotRepository, req: DiscoverSlotsInput
) -> tuple[list[CanonicalEdge], list[CanonicalEdge], int]:
    """Aggregate every pending edge that can be; returns (created, updated, still pending)."""
    await record_surface_edges(repo, req)
    pending = await repo.pending_edges(req.session_id)
    if not pending:
        return [], [], 0
    endpoints = [n for e in pending for n in (e.source_node_id, e.target_node_id)]
    slot_of = {n: m.slot_id for n, m in (await repo.mappings_for(req.session_id, endpoints)).items()}
    by_key = {
        (c.source_slot_id, c.target_slot_id, c.edge_type): c
        for c in await repo.canonical_edges(req.session_id)
    }
    created: dict[str, CanonicalEdgeRow] = {}
    updated: dict[str, CanonicalEdgeRow] = {}
    still_pending = 0
    for edge in pending:
        source, target = slot_of.get(edge.source_node_id), slot_of.get(edge.target_node_id)
        if source is None or target is None:
            still_pending += 1
            continue
        if source == target:
            edge.state = SurfaceEdgeState.SELF_LOOP.value
            continue
        canonical = by_key.get((source, target, edge.edge_type))
        if canonical is None:
            canonical = CanonicalEdgeRow(
                id=str(uuid.uuid4()),
                session_id=req.session_id,
                source_slot_id=source,
                target_slot_id=target,
                edge_type=edge.edge_type,
                support_count=0,
                surface_edge_ids=[],
                first_seen_turn=req.turn_number,
                updated_turn=req.turn_number,
            )
            repo.add(canonical)
            await repo.flush()  # the canonical edge must exist before surface edges reference it
            by_key[(source, target, edge.edge_type)] = canonical
            created[canonical.id] = canonical
        elif canonical.id not in created:
            updated[canonical.id] = canonical
        if edge.surface_edge_id not in canonical.surface_edge_ids:
            # Assign a new list: JSON columns only notice replacement, not in-place mutation.
            canonical.surface_edge_ids = [*canonical.surface_edge_ids, edge.surface_edge_id]
            canonical.support_count = len(canonical.surface_edge_ids)
        canonical.updated_turn = req.turn_number
        edge.state = SurfaceEdgeState.AGGREGATED.value
        edge.canonical_edge_id = canonical.id
    return [edge_view(c) for c in created.values()], [edge_view(c) for c in updated.values()], still_pending
