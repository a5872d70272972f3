"""Protobuf ⇄ domain conversion for the question service (the only module that knows both).

Enums are mapped by name (`FOCUS_MODE_RECENT_NODE` -> `recent_node`); an enum number this build
does not know is an INVALID_ARGUMENT on that field, never a silent default.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any, TypeVar

from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper

from services.question.models import (
    ClosingRequest,
    ConceptBrief,
    FocusNode,
    FollowUpRequest,
    Generated,
    GraphDigest,
    OpeningRequest,
    RephraseRequest,
    RespondentIntent,
    SignalReason,
    SignalScalar,
    Speaker,
    TerminationReason,
    Utterance,
)
from shared.errors import InvalidArgumentError
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.question.v1 import question_pb2
from shared.llm.base import LLMUsage
from shared.methodology_models import FocusMode, InterviewPhase

E = TypeVar("E", bound=StrEnum)


def _enum(wrapper: EnumTypeWrapper, number: int, prefix: str, target: type[E], field: str) -> E | None:
    """The domain enum member for a proto enum number; None for `*_UNSPECIFIED`."""
    try:
        name = wrapper.Name(number)
    except ValueError:
        raise InvalidArgumentError.for_field(field, f"unknown enum value {number}") from None
    suffix = name.removeprefix(prefix).lower()
    if suffix == "unspecified":
        return None
    try:
        return target(suffix)
    except ValueError:
        raise InvalidArgumentError.for_field(field, f"unsupported value {name}") from None


def concept(msg: common_pb2.Concept) -> ConceptBrief:
    """The concept as the question service needs it (topic and objective)."""
    return ConceptBrief(id=msg.id, name=msg.name, objective=msg.objective)


def utterances(
    turns: Sequence[common_pb2.ConversationTurn], field: str = "recent_turns"
) -> tuple[Utterance, ...]:
    """Conversation turns, oldest first."""
    out: list[Utterance] = []
    for i, turn in enumerate(turns):
        speaker = _enum(common_pb2.Speaker, turn.speaker, "SPEAKER_", Speaker, f"{field}[{i}].speaker")
        out.append(
            Utterance(speaker=speaker or Speaker.UNSPECIFIED, text=turn.text, turn_number=turn.turn_number)
        )
    return tuple(out)


def graph_digest(msg: question_pb2.GraphSummary) -> GraphDigest:
    """Graph metrics and salient labels."""
    state = msg.graph_state
    return GraphDigest(
        node_count=state.node_count,
        edge_count=state.edge_count,
        max_depth=state.depth.max_depth,
        has_complete_chain=state.chain_completion.has_complete,
        node_labels=tuple(msg.node_labels),
        element_labels=tuple(msg.element_labels),
        longest_chain_labels=tuple(msg.longest_chain_labels),
        # the types name the graph store's chain; labels looked up otherwise come without them
        longest_chain_types=tuple(state.depth.longest_chain_node_types)
        if len(state.depth.longest_chain_node_types) == len(msg.longest_chain_labels)
        else (),
        longest_chain_edge_types=tuple(state.depth.longest_chain_edge_types)
        if msg.longest_chain_labels
        and len(state.depth.longest_chain_edge_types) == len(msg.longest_chain_labels) - 1
        else (),
    )


def signal_value(msg: common_pb2.SignalValue) -> SignalScalar | None:
    """The set member of a SignalValue oneof, or None when nothing is set."""
    kind = msg.WhichOneof("kind")
    if kind is None:
        return None
    value: Any = getattr(msg, kind)
    if kind == "bool_value":
        return bool(value)
    if kind == "int_value":
        return int(value)
    if kind == "double_value":
        return float(value)
    return str(value)


def opening_request(msg: question_pb2.GenerateOpeningQuestionRequest) -> OpeningRequest:
    """GenerateOpeningQuestionRequest -> OpeningRequest."""
    return OpeningRequest(
        session_id=msg.session_id, methodology=msg.methodology, concept=concept(msg.concept)
    )


def follow_up_request(msg: question_pb2.GenerateFollowUpQuestionRequest, prefix: str = "") -> FollowUpRequest:
    """GenerateFollowUpQuestionRequest -> FollowUpRequest (`prefix` names the field when nested)."""
    mode = _enum(common_pb2.FocusMode, msg.focus_mode, "FOCUS_MODE_", FocusMode, f"{prefix}focus_mode")
    phase = _enum(common_pb2.InterviewPhase, msg.phase, "INTERVIEW_PHASE_", InterviewPhase, f"{prefix}phase")
    intent = _enum(
        common_pb2.RespondentIntent,
        msg.respondent_intent,
        "RESPONDENT_INTENT_",
        RespondentIntent,
        f"{prefix}respondent_intent",
    )
    return FollowUpRequest(
        session_id=msg.session_id,
        turn_number=msg.turn_number,
        methodology=msg.methodology,
        concept=concept(msg.concept),
        strategy=msg.strategy,
        focus=FocusNode(node_id=msg.focus.node_id, label=msg.focus.label, node_type=msg.focus.node_type),
        focus_mode=mode,
        recent_turns=utterances(msg.recent_turns, f"{prefix}recent_turns"),
        graph_summary=graph_digest(msg.graph_summary),
        rationale=tuple(
            SignalReason(
                signal_name=r.signal_name,
                value=signal_value(r.value),
                contribution=r.contribution,
                description=r.description,
            )
            for r in msg.rationale
        ),
        previous_questions=tuple(msg.previous_questions),
        phase=phase,
        respondent_intent=intent or RespondentIntent.UNSPECIFIED,
    )


def closing_request(msg: question_pb2.GenerateClosingMessageRequest) -> ClosingRequest:
    """GenerateClosingMessageRequest -> ClosingRequest."""
    reason = _enum(
        common_pb2.TerminationReason,
        msg.termination_reason,
        "TERMINATION_REASON_",
        TerminationReason,
        "termination_reason",
    )
    return ClosingRequest(
        session_id=msg.session_id,
        methodology=msg.methodology,
        concept=concept(msg.concept),
        recent_turns=utterances(msg.recent_turns),
        termination_reason=reason or TerminationReason.UNSPECIFIED,
        graph_summary=graph_digest(msg.graph_summary),
    )


def rephrase_request(msg: question_pb2.RephraseQuestionRequest) -> RephraseRequest:
    """RephraseQuestionRequest -> RephraseRequest."""
    return RephraseRequest(
        session_id=msg.session_id,
        methodology=msg.methodology,
        question=msg.question,
        respondent_text=msg.respondent_text,
        concept=concept(msg.concept),
        attempt=msg.attempt or 1,  # 0: unset (a client from before the field)
    )


def usage(value: LLMUsage) -> common_pb2.LlmUsage:
    """LLMUsage -> LlmUsage."""
    return common_pb2.LlmUsage(
        client=value.client or "generation",
        provider=value.provider,
        model=value.model,
        input_tokens=value.input_tokens,
        output_tokens=value.output_tokens,
        cost_usd=value.cost_usd,
        latency_ms=value.latency_ms,
        calls=value.calls,
    )


def opening_response(result: Generated) -> question_pb2.GenerateOpeningQuestionResponse:
    """Generated -> GenerateOpeningQuestionResponse."""
    return question_pb2.GenerateOpeningQuestionResponse(question=result.text, usage=usage(result.usage))


def follow_up_response(result: Generated) -> question_pb2.GenerateFollowUpQuestionResponse:
    """Generated -> GenerateFollowUpQuestionResponse."""
    return question_pb2.GenerateFollowUpQuestionResponse(question=result.text, usage=usage(result.usage))


def closing_response(result: Generated) -> question_pb2.GenerateClosingMessageResponse:
    """Generated -> GenerateClosingMessageResponse."""
    return question_pb2.GenerateClosingMessageResponse(message=result.text, usage=usage(result.usage))


def rephrase_response(result: Generated) -> question_pb2.RephraseQuestionResponse:
    """Generated -> RephraseQuestionResponse."""
    return question_pb2.RephraseQuestionResponse(question=result.text, usage=usage(result.usage))
