"""Typed stage output contracts and the persisted session state.

Each pipeline stage writes exactly one contract (single writer); later stages read it. Contracts are
pydantic models so every completed stage can be checkpointed as JSON with its turn and restored on
resume; protobuf payloads from other services are kept as messages (see `protofield`).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, PlainValidator

from services.orchestrator.protofield import proto, proto_list
from services.orchestrator.tracking import load_tracker
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.extraction.v1 import extraction_pb2
from shared.gen.interview.graph.v1 import graph_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2
from shared.gen.interview.scoring.v1 import scoring_pb2
from shared.gen.interview.slots.v1 import slots_pb2
from shared.node_tracker import NodeStateTracker

STRATEGY_HISTORY_MAX = 30
DEPTH_HISTORY_MAX = 30
SESSION_STATE_SCHEMA_VERSION = 1


class StageName(StrEnum):
    """Stage identifiers, in pipeline order (also the checkpoint keys and span names)."""

    CONTEXT_LOADING = "context_loading"
    UTTERANCE_SAVING = "utterance_saving"
    SRL = "srl"
    EXTRACTION = "extraction"
    RUBRIC = "rubric"
    GRAPH_UPDATE = "graph_update"
    SLOT_DISCOVERY = "slot_discovery"
    STATE_COMPUTATION = "state_computation"
    STRATEGY_SELECTION = "strategy_selection"
    CONTINUATION = "continuation"
    QUESTION_GENERATION = "question_generation"
    RESPONSE_SAVING = "response_saving"
    SCORING_PERSISTENCE = "scoring_persistence"


class Contract(BaseModel):
    """Base of every stage output."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)


def _as_tracker(value: object) -> NodeStateTracker:
    if isinstance(value, NodeStateTracker):
        return value
    if value is None or isinstance(value, Mapping):  # the stored form (session row, old checkpoints)
        return load_tracker(value)
    raise TypeError(f"expected a node tracker or its stored form, got {type(value).__name__}")


# A node tracker held by a stage output, as the object the next stages read: loaded once per turn
# from the session row, then each stage that changes it works on its own `copy()`, so the tracker
# an output holds never changes after the output is set (the output is frozen, the object is not).
# The stored form (`to_dict`) is built once, for the session row at the turn's completion.
# Checkpoints leave it out (~0.8 KB per node, three times per turn: the largest part of a turn's
# writes at 150 nodes); the stage rebuilds it on a resume from the session row or from earlier
# outputs (`Stage.restore`). Checkpoints written with it (its stored form) still restore as they are.
Tracker = Annotated[NodeStateTracker, PlainValidator(_as_tracker)]


def _tracker() -> Any:
    return Field(exclude=True)


# -- persisted session state (loaded at every turn start) ---------------------------------------
class SaturationState(BaseModel):
    """Counters behind the saturation rules; persisted so a restart changes no decision."""

    consecutive_low_info: int = 0
    consecutive_shallow: int = 0
    consecutive_depth_plateau: int = 0
    prev_max_depth: int = 0
    surface_velocity_peak: int = 0
    prev_surface_node_count: int = 0
    canonical_velocity_peak: int = 0
    prev_canonical_count: int = 0


class FocusRecord(BaseModel):
    """One focus-history entry (turn 1 has an empty node)."""

    turn: int
    node_id: str = ""
    label: str = ""
    strategy: str = ""


class UsageRecord(BaseModel):
    """Accumulated LLM usage of one logical client."""

    client: str
    provider: str = ""
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: int = 0
    calls: int = 0

    def add(self, usage: common_pb2.LlmUsage) -> UsageRecord:
        """A new record with `usage` added."""
        return UsageRecord(
            client=self.client,
            provider=usage.provider or self.provider,
            model=usage.model or self.model,
            input_tokens=self.input_tokens + usage.input_tokens,
            output_tokens=self.output_tokens + usage.output_tokens,
            cost_usd=self.cost_usd + usage.cost_usd,
            latency_ms=self.latency_ms + usage.latency_ms,
            calls=self.calls + usage.calls,
        )


class PendingSlotDiscovery(BaseModel):
    """A turn's DiscoverSlots request, sent in the background after the turn's response."""

    turn: int
    request: proto(slots_pb2.DiscoverSlotsRequest)  # type: ignore[valid-type]


class SessionState(BaseModel):
    """Everything a turn needs from earlier turns, stored as JSON with the session."""

    schema_version: int = SESSION_STATE_SCHEMA_VERSION
    strategy_history: list[str] = Field(default_factory=list)
    focus_history: list[FocusRecord] = Field(default_factory=list)
    response_depth_history: list[int] = Field(default_factory=list)
    saturation: SaturationState = Field(default_factory=SaturationState)
    usage: dict[str, UsageRecord] = Field(default_factory=dict)
    # Deferred slot discovery: the requests of turns whose discovery runs in the background;
    # the next turn re-sends them (DiscoverSlots is idempotent per turn) before its state computation.
    pending_slots: list[PendingSlotDiscovery] = Field(default_factory=list)
    # How many times in a row the current question is a rewording (the respondent asked what the
    # question before it meant); 0 after any other question.
    rephrasings: int = 0


# -- stage outputs ---------------------------------------------------------------------------
class ContextLoadingOutput(Contract):
    """Stage 1: the session as of the turn start."""

    session_id: str
    methodology: str
    concept: proto(common_pb2.Concept)  # type: ignore[valid-type]
    turn_number: int
    max_turns: int
    previous_question: str
    recent_turns: proto_list(common_pb2.ConversationTurn)  # type: ignore[valid-type]
    previous_questions: list[str]
    state: SessionState
    tracker: Tracker = _tracker()  # the session row's
    canonical_enabled: bool
    slot_mode: str
    # The graph's nodes shown to extraction (looked up beside the reads above); None in checkpoints
    # from before the lookup moved here.
    existing_nodes: proto_list(extraction_pb2.ExistingNode) | None = None  # type: ignore[valid-type]


