"""Respondent intents and every termination reason, through the public API."""

from __future__ import annotations

import pytest

from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from tests.integration.answers import ANSWERS
from tests.integration.conftest import SuiteFactory
from tests.integration.helpers import answer, create
from tests.integration.suite import Suite

MEC = ANSWERS["headphones_mec"]
INTENT = common_pb2.RespondentIntent
R = common_pb2.TerminationReason


async def test_clarification_rephrases_without_extraction(suite: Suite) -> None:
    created = await create(suite.stub, "headphones_mec")
    session_id = created.session.session_id
    first = await answer(suite.stub, session_id, 1, MEC[0])
    result = await answer(suite.stub, session_id, 2, "Sorry, what do you mean by that?")
    assert result.intent == INTENT.RESPONDENT_INTENT_CLARIFICATION_REQUEST
    assert result.extracted.skipped and not result.nodes_added
    assert result.next_question.endswith("?") and result.next_question != first.next_question
    assert result.strategy_selected == first.strategy_selected  # same strategy, asked again more simply
    assert result.saturation.consecutive_low_info == first.saturation.consecutive_low_info
    assert result.should_continue


UNCLEAR = "Sorry, what do you mean by that?"


async def test_repeated_clarification_requests_are_reworded_then_left(suite: Suite) -> None:
    session_id = (await create(suite.stub, "headphones_mec", max_turns=12)).session.session_id
    first = await answer(suite.stub, session_id, 1, MEC[0])
    again, narrower, moved = [await answer(suite.stub, session_id, t, UNCLEAR) for t in (2, 3, 4)]
    for result in (again, narrower, moved):
        assert result.intent == INTENT.RESPONDENT_INTENT_CLARIFICATION_REQUEST
        assert result.extracted.skipped and not result.nodes_added and result.should_continue
    # Twice (ORCHESTRATOR_MAX_REPHRASINGS' default) the same question in other words: no ranking.
    for rewording in (again, narrower):
        assert rewording.strategy_selected == first.strategy_selected
        assert rewording.focus_node_id == first.focus_node_id
        assert not rewording.strategy_alternatives
    # The third time the interview leaves it: strategies are ranked again, away from its focus.
    assert moved.strategy_alternatives
    if first.focus_node_id:
        assert moved.focus_node_id != first.focus_node_id
    questions = [r.next_question for r in (first, again, narrower, moved)]
    assert len({q.lower() for q in questions}) == 4
    # Nothing was answered: the turns that asked count neither as shallow nor as zero-yield.
    assert moved.saturation.consecutive_low_info == first.saturation.consecutive_low_info
    assert moved.saturation.consecutive_shallow == first.saturation.consecutive_shallow
    # The count starts again with the new question.
    fresh = await answer(suite.stub, session_id, 5, UNCLEAR)
    assert fresh.strategy_selected == moved.strategy_selected and not fresh.strategy_alternatives
    assert fresh.next_question not in questions


async def test_no_rewording_when_max_rephrasings_is_zero(suite_factory: SuiteFactory) -> None:
    async with suite_factory(max_rephrasings=0) as suite:
        session_id = (await create(suite.stub, "headphones_mec")).session.session_id
        first = await answer(suite.stub, session_id, 1, MEC[0])
        moved = await answer(suite.stub, session_id, 2, UNCLEAR)
        assert moved.intent == INTENT.RESPONDENT_INTENT_CLARIFICATION_REQUEST
        assert moved.strategy_alternatives and moved.next_question != first.next_question
        if first.focus_node_id:
            assert moved.focus_node_id != first.focus_node_id


async def test_stop_request_closes_gracefully(suite: Suite) -> None:
    session_id = (await create(suite.stub, "headphones_mec")).session.session_id
    await answer(suite.stub, session_id, 1, MEC[0])
    result = await answer(suite.stub, session_id, 2, "I'm sorry, I have to go now, that's all from me.")
    assert result.intent == INTENT.RESPONDENT_INTENT_STOP_REQUEST
    assert not result.should_continue and result.termination_reason == R.TERMINATION_REASON_RESPONDENT_STOP
    assert result.next_question  # the closing message
    session = (await suite.stub.GetSession(pb.GetSessionRequest(session_id=session_id))).session
    assert session.status == pb.SESSION_STATUS_COMPLETED


