"""Protobuf ⇄ domain conversion for the extraction service, with request validation.

Every request field is checked here before the engine runs, and every violation is reported at
once (INVALID_ARGUMENT with google.rpc.BadRequest field violations).
"""

from __future__ import annotations

from collections.abc import Callable

from services.extraction.models import (
    ConceptBrief,
    ConversationTurn,
    DiscourseRelation,
    ExistingNode,
    ExtractedConcept,
    ExtractedRelationship,
    ExtractionRequest,
    ExtractionResult,
    Intent,
    IntentResult,
    PredicateFrame,
    PreprocessMode,
    PreprocessResult,
    Quote,
    RelationKind,
    SentenceInfo,
    Speaker,
    TextSpan,
)
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.extraction.v1 import extraction_pb2
from shared.llm.base import LLMUsage
from shared.validation import Violations

MAX_LABEL_CHARS = 200
MAX_EXISTING_NODES = 5000
MAX_RECENT_TURNS = 50

_MODE_TO_PB = {
    PreprocessMode.DISABLED: extraction_pb2.PREPROCESS_MODE_DISABLED,
    PreprocessMode.RULES: extraction_pb2.PREPROCESS_MODE_RULES,
    PreprocessMode.DEPENDENCY: extraction_pb2.PREPROCESS_MODE_DEPENDENCY,
}
_MODE_FROM_PB = {v: k for k, v in _MODE_TO_PB.items()}
_INTENT_TO_PB = {
    Intent.ANSWER: common_pb2.RESPONDENT_INTENT_ANSWER,
    Intent.CLARIFICATION_REQUEST: common_pb2.RESPONDENT_INTENT_CLARIFICATION_REQUEST,
    Intent.SKIP_REQUEST: common_pb2.RESPONDENT_INTENT_SKIP_REQUEST,
    Intent.STOP_REQUEST: common_pb2.RESPONDENT_INTENT_STOP_REQUEST,
    Intent.OFF_TOPIC: common_pb2.RESPONDENT_INTENT_OFF_TOPIC,
}
_INTENT_FROM_PB = {v: k for k, v in _INTENT_TO_PB.items()}
_SPEAKER_FROM_PB = {
    common_pb2.SPEAKER_INTERVIEWER: Speaker.INTERVIEWER,
    common_pb2.SPEAKER_RESPONDENT: Speaker.RESPONDENT,
}


# ------------------------------------------------------------------------- requests


def preprocess_request(req: extraction_pb2.PreprocessRequest, max_chars: int) -> None:
    """Validate a Preprocess request (text required, question and topic bounded)."""
    v = Violations()
    v.require_text(req.text, "text", max_chars)
    v.check(len(req.question) <= max_chars, "question", f"must be at most {max_chars} characters")
    v.check(len(req.topic) <= max_chars, "topic", f"must be at most {max_chars} characters")
    v.raise_if_any()


def classify_intent_request(req: extraction_pb2.ClassifyIntentRequest, max_chars: int) -> None:
    """Validate a ClassifyIntent request."""
    v = Violations()
    v.require_text(req.text, "text", max_chars)
    v.check(len(req.question) <= max_chars, "question", f"must be at most {max_chars} characters")
    v.check(len(req.topic) <= MAX_LABEL_CHARS, "topic", f"must be at most {MAX_LABEL_CHARS} characters")
    v.raise_if_any()


