"""Row → domain-model conversions shared by the write and read paths."""

from __future__ import annotations

from .domain import CanonicalEdge, Slot, SlotMapping, SlotStatus
from .models import CanonicalEdgeRow, SlotMappingRow, SlotRow
from .record import EdgeRecord, SlotRecord


def slot_view(row: SlotRow | SlotRecord) -> Slot:
    """The caller-facing form of a slot row (no embedding)."""
    return Slot(
        id=row.id,
        session_id=row.session_id,
        slot_name=row.slot_name,
        description=row.description,
        node_type=row.node_type,
        status=SlotStatus(row.status),
        support_count=row.support_count,
        first_seen_turn=row.first_seen_turn,
        promoted_turn=row.promoted_turn,
    )


def mapping_view(row: SlotMappingRow) -> SlotMapping:
    """The caller-facing form of a mapping row."""
    return SlotMapping(
        surface_node_id=row.surface_node_id,
        slot_id=row.slot_id,
        similarity=row.similarity,
        assigned_turn=row.assigned_turn,
    )


def edge_view(row: CanonicalEdgeRow | EdgeRecord) -> CanonicalEdge:
    """The caller-facing form of a canonical edge row."""
    return CanonicalEdge(
        id=row.id,
        source_slot_id=row.source_slot_id,
        target_slot_id=row.target_slot_id,
        edge_type=row.edge_type,
        support_count=row.support_count,
        surface_edge_ids=tuple(row.surface_edge_ids),
        first_seen_turn=row.first_seen_turn,
    )
