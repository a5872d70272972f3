"""Builders shared by the orchestrator's unit tests."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from services.orchestrator.contracts import ContextLoadingOutput
from services.orchestrator.models import SessionRow
from shared.gen.interview.common.v1 import common_pb2


def context_output(**overrides: Any) -> ContextLoadingOutput:
    """A context-loading output of a small means-end-chain session (fields overridable)."""
    values: dict[str, Any] = {
        "session_id": "s",
        "methodology": "means_end_chain",
        "concept": common_pb2.Concept(id="c"),
        "turn_number": 1,
        "max_turns": 5,
        "previous_question": "Why?",
        "recent_turns": [],
        "previous_questions": ["Why?"],
        "state": {},
        "tracker": {},
        "canonical_enabled": True,
        "slot_mode": "deferred",
        **overrides,
    }
    return ContextLoadingOutput(**values)


def session_row(session_id: str) -> SessionRow:
    """A new, active session row (no turn answered yet) with the opening question "Why?"."""
    now = datetime.now(UTC)
    return SessionRow(
        id=session_id,
        concept_id="c",
        concept_name="c",
        concept={"id": "c"},
        methodology="means_end_chain",
        status="active",
        max_turns=5,
        turn_count=0,
        phase=common_pb2.INTERVIEW_PHASE_EARLY,
        termination_reason=0,
        metadata_={},
        current_question="Why?",
        state={},
        node_tracker_state=None,
        canonical_enabled=True,
        created_at=now,
        updated_at=now,
    )
