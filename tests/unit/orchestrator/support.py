"""Builders shared by the orchestrator's unit tests."""

from __future__ import annotations

from typing import Any

from services.orchestrator.contracts import ContextLoadingOutput
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
