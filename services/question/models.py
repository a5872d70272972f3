"""Domain models of the question service (pydantic; `convert.py` maps protobuf to and from them).

Field names follow the proto fields so that validation errors name the same paths the caller
sent (e.g. `recent_turns[3].text`, `focus.label`).
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from shared.llm.base import LLMUsage
from shared.methodology_models import FocusMode, InterviewPhase


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Speaker(StrEnum):
    """Who said an utterance (unspecified is rejected by validation)."""

    UNSPECIFIED = "unspecified"
    INTERVIEWER = "interviewer"
    RESPONDENT = "respondent"


class RespondentIntent(StrEnum):
    """The respondent's intent behind the last answer, as classified by the orchestrator."""

    UNSPECIFIED = "unspecified"
    ANSWER = "answer"
    CLARIFICATION_REQUEST = "clarification_request"
    SKIP_REQUEST = "skip_request"
    STOP_REQUEST = "stop_request"
    OFF_TOPIC = "off_topic"


class TerminationReason(StrEnum):
    """Why an interview ends (shapes the closing message)."""

    UNSPECIFIED = "unspecified"
    MAX_TURNS = "max_turns"
    CLOSING_STRATEGY = "closing_strategy"
    GRAPH_SATURATED = "graph_saturated"
    QUALITY_DEGRADED = "quality_degraded"
    DEPTH_PLATEAU = "depth_plateau"
    ALL_NODES_EXHAUSTED = "all_nodes_exhausted"
    SATURATED = "saturated"
    RESPONDENT_STOP = "respondent_stop"
    ENDED_BY_CLIENT = "ended_by_client"


class Utterance(_Model):
    """One utterance of the recent conversation (oldest first in every request)."""

    speaker: Speaker
    text: str
    turn_number: int = 0


class ConceptBrief(_Model):
    """What the interview is about: the concept's name (the topic) and research objective."""

    id: str = ""
    name: str = ""
    objective: str = ""


class FocusNode(_Model):
    """The node a follow-up focuses on; the label was looked up by id over the whole graph."""

    node_id: str = ""
    label: str = ""
    node_type: str = ""


SignalScalar = bool | int | float | str


class SignalReason(_Model):
    """One top contributing signal of the selected (strategy, node) candidate."""

    signal_name: str
    value: SignalScalar | None = None
    contribution: float = 0.0
    description: str = ""


class GraphDigest(_Model):
    """A compact view of the session's graph for prompts and offline summaries."""

    node_count: int = 0
    edge_count: int = 0
    max_depth: int = Field(default=0, description="Nodes in the longest directed chain.")
    has_complete_chain: bool = False
    node_labels: tuple[str, ...] = ()
    longest_chain_labels: tuple[str, ...] = ()
    element_labels: tuple[str, ...] = Field(
        default=(), description="Labels of the ontology's lowest-level nodes, oldest first."
    )
    longest_chain_types: tuple[str, ...] = Field(
        default=(), description="Node types of longest_chain_labels, same order (empty if unknown)."
    )
    longest_chain_edge_types: tuple[str, ...] = Field(
        default=(),
        description="Edge types between consecutive longest_chain_labels, one fewer (empty if unknown).",
    )


class OpeningRequest(_Model):
    """Inputs of the opening question."""

    session_id: str
    methodology: str
    concept: ConceptBrief


class FollowUpRequest(_Model):
    """Inputs of one follow-up question (unary and streaming)."""

    session_id: str
    turn_number: int
    methodology: str
    concept: ConceptBrief
    strategy: str
    focus: FocusNode = FocusNode()
    # None: use the strategy's own `focus_mode` from the methodology YAML.
    focus_mode: FocusMode | None = None
    recent_turns: tuple[Utterance, ...] = ()
    graph_summary: GraphDigest = GraphDigest()
    rationale: tuple[SignalReason, ...] = ()
    previous_questions: tuple[str, ...] = ()
    phase: InterviewPhase | None = None
    respondent_intent: RespondentIntent = RespondentIntent.UNSPECIFIED


class ClosingRequest(_Model):
    """Inputs of the closing message."""

    session_id: str
    methodology: str
    concept: ConceptBrief
    recent_turns: tuple[Utterance, ...] = ()
    termination_reason: TerminationReason = TerminationReason.UNSPECIFIED
    graph_summary: GraphDigest = GraphDigest()


class RephraseRequest(_Model):
    """Inputs of a simpler rewording of a question the respondent did not understand."""

    session_id: str
    methodology: str
    question: str
    respondent_text: str = ""
    concept: ConceptBrief = ConceptBrief()
    # 1: the first rewording of this question; 2+: the respondent did not understand the last one either.
    attempt: int = 1


class Source(StrEnum):
    """Where a generated text came from."""

    LLM = "llm"
    LOCAL = "local"
    # The LLM answered but nothing usable survived sanitisation; the offline engine answered.
    LOCAL_FALLBACK = "local_fallback"


class Generated(_Model):
    """A generated question or message and what it cost."""

    text: str
    usage: LLMUsage
    source: Source