class UtteranceSavingOutput(Contract):
    """Stage 2: the persisted answer."""

    turn_number: int
    user_utterance_id: str
    text: str


class SrlOutput(Contract):
    """Stage 2.5: linguistic structure and the respondent's intent."""

    preprocess: proto(extraction_pb2.PreprocessResponse)  # type: ignore[valid-type]
    intent: int
    intent_confidence: float


class ExtractionOutput(Contract):
    """Stage 3: concepts and relationships (empty when skipped)."""

    response: proto(extraction_pb2.ExtractResponse)  # type: ignore[valid-type]
    skipped_for_intent: bool = False


class RubricOutput(Contract):
    """Stage 3' (concurrent with extraction): the six rubric scores of the answer."""

    rubric: proto(scoring_pb2.RubricResult)  # type: ignore[valid-type]
    depth_score: int


class GraphUpdateOutput(Contract):
    """Stage 4: the graph update and the node tracker after registration and yield."""

    response: proto(graph_pb2.ApplyExtractionResponse)  # type: ignore[valid-type]
    tracker: Tracker = _tracker()
    skipped: bool = False


class SlotDiscoveryOutput(Contract):
    """Stage 4.5: this turn's slot discovery (inline), or the completion of earlier turns' deferred
    discoveries (deferred: this turn's own runs in the background)."""

    response: proto(slots_pb2.DiscoverSlotsResponse) | None = None  # type: ignore[valid-type]
    caught_up: proto_list(slots_pb2.DiscoverSlotsResponse) = Field(default_factory=list)  # type: ignore[valid-type]
    mode: str
    skipped: bool = False
    # Deferred mode: the canonical state and the slots of the nodes tracked before this turn, read
    # as soon as the earlier discoveries are complete (beside extraction). This turn's own discovery
    # starts only once this output is stored (`DiscoveryStart`), and state computation and strategy
    # selection take these instead of asking again, so the run never shows in the turn's own
    # signals, nor in a resume's. None in inline mode, with canonical slots off, or in a
    # checkpoint from before this was read here.
    canonical_state: proto(common_pb2.CanonicalGraphState) | None = None  # type: ignore[valid-type]
    slot_ids: dict[str, str] | None = None

    def snapshot(self) -> tuple[common_pb2.CanonicalGraphState, dict[str, str]] | None:
        """The canonical reads kept here (state, slots), or None when this output holds none: the
        one test of whether state computation may use them and the turn's own discovery may start."""
        if self.canonical_state is None or self.slot_ids is None:
            return None
        return self.canonical_state, self.slot_ids


class StateComputationOutput(Contract):
    """Stage 5: fresh graph metrics and saturation counters."""

    graph_state: proto(common_pb2.GraphState)  # type: ignore[valid-type]
    canonical_state: proto(common_pb2.CanonicalGraphState) | None = None  # type: ignore[valid-type]
    comparison: proto(common_pb2.GraphComparison) | None = None  # type: ignore[valid-type]
    saturation: SaturationState
    new_info: int
    surface_delta: int
    canonical_delta: int
    is_shallow: bool
    # The tracker's surface node ids resolved to canonical slots (mapped ones only); None when
    # canonical slots are off, or in a checkpoint from before state computation resolved them.
    slot_ids: dict[str, str] | None = None


class StrategySelectionOutput(Contract):
    """Stage 6: the selected strategy and focus, all signals, and the updated tracker."""

    selection: proto(scoring_pb2.SelectStrategyResponse)  # type: ignore[valid-type]
    focus_label: str
    focus_node_type: str
    tracker: Tracker = _tracker()


class ContinuationOutput(Contract):
    """Stage 7: whether to go on, and what kind of utterance comes next."""

    should_continue: bool
    termination_reason: int
    turns_remaining: int
    # "follow_up", "rephrase" or "closing"
    next_action: str


class QuestionGenerationOutput(Contract):
    """Stage 8: the next question (or the closing message)."""

    question: str
    kind: str
    usage: proto(common_pb2.LlmUsage)  # type: ignore[valid-type]


class ResponseSavingOutput(Contract):
    """Stage 9: the interviewer utterance (written with the turn's completion)."""

    system_utterance_id: str
    question_text: str


class ScoringPersistenceOutput(Contract):
    """Stage 10: the completed turn's result."""

    result: proto(orchestrator_pb2.TurnResult)  # type: ignore[valid-type]


CONTRACTS: dict[StageName, type[Contract]] = {
    StageName.CONTEXT_LOADING: ContextLoadingOutput,
    StageName.UTTERANCE_SAVING: UtteranceSavingOutput,
    StageName.SRL: SrlOutput,
    StageName.EXTRACTION: ExtractionOutput,
    StageName.RUBRIC: RubricOutput,
    StageName.GRAPH_UPDATE: GraphUpdateOutput,
    StageName.SLOT_DISCOVERY: SlotDiscoveryOutput,
    StageName.STATE_COMPUTATION: StateComputationOutput,
    StageName.STRATEGY_SELECTION: StrategySelectionOutput,
    StageName.CONTINUATION: ContinuationOutput,
    StageName.QUESTION_GENERATION: QuestionGenerationOutput,
    StageName.RESPONSE_SAVING: ResponseSavingOutput,
    StageName.SCORING_PERSISTENCE: ScoringPersistenceOutput,
}