def extract_request(
    req: extraction_pb2.ExtractRequest, *, max_chars: int, methodology_known: Callable[[str], bool]
) -> ExtractionRequest:
    """Validate and convert an Extract request."""
    v = Violations()
    v.require_id(req.session_id, "session_id")
    v.require_id(req.utterance_id, "utterance_id")
    v.require_text(req.text, "text", max_chars)
    v.check(len(req.question) <= max_chars, "question", f"must be at most {max_chars} characters")
    if v.check(bool(req.methodology.strip()), "methodology", "must not be empty"):
        v.check(methodology_known(req.methodology), "methodology", f"unknown methodology {req.methodology!r}")
    v.check(len(req.recent_turns) <= MAX_RECENT_TURNS, "recent_turns", f"at most {MAX_RECENT_TURNS} turns")
    turns: list[ConversationTurn] = []
    for i, turn in enumerate(req.recent_turns):
        speaker = _SPEAKER_FROM_PB.get(turn.speaker)
        v.check(speaker is not None, f"recent_turns[{i}].speaker", "must be INTERVIEWER or RESPONDENT")
        v.check(
            len(turn.text) <= max_chars, f"recent_turns[{i}].text", f"must be at most {max_chars} characters"
        )
        if speaker is not None:
            turns.append(
                ConversationTurn(
                    speaker=speaker,
                    text=turn.text,
                    turn_number=turn.turn_number,
                    utterance_id=turn.utterance_id,
                )
            )
    v.check(
        len(req.existing_nodes) <= MAX_EXISTING_NODES, "existing_nodes", f"at most {MAX_EXISTING_NODES} nodes"
    )
    existing: list[ExistingNode] = []
    for i, node in enumerate(req.existing_nodes):
        ok = v.check(bool(node.label.strip()), f"existing_nodes[{i}].label", "must not be empty")
        ok = (
            v.check(
                len(node.label) <= MAX_LABEL_CHARS,
                f"existing_nodes[{i}].label",
                f"must be at most {MAX_LABEL_CHARS} characters",
            )
            and ok
        )
        if ok:
            existing.append(ExistingNode(label=node.label, node_type=node.node_type, node_id=node.node_id))
    srl = preprocess_result(req.srl, req.text, v) if req.HasField("srl") else None
    v.raise_if_any()
    return ExtractionRequest(
        session_id=req.session_id,
        utterance_id=req.utterance_id,
        text=req.text,
        question=req.question,
        recent_turns=tuple(turns),
        methodology=req.methodology,
        concept=concept(req.concept),
        existing_nodes=tuple(existing),
        srl=srl,
    )


def concept(msg: common_pb2.Concept) -> ConceptBrief:
    """The concept as the extractor needs it."""
    return ConceptBrief(
        id=msg.id,
        name=msg.name,
        objective=msg.objective,
        vocabulary=tuple(w for w in msg.vocabulary if w.strip()),
    )


def _span_in(msg: extraction_pb2.Span, text: str, field: str, v: Violations) -> TextSpan | None:
    if not (0 <= msg.start <= msg.end <= len(text)) or text[msg.start : msg.end] != msg.text:
        v.add(field, "span does not match the text at its offsets")
        return None
    return TextSpan(text=msg.text, start=msg.start, end=msg.end)


def preprocess_result(
    msg: extraction_pb2.PreprocessResponse, text: str, v: Violations
) -> PreprocessResult | None:
    """SRL hints sent back by the caller (checked against the answer's text)."""
    mode = _MODE_FROM_PB.get(msg.mode)
    if mode is None:
        return None  # an unset hint block is treated as absent
    relations: list[DiscourseRelation] = []
    for i, rel in enumerate(msg.discourse_relations):
        f = f"srl.discourse_relations[{i}]"
        try:
            kind = RelationKind(rel.relation)
        except ValueError:
            v.add(f"{f}.relation", f"unknown relation {rel.relation!r}")
            continue
        right = _span_in(rel.right, text, f"{f}.right", v)
        left = _span_in(rel.left, text, f"{f}.left", v) if rel.HasField("left") else None
        if right is not None:
            marker = TextSpan(text=rel.marker, start=right.start, end=right.start)
            relations.append(
                DiscourseRelation(
                    marker=rel.marker, marker_span=marker, relation=kind, left=left, right=right
                )
            )
    frames: list[PredicateFrame] = []
    for i, fr in enumerate(msg.frames):
        f = f"srl.frames[{i}]"
        pred = _span_in(fr.predicate, text, f"{f}.predicate", v)
        subj = _span_in(fr.subject, text, f"{f}.subject", v) if fr.HasField("subject") else None
        obj = _span_in(fr.object, text, f"{f}.object", v) if fr.HasField("object") else None
        if pred is not None:
            frames.append(
                PredicateFrame(
                    subject=subj,
                    predicate=pred,
                    predicate_lemma=fr.predicate_lemma,
                    object=obj,
                    negated=fr.negated,
                )
            )
    return PreprocessResult(mode=mode, discourse_relations=tuple(relations), frames=tuple(frames))


