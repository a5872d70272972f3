"""Protobuf ⇄ domain conversion at the public API's edge."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

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
from shared.validation import is_valid_id

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


def utterance_to_pb(row: Utterance, turn_count: int | None = None) -> orchestrator_pb2.Utterance:
    """One transcript entry (a row of `OrchestratorRepository.list_utterances`); with the session's
    `turn_count`, an answer to a turn beyond it (stored before its turn failed) is `unprocessed`."""
    message = orchestrator_pb2.Utterance(
        utterance_id=row.id,
        turn_number=row.turn_number,
        speaker=row.speaker,
        text=row.text,
        unprocessed=turn_count is not None
        and row.speaker == common_pb2.SPEAKER_RESPONDENT
        and row.turn_number > turn_count,
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


# -- page tokens ------------------------------------------------------------------------------------
# A token is URL-safe base64 of a small JSON object naming the listing, its filter and the position
# after which the next page starts. The listing and filter are in the token because AIP-158 requires
# every other request field to match the call that returned it: a token of ListSessions used with
# ListConcepts, or a `status: COMPLETED` token used with `status: ACTIVE`, is refused rather than
# silently paging another listing.
_TOKEN_FORMAT = 1
# Real tokens are well under 200 characters; the cap keeps a forged one from costing work (and from
# being echoed back at length).
MAX_PAGE_TOKEN_CHARS = 512
# A position beyond any real listing is a forged token: refused here, it never reaches code that needs
# a machine integer (a forged offset once reached SQLite as an OverflowError, an INTERNAL).
MAX_PAGE_OFFSET = 2**31 - 1
_NOT_OURS = "is not a token from a previous response"


@dataclass(frozen=True)
class SessionCursor:
    """The last session of a ListSessions page: the next page holds sessions strictly after it in
    the listing's order (newest first, then id), so a session created meanwhile shifts nothing."""

    create_time: datetime  # timezone-aware UTC
    session_id: str


def page_limit(page_size: int) -> int:
    """The page size to serve: 0 → the default; above the maximum → the maximum; negative →
    INVALID_ARGUMENT on page_size."""
    if page_size < 0:
        raise InvalidArgumentError.for_field("page_size", "must not be negative")
    return min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


def encode_page_token(listing: str, filter_value: str, after: object) -> str:
    """The opaque token of the page after position `after` (JSON-serialisable) of a listing."""
    raw = json.dumps({"v": _TOKEN_FORMAT, "l": listing, "f": filter_value, "a": after}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_page_token(token: str, *, listing: str, filter_field: str, filter_value: str) -> Any:
    """The position a token of this listing and filter points after (its shape is the caller's to
    check); INVALID_ARGUMENT on page_token when it is corrupt or belongs to another listing or filter.

    `listing` is the RPC's name, used in messages; `filter_field` names the request field the filter
    comes from ("" for a listing without one)."""
    data: Any = None
    if len(token) <= MAX_PAGE_TOKEN_CHARS:
        try:
            data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
        except (binascii.Error, ValueError, UnicodeDecodeError):
            data = None  # ValueError covers bad JSON and over-long integer literals alike
    if (
        not isinstance(data, dict)
        or type(data.get("v")) is not int  # JSON `true` equals 1 to Python
        or data.get("v") != _TOKEN_FORMAT
        or not isinstance(data.get("l"), str)
        or not isinstance(data.get("f"), str)
        or "a" not in data
    ):
        raise InvalidArgumentError.for_field("page_token", _NOT_OURS)
    if data["l"] != listing:
        raise InvalidArgumentError.for_field(
            "page_token", f"is a token of another listing, not of {listing}; start {listing} without one"
        )
    if data["f"] != filter_value:
        field = filter_field or "filter"
        raise InvalidArgumentError.for_field(
            "page_token",
            f"was returned for a different {field}; send the same {field} as the request that "
            "returned it, or start again without a page_token",
        )
    return data["a"]


def offset_page(
    page_size: int, page_token: str, *, listing: str, filter_field: str = "", filter_value: str = ""
) -> tuple[int, int]:
    """(offset, limit) of a listing paged by position (the catalogue: fixed for the process's life)."""
    limit = page_limit(page_size)
    if not page_token:
        return 0, limit
    offset = decode_page_token(
        page_token, listing=listing, filter_field=filter_field, filter_value=filter_value
    )
    # bool is an int to Python; JSON `true` is no offset.
    if type(offset) is not int or not 0 < offset <= MAX_PAGE_OFFSET:
        raise InvalidArgumentError.for_field("page_token", _NOT_OURS)
    return offset, limit


def next_offset_token(offset: int, limit: int, total: int, *, listing: str, filter_value: str = "") -> str:
    """The token of the page after [offset, offset + limit), or empty at the end."""
    if offset + limit >= total:
        return ""
    return encode_page_token(listing, filter_value, offset + limit)


def session_cursor(page_token: str, status: str) -> SessionCursor | None:
    """The cursor of a ListSessions token for this status filter ("" = any), None for the first
    page; INVALID_ARGUMENT on page_token when it is not such a token."""
    if not page_token:
        return None
    after = decode_page_token(page_token, listing="ListSessions", filter_field="status", filter_value=status)
    cursor: SessionCursor | None = None
    if isinstance(after, list) and len(after) == 2 and all(isinstance(part, str) for part in after):
        stamp, session_id = after
        try:
            create_time = datetime.fromisoformat(stamp)
            # An id of the ids' alphabet only: a forged one reaches the query ("\ud800" did, as an
            # encoding error, INTERNAL).
            if create_time.tzinfo is not None and is_valid_id(session_id):
                cursor = SessionCursor(create_time.astimezone(UTC), session_id)
        except (ValueError, OverflowError):  # not a time, or one that leaves datetime's range in UTC
            cursor = None
    if cursor is None:
        raise InvalidArgumentError.for_field("page_token", _NOT_OURS)
    return cursor


def session_page_token(status: str, last: SessionRow) -> str:
    """The ListSessions token of the page after `last` (the last session of this page)."""
    created = last.created_at
    # SQLite hands back naive datetimes (the stored value is UTC); PostgreSQL aware ones.
    created = created.replace(tzinfo=UTC) if created.tzinfo is None else created.astimezone(UTC)
    return encode_page_token("ListSessions", status, [created.isoformat(), last.id])
