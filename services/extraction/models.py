"""Domain models of the extraction service (pydantic; protobuf conversion lives in `convert.py`)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from shared.llm.base import LLMUsage


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TextSpan(_Model):
    """A span of the utterance: `text == utterance[start:end]`."""

    text: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)


class SentenceInfo(_Model):
    """One sentence and the lemmas of its word tokens (punctuation left out)."""

    span: TextSpan
    lemmas: tuple[str, ...]


class RelationKind(StrEnum):
    """Discourse relation classes.

    Direction: CAUSE — `right` causes `left` ("X because Y"); RESULT and PURPOSE — `left` leads to
    `right` ("X so Y", "X so that Y"); CONTRAST, CONCESSION, ELABORATION carry no causal direction.
    """

    CAUSE = "cause"
    RESULT = "result"
    PURPOSE = "purpose"
    CONTRAST = "contrast"
    CONCESSION = "concession"
    ELABORATION = "elaboration"

    @property
    def is_causal(self) -> bool:
        """True for the relations the extractor turns into edges."""
        return self in (RelationKind.CAUSE, RelationKind.RESULT, RelationKind.PURPOSE)


class DiscourseRelation(_Model):
    """Two spans joined by a connective.

    `right` is the clause the connective introduces; `left` the clause it attaches to — usually the
    text before it ("X because Y"), but for a fronted subordinate clause ("Because Y, X") it is the
    main clause after the comma. `left` is None when the connective opens the answer and refers
    back to the interviewer's question ("Because it saves me time.").
    """

    marker: str
    marker_span: TextSpan
    relation: RelationKind
    left: TextSpan | None
    right: TextSpan

    @property
    def cause(self) -> TextSpan | None:
        """The causing (or means) span of a causal relation."""
        if self.relation is RelationKind.CAUSE:
            return self.right
        return self.left if self.relation.is_causal else None

    @property
    def effect(self) -> TextSpan | None:
        """The resulting (or goal) span of a causal relation."""
        if self.relation is RelationKind.CAUSE:
            return self.left
        return self.right if self.relation.is_causal else None


class PredicateFrame(_Model):
    """Who does what to what: subject, predicate (with its lemma) and object, any may be partial."""

    subject: TextSpan | None
    predicate: TextSpan
    predicate_lemma: str
    object: TextSpan | None
    negated: bool = False


class PreprocessMode(StrEnum):
    """Which preprocessing ran."""

    DISABLED = "disabled"
    RULES = "rules"
    DEPENDENCY = "dependency"


class Intent(StrEnum):
    """What the respondent is doing with this turn."""

    ANSWER = "answer"
    CLARIFICATION_REQUEST = "clarification_request"
    SKIP_REQUEST = "skip_request"
    STOP_REQUEST = "stop_request"
    OFF_TOPIC = "off_topic"


class IntentResult(_Model):
    """The classified intent, a confidence in [0, 1] and the cue that decided it."""

    intent: Intent
    confidence: float = Field(ge=0.0, le=1.0)
    rationale: str = ""


class PreprocessResult(_Model):
    """Stage 2.5 output: sentences, discourse relations, frames, and the respondent's intent."""

    mode: PreprocessMode
    sentences: tuple[SentenceInfo, ...] = ()
    discourse_relations: tuple[DiscourseRelation, ...] = ()
    frames: tuple[PredicateFrame, ...] = ()
    intent: IntentResult | None = None


class Quote(_Model):
    """Verbatim evidence: `text == utterance[start:end]` of utterance `utterance_id`."""

    text: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    utterance_id: str


class ExtractedConcept(_Model):
    """A concept (future graph node) found in one utterance."""

    label: str
    node_type: str
    confidence: float = Field(ge=0.0, le=1.0)
    stance: Literal[-1, 0, 1] = 0
    quote: Quote
    source_utterance_id: str
    properties: dict[str, str] = Field(default_factory=dict)


class ExtractedRelationship(_Model):
    """A typed edge between two labels (new in this extraction or existing in the graph)."""

    source_label: str
    target_label: str
    edge_type: str
    confidence: float = Field(ge=0.0, le=1.0)
    quote: Quote
    source_utterance_id: str


class ExistingNode(_Model):
    """A node already in the session's graph that new relationships may point to."""

    label: str
    node_type: str = ""
    node_id: str = ""


class Speaker(StrEnum):
    """Who said an utterance."""

    INTERVIEWER = "interviewer"
    RESPONDENT = "respondent"


class ConversationTurn(_Model):
    """One utterance of the recent conversation."""

    speaker: Speaker
    text: str
    turn_number: int = 0
    utterance_id: str = ""


class ConceptBrief(_Model):
    """The research concept as the extractor needs it."""

    id: str = ""
    name: str = ""
    objective: str = ""
    vocabulary: tuple[str, ...] = ()


class ExtractionRequest(_Model):
    """Everything stage 3 needs about one answer."""

    session_id: str
    utterance_id: str
    text: str
    question: str = ""
    recent_turns: tuple[ConversationTurn, ...] = ()
    methodology: str
    concept: ConceptBrief = ConceptBrief()
    existing_nodes: tuple[ExistingNode, ...] = ()
    srl: PreprocessResult | None = None


class ExtractionResult(_Model):
    """Stage 3 output. `warnings` lists every item dropped or adjusted, with the reason."""

    concepts: tuple[ExtractedConcept, ...] = ()
    relationships: tuple[ExtractedRelationship, ...] = ()
    warnings: tuple[str, ...] = ()
    skipped: bool = False
    skip_reason: str = ""
    usage: LLMUsage = Field(default_factory=LLMUsage)
    extractor: Literal["llm", "local", "none"] = "none"
