"""Protobuf ⇄ domain conversion at the public API's edge."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime

from google.protobuf.timestamp_pb2 import Timestamp

from services.orchestrator.contracts import SessionState
from services.orchestrator.models import SessionRow
from services.orchestrator.repository import Utterance
from services.orchestrator.stages.decision import FOCUS_MODES, PHASES
from services.orchestrator.stages.output import usage_summary
from shared.errors import InvalidArgumentError
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2
from shared.methodology_models import ConceptConfig, MethodologyConfig, NodeBinding
from shared.timestamps import to_timestamp

STATUS_TO_PB = {
    "active": orchestrator_pb2.SESSION_STATUS_ACTIVE,
    "paused": orchestrator_pb2.SESSION_STATUS_PAUSED,
    "completed": orchestrator_pb2.SESSION_STATUS_COMPLETED,
}
STATUS_FROM_PB = {v: k for k, v in STATUS_TO_PB.items()}
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500


def timestamp(value: datetime | None) -> Timestamp | None:
    """A protobuf Timestamp, or None."""
    return None if value is None else to_timestamp(value)


def session_to_pb(row: SessionRow) -> orchestrator_pb2.Session:
    """The public view of a session."""
    state = SessionState.model_validate(row.state or {})
    message = orchestrator_pb2.Session(
        session_id=row.id,
        concept_id=row.concept_id,
        concept_name=row.concept_name,
        methodology=row.methodology,
        status=STATUS_TO_PB.get(row.status, orchestrator_pb2.SESSION_STATUS_UNSPECIFIED),
        max_turns=row.max_turns,
        turn_count=row.turn_count,
        phase=row.phase,  # type: ignore[arg-type]
        termination_reason=row.termination_reason,  # type: ignore[arg-type]
        metadata=dict(row.metadata_ or {}),
        current_question=row.current_question,
        focus_history=[
            orchestrator_pb2.FocusEntry(turn=f.turn, node_id=f.node_id, label=f.label, strategy=f.strategy)
            for f in state.focus_history
        ],
        strategy_history=state.strategy_history,
        usage=usage_summary(state.usage),
        canonical_enabled=row.canonical_enabled,
    )
    for field, value in (
        ("create_time", row.created_at),
        ("update_time", row.updated_at),
        ("end_time", row.ended_at),
    ):
        ts = timestamp(value)
        if ts is not None:
            getattr(message, field).CopyFrom(ts)
    return message


def utterance_to_pb(row: Utterance) -> orchestrator_pb2.Utterance:
    """One transcript entry (a row of `OrchestratorRepository.list_utterances`)."""
    message = orchestrator_pb2.Utterance(
        utterance_id=row.id,
        turn_number=row.turn_number,
        speaker=row.speaker,
        text=row.text,
    )
    ts = timestamp(row.created_at)
    if ts is not None:
        message.create_time.CopyFrom(ts)
    return message


def concept_to_pb(concept: ConceptConfig) -> common_pb2.Concept:
    """A concept as the API and the internal services see it."""
    return common_pb2.Concept(
        id=concept.id,
        name=concept.name,
        methodology=concept.methodology,
        objective=concept.objective,
        max_turns=concept.max_turns or 0,
        vocabulary=list(concept.vocabulary),
    )


def methodology_to_pb(config: MethodologyConfig) -> common_pb2.Methodology:
    """A methodology in full."""
    method = config.method
    return common_pb2.Methodology(
        name=method.name,
        version=method.version,
        goal=method.goal,
        description=method.description,
        opening_bias=method.opening_bias,
        node_types=[
            common_pb2.OntologyNodeType(
                name=n.name,
                level=n.level,
                terminal=n.terminal,
                description=n.description,
                examples=list(n.examples),
            )
            for n in config.ontology.nodes
        ],
        edge_types=[
            common_pb2.OntologyEdgeType(
                name=e.name,
                description=e.description,
                permitted_connections=[
                    common_pb2.PermittedConnection(source_type=s, target_type=t)
                    for s, t in e.permitted_connections
                ],
            )
            for e in config.ontology.edges
        ],
        extraction_guidelines=list(config.ontology.extraction_guidelines),
        signal_pools=[common_pb2.SignalPool(pool=p, signals=list(s)) for p, s in config.signals.items()],
        strategies=[
            common_pb2.Strategy(
                name=s.name,
                description=s.description,
                signal_weights=dict(s.signal_weights),
                node_binding=(
                    common_pb2.NODE_BINDING_NONE
                    if s.node_binding == NodeBinding.NONE
                    else common_pb2.NODE_BINDING_REQUIRED
                ),
                focus_mode=FOCUS_MODES[s.focus_mode],
                generates_closing_question=s.generates_closing_question,
                focus_node_types=list(s.focus_node_types),
            )
            for s in config.strategies
        ],
        phases=[
            common_pb2.Phase(
                phase=PHASES[name],
                description=p.description,
                multipliers=dict(p.signal_weights),
                bonuses=dict(p.phase_bonuses),
            )
            for name, p in config.phases.items()
        ],
    )


def page_bounds(page_size: int, page_token: str) -> tuple[int, int]:
    """(offset, limit) from a page size and an opaque token; INVALID_ARGUMENT when malformed."""
    if page_size < 0:
        raise InvalidArgumentError.for_field("page_size", "must not be negative")
    limit = min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
    if not page_token:
        return 0, limit
    try:
        decoded = base64.urlsafe_b64decode(page_token.encode()).decode()
        if not decoded.startswith("o:"):
            raise ValueError(decoded)
        offset = int(decoded[2:])
        if offset < 0:
            raise ValueError(decoded)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidArgumentError.for_field(
            "page_token", "is not a token from a previous response"
        ) from None
    return offset, limit


def next_token(offset: int, limit: int, total: int) -> str:
    """The token of the next page, or empty at the end."""
    if offset + limit >= total:
        return ""
    return base64.urlsafe_b64encode(f"o:{offset + limit}".encode()).decode()
