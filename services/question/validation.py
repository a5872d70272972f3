"""Request validation for the question service (every violation at once, before any work).

Unknown methodology, unknown strategy *for that methodology*, empty session id and oversize
text all become `InvalidArgumentError` with field violations named like the proto fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from services.question.models import (
    ClosingRequest,
    ConceptBrief,
    FollowUpRequest,
    OpeningRequest,
    RephraseRequest,
    Speaker,
    Utterance,
)
from shared.methodology_models import MethodologyConfig, StrategyConfig
from shared.validation import Violations

MAX_LIST_ITEMS = 200
"""Upper bound on repeated request fields (recent turns, previous questions, rationale)."""

MAX_LABEL_CHARS = 500
# RephraseQuestionRequest.attempt: an orchestrator moves on long before this many rewordings.
MAX_REPHRASE_ATTEMPT = 10


class MethodologySource(Protocol):
    """What the service needs from `shared.methodology.MethodologyRegistry`."""

    def names(self) -> list[str]:
        """Registered methodology names."""
        ...

    def get(self, name: str) -> MethodologyConfig:
        """The methodology `name` (NotFoundError if unknown)."""
        ...


def _methodology(v: Violations, methodologies: MethodologySource, name: str) -> MethodologyConfig | None:
    if not name.strip():
        v.add("methodology", "must not be empty (the session's own methodology is required)")
        return None
    known = methodologies.names()
    if name not in known:
        v.add("methodology", f"unknown methodology {name!r}; known: {', '.join(sorted(known))}")
        return None
    return methodologies.get(name)


def _concept(v: Violations, concept: ConceptBrief, max_chars: int, *, require_name: bool) -> None:
    if require_name:
        v.require_text(concept.name, "concept.name", MAX_LABEL_CHARS)
    else:
        v.require_text(concept.name, "concept.name", MAX_LABEL_CHARS, allow_empty=True)
    v.require_text(concept.objective, "concept.objective", max_chars, allow_empty=True)


def _turns(v: Violations, turns: Sequence[Utterance], max_chars: int) -> None:
    v.check(len(turns) <= MAX_LIST_ITEMS, "recent_turns", f"at most {MAX_LIST_ITEMS} turns")
    for i, turn in enumerate(turns[:MAX_LIST_ITEMS]):
        v.check(turn.speaker is not Speaker.UNSPECIFIED, f"recent_turns[{i}].speaker", "must be specified")
        v.require_text(turn.text, f"recent_turns[{i}].text", max_chars, allow_empty=True)


def _labels(v: Violations, labels: Sequence[str], field: str) -> None:
    v.check(len(labels) <= MAX_LIST_ITEMS, field, f"at most {MAX_LIST_ITEMS} labels")
    for i, label in enumerate(labels[:MAX_LIST_ITEMS]):
        v.check(
            len(label) <= MAX_LABEL_CHARS, f"{field}[{i}]", f"must be at most {MAX_LABEL_CHARS} characters"
        )


def _checked(methodology: MethodologyConfig | None) -> MethodologyConfig:
    if methodology is None:  # pragma: no cover - raise_if_any() raised already
        raise RuntimeError("validation passed without a methodology")
    return methodology


def validate_opening(
    req: OpeningRequest, methodologies: MethodologySource, max_chars: int
) -> MethodologyConfig:
    """The session's methodology, or InvalidArgumentError."""
    v = Violations()
    v.require_id(req.session_id, "session_id")
    methodology = _methodology(v, methodologies, req.methodology)
    _concept(v, req.concept, max_chars, require_name=True)
    v.raise_if_any()
    return _checked(methodology)