async def test_skip_request_moves_off_the_focus_node(suite: Suite) -> None:
    session_id = (await create(suite.stub, "headphones_mec", max_turns=10)).session.session_id
    results = [await answer(suite.stub, session_id, t, MEC[t - 1]) for t in (1, 2, 3)]
    focus = results[-1].focus_node_id
    skipped = await answer(suite.stub, session_id, 4, "I'd rather not talk about that, can we move on?")
    assert skipped.intent == INTENT.RESPONDENT_INTENT_SKIP_REQUEST
    if focus:
        assert skipped.focus_node_id != focus
    # Not counted as a shallow answer.
    assert skipped.saturation.consecutive_shallow == results[-1].saturation.consecutive_shallow


async def test_off_topic_is_reported_and_anchored(suite: Suite) -> None:
    session_id = (await create(suite.stub, "headphones_mec")).session.session_id
    await answer(suite.stub, session_id, 1, MEC[0])
    result = await answer(
        suite.stub, session_id, 2, "Did you watch the football match last night? Arsenal were great."
    )
    assert result.intent == INTENT.RESPONDENT_INTENT_OFF_TOPIC
    assert result.should_continue and result.next_question.endswith("?")


SHALLOW = "It is fine, it is okay I guess."


@pytest.mark.parametrize(
    ("settings", "answers", "reason"),
    [
        ({}, MEC[:3], R.TERMINATION_REASON_MAX_TURNS),
        (
            {"quality_degraded_turns": 100, "depth_plateau_turns": 100, "node_exhausted_turns": 100},
            [MEC[0], *["ok"] * 9],
            R.TERMINATION_REASON_GRAPH_SATURATED,
        ),
        (
            {"graph_saturated_turns": 100, "depth_plateau_turns": 100, "node_exhausted_turns": 100},
            [MEC[0], *[SHALLOW] * 9],
            R.TERMINATION_REASON_QUALITY_DEGRADED,
        ),
        (
            {"graph_saturated_turns": 100, "quality_degraded_turns": 100, "node_exhausted_turns": 100},
            [MEC[0], *["ok"] * 9],
            R.TERMINATION_REASON_DEPTH_PLATEAU,
        ),
        (
            {
                "graph_saturated_turns": 100,
                "quality_degraded_turns": 100,
                "depth_plateau_turns": 100,
                "node_exhausted_turns": 1,
            },
            [MEC[0], MEC[1], *["ok"] * 15],
            R.TERMINATION_REASON_ALL_NODES_EXHAUSTED,
        ),
    ],
)
async def test_each_termination_reason(
    suite_factory: SuiteFactory, settings: dict[str, int], answers: list[str], reason: int
) -> None:
    async with suite_factory(**settings) as suite:
        max_turns = 3 if reason == R.TERMINATION_REASON_MAX_TURNS else 20
        session_id = (await create(suite.stub, "headphones_mec", max_turns=max_turns)).session.session_id
        result = None
        for turn, text in enumerate(answers, start=1):
            result = await answer(suite.stub, session_id, turn, text)
            if not result.should_continue:
                break
        assert result is not None and not result.should_continue
        assert result.termination_reason == reason
        session = (await suite.stub.GetSession(pb.GetSessionRequest(session_id=session_id))).session
        assert session.termination_reason == reason and session.status == pb.SESSION_STATUS_COMPLETED


async def test_closing_strategy_ends_the_interview(suite: Suite) -> None:
    # A respondent with nothing more to add in the late phase: the closing strategy wins before
    # max_turns is reached.
    session_id = (await create(suite.stub, "headphones_mec", max_turns=8)).session.session_id
    result = None
    answers = [*MEC[:5], "ok", "ok", "ok"]
    for turn, text in enumerate(answers, start=1):
        result = await answer(suite.stub, session_id, turn, text)
        if not result.should_continue:
            break
    assert result is not None and turn < 8
    assert result.termination_reason == R.TERMINATION_REASON_CLOSING_STRATEGY
    assert result.strategy_selected == "close" and result.phase == common_pb2.INTERVIEW_PHASE_LATE
