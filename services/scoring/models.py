"""Domain inputs of the scoring service (pydantic, built from protobuf by `convert.py`).

Everything detection needs arrives in one `SignalInputs`: the service keeps no per-session state.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from services.scoring.rubric.models import Rubric
from shared.node_tracker import NodeStateTracker


class SelectionMode(StrEnum):
    """How candidates are ranked: joint (D1, default) or two-stage (strategy, then node)."""

    JOINT = "joint"
    TWO_STAGE = "two_stage"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GraphMetrics(_Frozen):
    """Surface-graph metrics after this turn's update (from the graph store's GraphState)."""

    node_count: int = Field(default=0, ge=0)
    edge_count: int = Field(default=0, ge=0)
    orphan_count: int = Field(default=0, ge=0)
    max_depth: int = Field(default=0, ge=0, description="nodes in the longest directed chain")
    avg_depth: float = Field(default=0.0, ge=0.0, description="mean longest chain ending at a node, in nodes")
    chain_completion_ratio: float = Field(default=0.0, ge=0.0, le=1.0)
    chain_completion_has_complete: bool = False


class CanonicalMetrics(_Frozen):
    """Canonical-graph metrics (present only when canonical slots are on)."""

    concept_count: int = Field(default=0, ge=0)
    candidate_count: int = Field(default=0, ge=0)
    edge_count: int = Field(default=0, ge=0)
    orphan_count: int = Field(default=0, ge=0)
    max_depth: int = Field(default=0, ge=0)
    avg_support: float = Field(default=0.0, ge=0.0)


class Velocity(_Frozen):
    """Yield of this turn and the session's peak, for the saturation signals."""

    surface_delta: int = Field(default=0, ge=0)
    surface_peak: int = Field(default=0, ge=0)
    canonical_delta: int = Field(default=0, ge=0)


class SignalInputs(BaseModel):
    """Everything one detection needs (see SelectStrategy / DetectSignals in scoring.proto).

    `response_depth_history` holds the rubric depth scores (1–5) of PREVIOUS answers, oldest first;
    the current answer's score comes from `rubric` (given, or computed by the service).
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    session_id: str = ""
    methodology: str
    turn_number: int
    max_turns: int
    graph: GraphMetrics = Field(default_factory=GraphMetrics)
    canonical: CanonicalMetrics | None = None
    canonical_enabled: bool = False
    tracker: NodeStateTracker = Field(default_factory=NodeStateTracker)
    answer: str = ""
    question: str = ""
    strategy_history: tuple[str, ...] = ()
    response_depth_history: tuple[int, ...] = ()
    velocity: Velocity = Field(default_factory=Velocity)
    rubric: Rubric | None = None