def validate_follow_up(
    req: FollowUpRequest, methodologies: MethodologySource, max_chars: int, *, field_prefix: str = ""
) -> tuple[MethodologyConfig, StrategyConfig]:
    """The session's methodology and the selected strategy in it, or InvalidArgumentError.

    `field_prefix` names the enclosing field when the request is nested (the streaming RPC's
    `request`), so violations read `request.strategy`.
    """
    v = Violations(field_prefix)
    v.require_id(req.session_id, "session_id")
    v.check(req.turn_number >= 1, "turn_number", "must be >= 1 (turn 0 is the opening question)")
    methodology = _methodology(v, methodologies, req.methodology)
    strategy: StrategyConfig | None = None
    if not req.strategy.strip():
        v.add("strategy", "must not be empty")
    elif methodology is not None:
        strategy = methodology.strategy(req.strategy)
        if strategy is None:
            names = ", ".join(s.name for s in methodology.strategies)
            v.add(
                "strategy",
                f"unknown strategy {req.strategy!r} for methodology {methodology.name!r}; known: {names}",
            )
    _concept(v, req.concept, max_chars, require_name=True)
    v.check(
        len(req.focus.label) <= MAX_LABEL_CHARS,
        "focus.label",
        f"must be at most {MAX_LABEL_CHARS} characters",
    )
    v.check(
        not (req.focus.node_id.strip() and not req.focus.label.strip()),
        "focus.label",
        "required when focus.node_id is set (look the label up by id over the whole graph)",
    )
    _turns(v, req.recent_turns, max_chars)
    _labels(v, req.graph_summary.node_labels, "graph_summary.node_labels")
    _labels(v, req.graph_summary.longest_chain_labels, "graph_summary.longest_chain_labels")
    _labels(v, req.graph_summary.element_labels, "graph_summary.element_labels")
    v.check(len(req.rationale) <= MAX_LIST_ITEMS, "rationale", f"at most {MAX_LIST_ITEMS} entries")
    for i, reason in enumerate(req.rationale[:MAX_LIST_ITEMS]):
        v.require_text(reason.signal_name, f"rationale[{i}].signal_name", MAX_LABEL_CHARS)
        v.require_text(reason.description, f"rationale[{i}].description", max_chars, allow_empty=True)
    v.check(
        len(req.previous_questions) <= 10 * MAX_LIST_ITEMS,
        "previous_questions",
        f"at most {10 * MAX_LIST_ITEMS} questions",
    )
    for i, question in enumerate(req.previous_questions[: 10 * MAX_LIST_ITEMS]):
        v.require_text(question, f"previous_questions[{i}]", max_chars, allow_empty=True)
    v.raise_if_any()
    if methodology is None or strategy is None:  # pragma: no cover - raise_if_any() raised already
        raise RuntimeError("validation passed without a methodology and strategy")
    return methodology, strategy


def validate_closing(
    req: ClosingRequest, methodologies: MethodologySource, max_chars: int
) -> MethodologyConfig:
    """The session's methodology, or InvalidArgumentError."""
    v = Violations()
    v.require_id(req.session_id, "session_id")
    methodology = _methodology(v, methodologies, req.methodology)
    _concept(v, req.concept, max_chars, require_name=True)
    _turns(v, req.recent_turns, max_chars)
    _labels(v, req.graph_summary.node_labels, "graph_summary.node_labels")
    _labels(v, req.graph_summary.longest_chain_labels, "graph_summary.longest_chain_labels")
    _labels(v, req.graph_summary.element_labels, "graph_summary.element_labels")
    v.raise_if_any()
    return _checked(methodology)


def validate_rephrase(
    req: RephraseRequest, methodologies: MethodologySource, max_chars: int
) -> MethodologyConfig:
    """The session's methodology, or InvalidArgumentError."""
    v = Violations()
    v.require_id(req.session_id, "session_id")
    methodology = _methodology(v, methodologies, req.methodology)
    v.require_text(req.question, "question", max_chars)
    v.require_text(req.respondent_text, "respondent_text", max_chars, allow_empty=True)
    v.require_range(req.attempt, "attempt", minimum=1, maximum=MAX_REPHRASE_ATTEMPT)
    _concept(v, req.concept, max_chars, require_name=False)
    v.raise_if_any()
    return _checked(methodology)
