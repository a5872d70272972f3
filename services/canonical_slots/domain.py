"""Typed domain models of the canonical_slots service (pydantic; protobuf lives in `convert.py`)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from shared.llm.base import LLMUsage


class SlotStatus(StrEnum):
    """Lifecycle of a slot: a candidate becomes active once enough distinct surface nodes map to it."""

    CANDIDATE = "candidate"
    ACTIVE = "active"


class MatchKind(StrEnum):
    """How a surface node found its slot in a discovery run."""

    NEW_SLOT = "new_slot"  # the proposal created a new candidate slot
    NAME_MATCH = "name_match"  # lemmatised exact slot-name match (same node_type)
    EMBEDDING_MATCH = "embedding_match"  # cosine(name+description) ≥ threshold (same node_type)
    EXISTING_MAPPING = "existing_mapping"  # the node was mapped by an earlier run; unchanged


class SurfaceEdgeState(StrEnum):
    """What became of a surface edge sent to the service."""

    PENDING = "pending"  # an endpoint is not mapped to a slot yet
    AGGREGATED = "aggregated"  # counted in a canonical edge
    SELF_LOOP = "self_loop"  # both endpoints map to one slot: not a canonical edge


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SurfaceNodeIn(_Model):
    """A surface node created by the turn's graph update."""

    id: str
    label: str
    node_type: str
    # The stored surface embedding (384 floats, L2-normalised); empty → computed here.
    embedding: tuple[float, ...] = ()


class SurfaceEdgeIn(_Model):
    """A surface edge of the turn (endpoints may be nodes of earlier turns)."""

    id: str
    source_node_id: str
    target_node_id: str
    edge_type: str


class DiscoverSlotsInput(_Model):
    """Input of `discover_slots`; the idempotency key is (session_id, turn_number)."""

    session_id: str
    turn_number: int
    methodology: str
    nodes: tuple[SurfaceNodeIn, ...] = ()
    edges: tuple[SurfaceEdgeIn, ...] = ()


class Slot(_Model):
    """A canonical slot as exposed to callers (no embedding)."""

    id: str
    session_id: str
    slot_name: str
    description: str
    node_type: str
    status: SlotStatus
    support_count: int
    first_seen_turn: int
    promoted_turn: int | None = None


class SlotMapping(_Model):
    """A surface node → slot assignment."""

    surface_node_id: str
    slot_id: str
    similarity: float  # of the merge: 1 for new slots and name matches, else the cosine
    assigned_turn: int


class CanonicalEdge(_Model):
    """An aggregated canonical edge; support = number of distinct surface edges."""

    id: str
    source_slot_id: str
    target_slot_id: str
    edge_type: str
    support_count: int
    surface_edge_ids: tuple[str, ...]
    first_seen_turn: int


class NodeAssignment(_Model):
    """Where one node of the request ended up, and why."""

    surface_node_id: str
    slot_id: str
    slot_name: str
    similarity: float
    match: MatchKind


class CanonicalState(_Model):
    """Aggregate metrics of a session's canonical graph."""

    concept_count: int  # active slots only
    candidate_count: int
    edge_count: int
    orphan_count: int  # active slots without any canonical edge
    max_depth: int  # longest directed chain, in slots (cycle-safe)
    longest_chain: tuple[str, ...]  # slot ids along one longest chain
    avg_support: float  # mean support_count over active slots (0 when none)
    mapped_node_count: int


class DiscoveryResult(_Model):
    """Outcome of one discovery run; stored verbatim and returned again on a repeat."""

    session_id: str
    turn_number: int
    assignments: tuple[NodeAssignment, ...] = ()
    slots_created: tuple[Slot, ...] = ()
    slots_updated: tuple[Slot, ...] = ()  # existing slots whose support grew (incl. promotions)
    slots_promoted: tuple[Slot, ...] = ()  # slots that became active in this run
    mappings_created: tuple[SlotMapping, ...] = ()
    edges_created: tuple[CanonicalEdge, ...] = ()
    edges_updated: tuple[CanonicalEdge, ...] = ()
    pending_edge_count: int = 0
    warnings: tuple[str, ...] = ()
    llm_usage: LLMUsage = Field(default_factory=LLMUsage)
    canonical_state: CanonicalState | None = None  # metrics right after this run
    replayed: bool = False


class SurfaceCounts(_Model):
    """Surface-graph counts the caller (orchestrator) passes in for the comparison."""

    node_count: int = Field(default=0, ge=0)
    edge_count: int = Field(default=0, ge=0)


class GraphComparison(_Model):
    """Surface vs canonical sizes; compression = surface nodes / canonical concepts."""

    surface_node_count: int
    surface_edge_count: int
    canonical_concept_count: int
    canonical_edge_count: int
    compression_ratio: float  # 0 when there is no active concept yet


class CanonicalStateReport(_Model):
    """`canonical_state` answer: the state plus the comparison."""

    session_id: str
    state: CanonicalState
    comparison: GraphComparison


class DeleteCounts(_Model):
    """Rows removed by `delete_session`."""

    slots: int = 0
    mappings: int = 0
    edges: int = 0
