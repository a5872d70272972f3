"""Fixtures of the question service's unit tests: the shipped methodologies and request builders."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict, Unpack

import pytest

from services.question.models import (
    ConceptBrief,
    FocusNode,
    FollowUpRequest,
    GraphDigest,
    RespondentIntent,
    SignalReason,
    Utterance,
)
from services.question.offline import FollowUpComposer
from services.question.spoken import SpokenLabels
from services.question.wordforms import WordForms
from shared.methodology import MethodologyRegistry
from shared.methodology_models import FocusMode, InterviewPhase

CONFIG_DIR = Path(__file__).resolve().parents[3] / "config"


class FollowUpOverrides(TypedDict, total=False):
    """`FollowUpRequest` fields `asked_over_turns` passes on to `follow_up` unchanged."""

    concept: ConceptBrief
    focus_mode: FocusMode | None
    recent_turns: tuple[Utterance, ...]
    graph_summary: GraphDigest
    rationale: tuple[SignalReason, ...]
    previous_questions: tuple[str, ...]
    phase: InterviewPhase | None
    respondent_intent: RespondentIntent


class FollowUpFields(FollowUpOverrides, total=False):
    """The `FollowUpRequest` fields `follow_up` takes as keyword overrides."""

    focus: FocusNode


@pytest.fixture(scope="session")
def methodologies() -> MethodologyRegistry:
    """The methodologies shipped in `config/methodologies` (loaded once)."""
    return MethodologyRegistry(CONFIG_DIR)


def follow_up(
    *,
    methodology: str = "means_end_chain",
    strategy: str = "deepen",
    label: str = "long battery life",
    turn: int = 3,
    session_id: str = "sess-1",
    **overrides: Unpack[FollowUpFields],
) -> FollowUpRequest:
    """A follow-up request with sensible defaults; keyword overrides replace fields."""
    fields: dict[str, object] = {
        "session_id": session_id,
        "turn_number": turn,
        "methodology": methodology,
        "concept": ConceptBrief(
            id="headphones", name="Wireless Headphones", objective="Why people pick headphones"
        ),
        "strategy": strategy,
        "focus": FocusNode(node_id="n1", label=label, node_type="attribute") if label else FocusNode(),
        "graph_summary": GraphDigest(
            node_count=4,
            edge_count=2,
            max_depth=1,
            node_labels=("long battery life", "noise cancelling", "comfortable fit"),
        ),
    }
    fields.update(overrides)
    return FollowUpRequest.model_validate(fields)


def asked_over_turns(
    methodologies: MethodologyRegistry,
    spoken: SpokenLabels,
    methodology: str,
    strategy: str,
    focus: FocusNode,
    turns: range = range(3, 12),
    **overrides: Unpack[FollowUpOverrides],
) -> set[str]:
    """The distinct follow-up questions the offline engine asks of `focus` over `turns` (the wording
    rotates with the turn), through the strategy's template family; `overrides` go to `follow_up`."""
    cfg = methodologies.get(methodology)
    chosen = cfg.strategy(strategy)
    assert chosen is not None, strategy
    return {
        FollowUpComposer(
            follow_up(methodology=cfg.name, strategy=strategy, turn=t, focus=focus, **overrides),
            cfg,
            chosen,
            spoken,
        ).compose()
        for t in turns
    }


@pytest.fixture(scope="session")
def spoken() -> SpokenLabels:
    """Label rendering with the real spaCy word tables (loaded once per test session)."""
    return SpokenLabels(WordForms.load())