# ------------------------------------------------------------------------- responses


def span(s: TextSpan) -> extraction_pb2.Span:
    """A text span."""
    return extraction_pb2.Span(text=s.text, start=s.start, end=s.end)


def intent(result: IntentResult) -> extraction_pb2.IntentResult:
    """An intent classification."""
    return extraction_pb2.IntentResult(
        intent=_INTENT_TO_PB[result.intent], confidence=result.confidence, rationale=result.rationale
    )


def intent_from_pb(msg: extraction_pb2.IntentResult) -> IntentResult | None:
    """The domain intent of a proto one (None when unset)."""
    value = _INTENT_FROM_PB.get(msg.intent)
    return (
        None
        if value is None
        else IntentResult(intent=value, confidence=msg.confidence, rationale=msg.rationale)
    )


def _sentence(s: SentenceInfo) -> extraction_pb2.Sentence:
    return extraction_pb2.Sentence(span=span(s.span), lemmas=list(s.lemmas))


def _relation(r: DiscourseRelation) -> extraction_pb2.DiscourseRelation:
    msg = extraction_pb2.DiscourseRelation(marker=r.marker, relation=r.relation.value, right=span(r.right))
    if r.left is not None:
        msg.left.CopyFrom(span(r.left))
    return msg


def _frame(f: PredicateFrame) -> extraction_pb2.PredicateFrame:
    msg = extraction_pb2.PredicateFrame(
        predicate=span(f.predicate), predicate_lemma=f.predicate_lemma, negated=f.negated
    )
    if f.subject is not None:
        msg.subject.CopyFrom(span(f.subject))
    if f.object is not None:
        msg.object.CopyFrom(span(f.object))
    return msg


def preprocess_response(result: PreprocessResult) -> extraction_pb2.PreprocessResponse:
    """Stage 2.5 output."""
    msg = extraction_pb2.PreprocessResponse(
        mode=_MODE_TO_PB[result.mode],
        sentences=[_sentence(s) for s in result.sentences],
        discourse_relations=[_relation(r) for r in result.discourse_relations],
        frames=[_frame(f) for f in result.frames],
    )
    if result.intent is not None:
        msg.intent.CopyFrom(intent(result.intent))
    return msg


def _quote(q: Quote) -> common_pb2.Quote:
    return common_pb2.Quote(text=q.text, start=q.start, end=q.end, utterance_id=q.utterance_id)


def _concept_pb(c: ExtractedConcept) -> common_pb2.ExtractedConcept:
    return common_pb2.ExtractedConcept(
        label=c.label,
        node_type=c.node_type,
        confidence=c.confidence,
        stance=c.stance,
        quote=_quote(c.quote),
        source_utterance_id=c.source_utterance_id,
        properties=dict(c.properties),
    )


def _relationship_pb(r: ExtractedRelationship) -> common_pb2.ExtractedRelationship:
    return common_pb2.ExtractedRelationship(
        source_label=r.source_label,
        target_label=r.target_label,
        edge_type=r.edge_type,
        confidence=r.confidence,
        quote=_quote(r.quote),
        source_utterance_id=r.source_utterance_id,
    )


def usage(u: LLMUsage) -> common_pb2.LlmUsage:
    """LLM usage (calls=0 for the offline extractor and for skipped answers)."""
    return common_pb2.LlmUsage(
        client=u.client,
        provider=u.provider,
        model=u.model,
        input_tokens=u.input_tokens,
        output_tokens=u.output_tokens,
        cost_usd=u.cost_usd,
        latency_ms=u.latency_ms,
        calls=u.calls,
    )


def extract_response(result: ExtractionResult) -> extraction_pb2.ExtractResponse:
    """Stage 3 output."""
    return extraction_pb2.ExtractResponse(
        concepts=[_concept_pb(c) for c in result.concepts],
        relationships=[_relationship_pb(r) for r in result.relationships],
        warnings=list(result.warnings),
        skipped=result.skipped,
        skip_reason=result.skip_reason,
        usage=usage(result.usage),
    )
