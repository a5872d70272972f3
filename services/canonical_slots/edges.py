"""Incremental canonical-edge aggregation.

Every surface edge the service receives is recorded once (a re-sent edge id is ignored). Each run
then aggregates all *pending* surface edges whose endpoints are both mapped: an edge between two
slots adds its id to the canonical edge (source slot, target slot, edge type) — created on first
use — whose support is the number of distinct surface edge ids; an edge inside one slot is a
self-loop and not a canonical edge. Edges with an unmapped endpoint stay pending for a later run.

The run's records are changed in memory; `record.write_run` writes them.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from sqlalchemy.ext.asyncio import AsyncConnection

from .domain import CanonicalEdge, DiscoverSlotsInput, SurfaceEdgeState
from .record import (
    EdgeRecord,
    RunWrites,
    SurfaceEdgeRecord,
    known_surface_edges,
    mappings_of,
    pending_surface_edges,
)
from .views import edge_view


async def aggregate_edges(
    conn: AsyncConnection,
    req: DiscoverSlotsInput,
    run_mappings: Mapping[str, str],
    edges: list[EdgeRecord],
    writes: RunWrites,
) -> tuple[list[CanonicalEdge], list[CanonicalEdge], int]:
    """Record the request's new surface edges and aggregate every pending edge that can be.

    `run_mappings` are the surface node → slot assignments this run made (not stored yet); `edges`
    are the session's canonical edges, extended and updated in place. Returns (created, updated,
    still pending)."""
    sid = req.session_id
    known = await known_surface_edges(conn, sid, [e.id for e in req.edges])
    fresh: list[SurfaceEdgeRecord] = []
    for edge in req.edges:
        if edge.id in known:
            continue
        known.add(edge.id)
        fresh.append(
            SurfaceEdgeRecord(
                edge.id, edge.source_node_id, edge.target_node_id, edge.edge_type, req.turn_number, new=True
            )
        )
    pending = sorted(
        [*await pending_surface_edges(conn, sid), *fresh], key=lambda e: (e.turn_number, e.surface_edge_id)
    )
    writes.surface_edges.extend(pending)
    if not pending:
        return [], [], 0
    endpoints = {n for e in pending for n in (e.source_node_id, e.target_node_id)}
    stored = await mappings_of(conn, sid, [n for n in endpoints if n not in run_mappings])
    slot_of = {n: m.slot_id for n, m in stored.items()} | dict(run_mappings)
    by_key = {(c.source_slot_id, c.target_slot_id, c.edge_type): c for c in edges}
    created: dict[str, EdgeRecord] = {}
    updated: dict[str, EdgeRecord] = {}
    still_pending = 0
    for surface in pending:
        source, target = slot_of.get(surface.source_node_id), slot_of.get(surface.target_node_id)
        if source is None or target is None:
            still_pending += 1
            continue
        surface.changed = True
        if source == target:
            surface.state = SurfaceEdgeState.SELF_LOOP.value
            continue
        canonical = by_key.get((source, target, surface.edge_type))
        if canonical is None:
            canonical = EdgeRecord(
                id=str(uuid.uuid4()),
                session_id=sid,
                source_slot_id=source,
                target_slot_id=target,
                edge_type=surface.edge_type,
                support_count=0,
                surface_edge_ids=[],
                first_seen_turn=req.turn_number,
                updated_turn=req.turn_number,
                new=True,
            )
            edges.append(canonical)
            by_key[(source, target, surface.edge_type)] = canonical
            created[canonical.id] = canonical
        elif canonical.id not in created:
            updated[canonical.id] = canonical
        if surface.surface_edge_id not in canonical.surface_edge_ids:
            canonical.surface_edge_ids.append(surface.surface_edge_id)
            canonical.support_count = len(canonical.surface_edge_ids)
        canonical.updated_turn = req.turn_number
        canonical.changed = True
        surface.state = SurfaceEdgeState.AGGREGATED.value
        surface.canonical_edge_id = canonical.id
    writes.edges.extend(edges)
    return [edge_view(c) for c in created.values()], [edge_view(c) for c in updated.values()], still_pending
