"""Request validation: every violation at once, named like the proto fields."""

from __future__ import annotations

import pytest

from services.question.models import (
    ClosingRequest,
    ConceptBrief,
    FocusNode,
    GraphDigest,
    OpeningRequest,
    RephraseRequest,
    Speaker,
    Utterance,
)
from services.question.validation import (
    MAX_LABEL_CHARS,
    MAX_LIST_ITEMS,
    validate_closing,
    validate_follow_up,
    validate_opening,
    validate_rephrase,
)
from shared.errors import InvalidArgumentError
from shared.methodology import MethodologyRegistry
from tests.unit.question.conftest import follow_up

MAX = 100


def _fields(exc: pytest.ExceptionInfo[InvalidArgumentError]) -> dict[str, str]:
    return {v.field: v.description for v in exc.value.violations}


def test_valid_follow_up_returns_methodology_and_strategy(methodologies: MethodologyRegistry) -> None:
    methodology, strategy = validate_follow_up(follow_up(), methodologies, MAX)
    assert methodology.name == "means_end_chain"
    assert strategy.name == "deepen"
    deepen = methodologies.get("means_end_chain").strategy("deepen")
    assert deepen is not None
    assert strategy.description == deepen.description


def test_unknown_methodology(methodologies: MethodologyRegistry) -> None:
    with pytest.raises(InvalidArgumentError) as exc:
        validate_follow_up(follow_up(methodology="astrology"), methodologies, MAX)
    fields = _fields(exc)
    assert "unknown methodology 'astrology'" in fields["methodology"]
    assert "means_end_chain" in fields["methodology"]  # lists the known ones


def test_empty_methodology_is_never_defaulted(methodologies: MethodologyRegistry) -> None:
    with pytest.raises(InvalidArgumentError) as exc:
        validate_opening(
            OpeningRequest(session_id="s1", methodology="", concept=ConceptBrief(name="x")),
            methodologies,
            MAX,
        )
    assert "methodology" in _fields(exc)


def test_strategy_must_belong_to_the_sessions_methodology(methodologies: MethodologyRegistry) -> None:
    # `deepen` exists in means_end_chain, not in jobs_to_be_done.
    with pytest.raises(InvalidArgumentError) as exc:
        validate_follow_up(follow_up(methodology="jobs_to_be_done", strategy="deepen"), methodologies, MAX)
    description = _fields(exc)["strategy"]
    assert "unknown strategy 'deepen' for methodology 'jobs_to_be_done'" in description
    assert "dig_for_job" in description


def test_every_violation_is_reported_at_once(methodologies: MethodologyRegistry) -> None:
    req = follow_up(
        session_id="",
        turn=0,
        strategy="",
        recent_turns=(
            Utterance(speaker=Speaker.INTERVIEWER, text="ok"),
            Utterance(speaker=Speaker.RESPONDENT, text="x" * (MAX + 1)),
            Utterance(speaker=Speaker.UNSPECIFIED, text="who said this"),
        ),
        focus=FocusNode(node_id="n9", label=""),
        previous_questions=("y" * (MAX + 1),),
        concept=ConceptBrief(name=""),
    )
    with pytest.raises(InvalidArgumentError) as exc:
        validate_follow_up(req, methodologies, MAX)
    fields = _fields(exc)
    assert set(fields) == {
        "session_id",
        "turn_number",
        "strategy",
        "concept.name",
        "focus.label",
        "recent_turns[1].text",
        "recent_turns[2].speaker",
        "previous_questions[0]",
    }
    assert fields["recent_turns[1].text"] == f"must be at most {MAX} characters (got {MAX + 1})"
    assert "session_id" in str(exc.value)


def test_field_prefix_for_the_streaming_request(methodologies: MethodologyRegistry) -> None:
    with pytest.raises(InvalidArgumentError) as exc:
        validate_follow_up(follow_up(strategy="nope"), methodologies, MAX, field_prefix="request")
    assert set(_fields(exc)) == {"request.strategy"}


def test_closing_and_rephrase(methodologies: MethodologyRegistry) -> None:
    ok = ClosingRequest(session_id="s1", methodology="repertory_grid", concept=ConceptBrief(name="Streaming"))
    assert validate_closing(ok, methodologies, MAX).name == "repertory_grid"
    with pytest.raises(InvalidArgumentError) as exc:
        validate_rephrase(
            RephraseRequest(session_id="bad id!", methodology="means_end_chain", question=""),
            methodologies,
            MAX,
        )
    assert set(_fields(exc)) == {"session_id", "question"}
    for attempt in (0, -1, 11):
        with pytest.raises(InvalidArgumentError) as exc:
            validate_rephrase(
                RephraseRequest(
                    session_id="s1", methodology="means_end_chain", question="Why?", attempt=attempt
                ),
                methodologies,
                MAX,
            )
        assert set(_fields(exc)) == {"attempt"}
    assert (
        validate_rephrase(
            RephraseRequest(session_id="s1", methodology="means_end_chain", question="Why?"),
            methodologies,
            MAX,
        ).name
        == "means_end_chain"
    )


def test_the_graph_summarys_element_labels_are_bounded(methodologies: MethodologyRegistry) -> None:
    graph = GraphDigest(element_labels=("Netflix", "x" * (MAX_LABEL_CHARS + 1)))
    with pytest.raises(InvalidArgumentError) as exc:
        validate_follow_up(follow_up(graph_summary=graph), methodologies, MAX)
    assert set(_fields(exc)) == {"graph_summary.element_labels[1]"}
    many = GraphDigest(element_labels=tuple(f"element {i}" for i in range(MAX_LIST_ITEMS + 1)))
    req = ClosingRequest(
        session_id="s1", methodology="repertory_grid", concept=ConceptBrief(name="TV"), graph_summary=many
    )
    with pytest.raises(InvalidArgumentError) as exc:
        validate_closing(req, methodologies, MAX)
    assert _fields(exc) == {"graph_summary.element_labels": f"at most {MAX_LIST_ITEMS} labels"}
