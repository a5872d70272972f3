"""Input validation of an extraction against the methodology's ontology.

Every problem is collected and raised at once as `InvalidArgumentError` with field violations,
before anything is written. Problems that only drop one relationship (an edge type the ontology
does not know or a connection it does not permit) are not input errors: they become warnings of
the result (`ontology.edge_rejection`).
"""

from __future__ import annotations

from shared.methodology_models import MethodologyConfig
from shared.validation import Violations

from .domain import ExtractionInput, QuoteHint, WarningCode
from .text import normalise_label

MAX_LABEL_CHARS = 500
"""Longest accepted concept label (labels are short noun phrases; this bounds index keys)."""


def _label(v: Violations, value: str, field: str) -> None:
    if v.check(bool(normalise_label(value)), field, "must not be empty"):
        v.check(len(value) <= MAX_LABEL_CHARS, field, f"must be at most {MAX_LABEL_CHARS} characters")


def _confidence(v: Violations, value: float, field: str) -> None:
    v.check(0.0 <= value <= 1.0, field, "must be between 0 and 1")  # also rejects NaN


def _provenance(v: Violations, inp: ExtractionInput, source: str, quote: QuoteHint | None, path: str) -> None:
    v.check(
        source in ("", inp.utterance_id),
        f"{path}.source_utterance_id",
        "must be empty or equal to utterance_id",
    )
    if quote is not None and quote.utterance_id:
        v.check(
            quote.utterance_id == inp.utterance_id,
            f"{path}.quote.utterance_id",
            "must be empty or equal to utterance_id",
        )


def validate_extraction(inp: ExtractionInput, methodology: MethodologyConfig, *, max_text_chars: int) -> None:
    """Raise `InvalidArgumentError` listing every invalid field of `inp`; return if it is valid."""
    v = Violations()
    v.require_id(inp.session_id, "session_id")
    v.require_id(inp.utterance_id, "utterance_id")
    v.check(inp.turn_number >= 0, "turn_number", "must not be negative")
    v.require_text(
        inp.utterance_text,
        "utterance_text",
        max_text_chars,
        allow_empty=not (inp.concepts or inp.relationships),
    )
    known_types = [n.name for n in methodology.ontology.nodes]
    for i, c in enumerate(inp.concepts):
        path = f"concepts[{i}]"
        _label(v, c.label, f"{path}.label")
        v.check(
            c.node_type in known_types,
            f"{path}.node_type",
            f"{c.node_type!r} is not a node type of methodology {methodology.name!r} "
            f"(one of {', '.join(known_types)})",
        )
        _confidence(v, c.confidence, f"{path}.confidence")
        v.check(c.stance in (-1, 0, 1), f"{path}.stance", "must be -1, 0 or +1")
        _provenance(v, inp, c.source_utterance_id, c.quote, path)
    for i, r in enumerate(inp.relationships):
        path = f"relationships[{i}]"
        _label(v, r.source_label, f"{path}.source_label")
        _label(v, r.target_label, f"{path}.target_label")
        v.check(bool(r.edge_type.strip()), f"{path}.edge_type", "must not be empty")
        _confidence(v, r.confidence, f"{path}.confidence")
        _provenance(v, inp, r.source_utterance_id, r.quote, path)
    v.raise_if_any()


def edge_rejection(
    methodology: MethodologyConfig, edge_type: str, source_type: str, target_type: str
) -> tuple[WarningCode, str] | None:
    """Why the ontology forbids this edge, or None when it is allowed.

    An edge type with no `permitted_connections` listed may connect any two node types.
    """
    spec = methodology.edge_type(edge_type)
    if spec is None:
        known = ", ".join(e.name for e in methodology.ontology.edges)
        return (
            WarningCode.UNKNOWN_EDGE_TYPE,
            f"edge type {edge_type!r} is not in methodology {methodology.name!r} (one of {known})",
        )
    if spec.permitted_connections and (source_type, target_type) not in spec.permitted_connections:
        return (
            WarningCode.CONNECTION_NOT_PERMITTED,
            f"{edge_type!r} may not connect {source_type!r} to {target_type!r} in {methodology.name!r}",
        )
    return None
