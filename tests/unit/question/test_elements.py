"""Repertory-grid triads present elements only, never a pole or construct posing as one."""

from __future__ import annotations

import pytest

from services.question.elements import element_name, triad_labels
from services.question.models import FocusNode, FollowUpRequest, GraphDigest, Speaker, Utterance
from services.question.offline import FollowUpComposer
from services.question.spoken import SpokenLabels
from shared.methodology import MethodologyRegistry
from shared.methodology_models import MethodologyConfig, StrategyConfig
from tests.unit.question.conftest import asked_over_turns, follow_up

# Graph labels are lower-cased by extraction; the respondent wrote the names with capitals.
LABELS = ("lots of original shows", "netflix", "worth my evening", "youtube", "disney+", "endless scrolling")
POLES = {"lots of original shows", "worth my evening", "endless scrolling"}
SAID = (
    Utterance(speaker=Speaker.INTERVIEWER, text="Which streaming services do you know well?", turn_number=1),
    Utterance(
        speaker=Speaker.RESPONDENT,
        text="I pay for Netflix and Disney+, and I watch YouTube every day. "
        "Netflix has lots of original shows.",
        turn_number=1,
    ),
)


def _triad_strategy(methodologies: MethodologyRegistry) -> tuple[MethodologyConfig, StrategyConfig]:
    rgt = methodologies.get("repertory_grid")
    triad = rgt.strategy("triad_elicitation")
    assert triad is not None
    return rgt, triad


def _triad_request(turn: int, node_labels: tuple[str, ...] = LABELS, node_count: int = 6) -> FollowUpRequest:
    return follow_up(
        methodology="repertory_grid",
        strategy="triad_elicitation",
        label="",
        turn=turn,
        recent_turns=SAID,
        graph_summary=GraphDigest(node_count=node_count, node_labels=node_labels),
    )


def test_names_written_with_capitals_are_elements() -> None:
    said = [SAID[1].text]
    assert element_name("netflix", said) == "Netflix"
    assert element_name("disney+", said) == "Disney+"
    assert element_name("lots of original shows", said) is None
    assert element_name("my ideal service", said) == "my ideal service"  # a supplied element
    # capitalised only because it starts a sentence: no evidence of a name
    assert element_name("endless scrolling", ["Endless scrolling drives me mad."]) is None
    # labels keep their capitals: a name's make an element, the pronoun "I" does not
    assert element_name("Prime Video", []) == "Prime Video"
    assert element_name("deciding for myself how I spend", []) is None
    assert element_name("the one I cancelled", []) == "the one I cancelled"  # supplied, not named


def test_the_focus_counts_only_when_its_node_type_is_an_element(methodologies: MethodologyRegistry) -> None:
    rgt = methodologies.get("repertory_grid")
    assert rgt.lowest_level_types == frozenset({"element"})
    pole = FocusNode(node_id="p", label="lots of original shows", node_type="emergent_pole")
    assert triad_labels(LABELS, pole, rgt, SAID)[0] == ""
    element = FocusNode(node_id="e", label="netflix", node_type="element")
    assert triad_labels(LABELS, element, rgt, SAID)[0] == "Netflix"


@pytest.mark.parametrize("turn", range(3, 12))
def test_a_triad_never_names_a_pole_or_construct(methodologies: MethodologyRegistry, turn: int) -> None:
    rgt, triad = _triad_strategy(methodologies)
    req = _triad_request(turn)
    question = FollowUpComposer(req, rgt, triad).compose()
    lowered = question.lower()
    assert not [p for p in POLES if p in lowered], question
    named = [e for e in ("Netflix", "YouTube", "Disney+") if e in question]
    assert named == [] or len(named) == 3, question


def test_without_three_elements_the_triad_is_asked_in_general_terms(
    methodologies: MethodologyRegistry,
) -> None:
    rgt, triad = _triad_strategy(methodologies)
    for turn in range(3, 9):
        req = _triad_request(turn, ("netflix", *sorted(POLES)), node_count=3)
        question = FollowUpComposer(req, rgt, triad).compose()
        assert not [p for p in POLES if p in question.lower()], question
        assert "alike" in question or "odd one out" in question or "belong together" in question, question


def test_a_name_already_presented_as_an_element_stays_one(methodologies: MethodologyRegistry) -> None:
    """The answer that named Netflix has left the recent window; the earlier triad question kept it."""
    rgt = methodologies.get("repertory_grid")
    asked = ("Thinking about Netflix, YouTube and Disney+, in what important way are two of them alike?",)
    focus, others = triad_labels(LABELS, FocusNode(), rgt, (), asked)
    assert focus == "" and others == ["Netflix", "YouTube", "Disney+"]


@pytest.mark.parametrize("turn", range(3, 12))
def test_three_known_elements_are_named_until_that_triad_was_asked(
    methodologies: MethodologyRegistry, turn: int
) -> None:
    rgt, triad = _triad_strategy(methodologies)
    req = _triad_request(turn)
    first = FollowUpComposer(req, rgt, triad).compose()
    assert all(e in first for e in ("Netflix", "YouTube", "Disney+")), first
    # once that triad was put to the respondent, the same three in other words come last
    again = FollowUpComposer(req.model_copy(update={"previous_questions": (first,)}), rgt, triad).compose()
    assert not all(e in again for e in ("Netflix", "YouTube", "Disney+")), again


def test_a_construct_summary_names_no_element(methodologies: MethodologyRegistry) -> None:
    # "The main ways you tell options apart seem to be Netflix, …": an element is no construct
    asked = asked_over_turns(
        methodologies,
        SpokenLabels(),
        "repertory_grid",
        "validate_constructs",
        FocusNode(),
        range(3, 15),
        graph_summary=GraphDigest(node_count=6, node_labels=LABELS),
        recent_turns=SAID,
    )
    summaries = [q for q in asked if any(pole in q for pole in POLES)]
    assert summaries, asked
    named = ("netflix", "youtube", "disney+")
    assert not [q for q in summaries if any(name in q.lower() for name in named)], summaries


@pytest.mark.parametrize("turn", range(3, 9))
def test_elements_the_respondent_supplied_are_named_to_them_in_the_second_person(
    methodologies: MethodologyRegistry, turn: int
) -> None:
    # "If you compare Prime Video, one I cancelled and Disney+ …": the interviewer said the
    # respondent's "I" as its own
    rgt, triad = _triad_strategy(methodologies)
    labels = ("netflix", "one I cancelled", "my ideal service", *sorted(POLES))
    req = _triad_request(turn, labels)
    first = FollowUpComposer(req, rgt, triad).compose()
    assert all(e in first for e in ("Netflix", "one you cancelled", "your ideal service")), first
    assert " I " not in first and "my " not in first, first
    # the triad counts as asked in the words it was asked in: other words come next
    again = FollowUpComposer(req.model_copy(update={"previous_questions": (first,)}), rgt, triad).compose()
    assert "one you cancelled" not in again, again
