"""Exactly-once turns: repeats, stale numbers, concurrency, bad input, deadlines, restarts."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import grpc.aio
import pytest

from services.orchestrator.contracts import StageName
from services.orchestrator.pipeline import PipelineContext, Stage
from shared.channels import remaining_deadline
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from tests.integration.answers import ANSWERS
from tests.integration.conftest import SuiteFactory
from tests.integration.helpers import (
    StageWrapper,
    answer,
    code_of,
    create,
    error_info,
    error_reason,
    field_violations,
    graph_signature,
    retry_transient,
)
from tests.integration.suite import Suite

MEC = ANSWERS["headphones_mec"]


async def _state(suite: Suite, session_id: str) -> tuple[int, int, str]:
    got = await suite.stub.GetSession(pb.GetSessionRequest(session_id=session_id))
    return got.session.turn_count, len(got.transcript), got.session.current_question


async def test_repeated_turn_returns_the_stored_result(suite: Suite) -> None:
    session_id = (await create(suite.stub, "headphones_mec")).session.session_id
    first = await answer(suite.stub, session_id, 1, MEC[0])
    graph = await suite.stub.GetSessionGraph(pb.GetSessionGraphRequest(session_id=session_id))
    again = await answer(suite.stub, session_id, 1, MEC[0])
    assert again.replayed and not first.replayed
    assert again.next_question == first.next_question and again.strategy_selected == first.strategy_selected
    after = await suite.stub.GetSessionGraph(pb.GetSessionGraphRequest(session_id=session_id))
    assert graph_signature(after) == graph_signature(graph)
    assert (await _state(suite, session_id))[:2] == (1, 3)


async def test_stale_and_future_turn_numbers(suite: Suite) -> None:
    session_id = (await create(suite.stub, "headphones_mec")).session.session_id
    await answer(suite.stub, session_id, 1, MEC[0])
    before = await _state(suite, session_id)
    cases = [
        (1, "a different answer to turn one", "TURN_ALREADY_ANSWERED", "with a different text"),
        (3, MEC[1], "TURN_OUT_OF_ORDER", "stale or future turn_number 3"),
    ]
    for turn, text, reason, message in cases:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await answer(suite.stub, session_id, turn, text)
        assert code_of(caught.value) == grpc.StatusCode.FAILED_PRECONDITION
        assert error_info(caught.value).get("expected_turn_number") == "2"
        assert error_reason(caught.value) == reason
        assert message in (caught.value.details() or "")
    assert await _state(suite, session_id) == before


@pytest.mark.parametrize(
    ("request_fields", "code", "field"),
    [
        ({"text": ""}, grpc.StatusCode.INVALID_ARGUMENT, "text"),
        ({"text": "   \n\t "}, grpc.StatusCode.INVALID_ARGUMENT, "text"),
        ({"text": "x" * 5001}, grpc.StatusCode.INVALID_ARGUMENT, "text"),
        ({"turn_number": 0}, grpc.StatusCode.INVALID_ARGUMENT, "turn_number"),
        ({"session_id": ""}, grpc.StatusCode.INVALID_ARGUMENT, "session_id"),
        ({"session_id": "no-such-session"}, grpc.StatusCode.NOT_FOUND, None),
        ({"turn_number": 2}, grpc.StatusCode.FAILED_PRECONDITION, None),
        ({"request_id": "bad id with spaces"}, grpc.StatusCode.INVALID_ARGUMENT, "request_id"),
    ],
)
async def test_bad_turn_input_changes_nothing(
    suite: Suite, request_fields: dict[str, Any], code: grpc.StatusCode, field: str | None
) -> None:
    session_id = (await create(suite.stub, "headphones_mec")).session.session_id
    before = await _state(suite, session_id)
    fields = {"session_id": session_id, "turn_number": 1, "text": MEC[0], **request_fields}
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await suite.stub.SubmitTurn(pb.SubmitTurnRequest(**fields))
    assert code_of(caught.value) == code
    if field is not None:
        assert field in field_violations(caught.value)
    assert await _state(suite, session_id) == before
    graph = await suite.stub.GetSessionGraph(pb.GetSessionGraphRequest(session_id=session_id))
    assert not graph.nodes


async def test_bad_session_requests(suite: Suite) -> None:
    cases = [
        (pb.CreateSessionRequest(concept_id="no_such_concept"), grpc.StatusCode.NOT_FOUND),
        (pb.CreateSessionRequest(concept_id=""), grpc.StatusCode.INVALID_ARGUMENT),
        (
            pb.CreateSessionRequest(concept_id="headphones_mec", methodology="nope"),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (
            pb.CreateSessionRequest(concept_id="headphones_mec", max_turns=1000),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
    ]
    before = (await suite.stub.ListSessions(pb.ListSessionsRequest())).total_size
    for request, code in cases:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await suite.stub.CreateSession(request)
        assert code_of(caught.value) == code
    assert (await suite.stub.ListSessions(pb.ListSessionsRequest())).total_size == before
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await suite.stub.ListSessions(pb.ListSessionsRequest(page_token="garbage"))
    assert code_of(caught.value) == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await suite.stub.ExportSession(
            pb.ExportSessionRequest(session_id="x", format=pb.EXPORT_FORMAT_UNSPECIFIED)
        )
    assert "format" in field_violations(caught.value)


async def test_ended_and_paused_sessions_refuse_turns(suite: Suite) -> None:
    session_id = (await create(suite.stub, "headphones_mec")).session.session_id
    paused = await suite.stub.PauseSession(pb.PauseSessionRequest(session_id=session_id))
    assert paused.session.status == pb.SESSION_STATUS_PAUSED
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await answer(suite.stub, session_id, 1, MEC[0])
    assert code_of(caught.value) == grpc.StatusCode.FAILED_PRECONDITION
    assert error_reason(caught.value) == "SESSION_PAUSED"
    resumed = await suite.stub.ResumeSession(pb.ResumeSessionRequest(session_id=session_id))
    assert resumed.session.status == pb.SESSION_STATUS_ACTIVE and resumed.current_question
    await answer(suite.stub, session_id, 1, MEC[0])
    ended = await suite.stub.EndSession(pb.EndSessionRequest(session_id=session_id))
    assert ended.session.status == pb.SESSION_STATUS_COMPLETED and ended.closing_message
    assert ended.session.termination_reason == common_pb2.TERMINATION_REASON_ENDED_BY_CLIENT
    before = await _state(suite, session_id)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await answer(suite.stub, session_id, 2, MEC[1])
    assert code_of(caught.value) == grpc.StatusCode.FAILED_PRECONDITION
    assert error_reason(caught.value) == "SESSION_ENDED"
    # An earlier turn sent again with another text: still the session's end, not a turn to expect.
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await answer(suite.stub, session_id, 1, "a different answer to turn one")
    assert error_reason(caught.value) == "SESSION_ENDED"
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await suite.stub.PauseSession(pb.PauseSessionRequest(session_id=session_id))
    assert (code_of(caught.value), error_reason(caught.value)) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "SESSION_ENDED",
    )
    assert await _state(suite, session_id) == before


class Gate(StageWrapper):
    """Wraps a stage; holds the first run of `stage` until released (to make turns overlap)."""

    def __init__(
        self, inner: Stage, stage: StageName, entered: asyncio.Event, release: asyncio.Event
    ) -> None:
        super().__init__(inner)
        self._stage, self._entered, self._release = stage, entered, release

    async def run(self, ctx: PipelineContext) -> Any:
        if self.name == self._stage:
            self._entered.set()
            await self._release.wait()
        return await self._inner.run(ctx)


async def test_concurrent_submits_one_runs_the_other_is_aborted(suite_factory: SuiteFactory) -> None:
    entered, release = asyncio.Event(), asyncio.Event()
    wrap = lambda stage: Gate(stage, StageName.EXTRACTION, entered, release)  # noqa: E731
    async with suite_factory(stage_wrapper=wrap) as suite:
        session_id = (await create(suite.stub, "headphones_mec")).session.session_id
        first = asyncio.ensure_future(answer(suite.stub, session_id, 1, MEC[0]))
        await asyncio.wait_for(entered.wait(), 30)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await answer(suite.stub, session_id, 1, MEC[0])
        assert code_of(caught.value) == grpc.StatusCode.ABORTED
        release.set()
        result = await first
        assert result.turn_number == 1 and not result.replayed
        assert (await _state(suite, session_id))[0] == 1


class TurnGate(StageWrapper):
    """Wraps a stage; holds its run in turn `turn` until released."""

    def __init__(self, inner: Stage, turn: int, entered: asyncio.Event, release: asyncio.Event) -> None:
        super().__init__(inner)
        self._turn, self._entered, self._release = turn, entered, release

    async def run(self, ctx: PipelineContext) -> Any:
        if self.name == StageName.EXTRACTION and ctx.turn.turn_number == self._turn:
            self._entered.set()
            await self._release.wait()
        return await self._inner.run(ctx)


async def test_while_a_turn_runs_earlier_turns_replay_and_wrong_requests_get_their_own_error(
    suite_factory: SuiteFactory,
) -> None:
    entered, release = asyncio.Event(), asyncio.Event()
    wrap = lambda stage: TurnGate(stage, 2, entered, release)  # noqa: E731
    async with suite_factory(stage_wrapper=wrap) as suite:
        session_id = (await create(suite.stub, "headphones_mec")).session.session_id
        done = await answer(suite.stub, session_id, 1, MEC[0])
        second = asyncio.ensure_future(answer(suite.stub, session_id, 2, MEC[1]))
        await asyncio.wait_for(entered.wait(), 30)
        try:
            # The lock is busy, yet a retry of the completed turn is answered from storage ...
            replay = await answer(suite.stub, session_id, 1, MEC[0])
            assert replay.replayed and replay.next_question == done.next_question
            # ... a different answer to it, or a future turn, is refused as such (not as busy) ...
            for turn, text in ((1, "something else entirely"), (3, MEC[2])):
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await answer(suite.stub, session_id, turn, text)
                assert code_of(caught.value) == grpc.StatusCode.FAILED_PRECONDITION, turn
            # ... and only the turn in progress itself is busy.
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await answer(suite.stub, session_id, 2, MEC[1])
            assert code_of(caught.value) == grpc.StatusCode.ABORTED
        finally:
            release.set()
        result = await second
        assert result.turn_number == 2 and not result.replayed
        assert (await _state(suite, session_id))[0] == 2


@pytest.mark.postgres
async def test_two_orchestrators_on_one_postgres_run_one_turn_at_a_time(
    fresh_pg_url: str, tmp_path: Any, embedder: Any
) -> None:
    from services.orchestrator.server import build, server_for
    from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
    from tests.integration.suite import running_suite

    entered, release = asyncio.Event(), asyncio.Event()
    wrap = lambda stage: Gate(stage, StageName.EXTRACTION, entered, release)  # noqa: E731
    async with running_suite(fresh_pg_url, tmp_path, embedder=embedder, stage_wrapper=wrap) as suite:
        second_app = await build(suite.orchestrator_settings(port=0))
        async with server_for(second_app) as second:  # noqa: SIM117 - the channel needs its port
            async with grpc.aio.insecure_channel(f"127.0.0.1:{second.port}") as channel:
                other = orchestrator_pb2_grpc.InterviewServiceStub(channel)
                session_id = (await create(suite.stub, "headphones_mec")).session.session_id
                first = asyncio.ensure_future(answer(suite.stub, session_id, 1, MEC[0]))
                await asyncio.wait_for(entered.wait(), 30)
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await answer(other, session_id, 1, MEC[0])
                assert code_of(caught.value) == grpc.StatusCode.ABORTED
                release.set()
                await first
                # The other replica now sees the completed turn and replays it.
                replay = await answer(other, session_id, 1, MEC[0])
                assert replay.replayed


async def test_deadline_propagates_and_the_turn_resumes(suite_factory: SuiteFactory) -> None:
    seen: list[float | None] = []

    class Probe(StageWrapper):
        async def run(self, ctx: PipelineContext) -> Any:
            if self.name == StageName.GRAPH_UPDATE:
                seen.append(remaining_deadline())
            return await self._inner.run(ctx)

    async with suite_factory(stage_wrapper=Probe) as suite:
        session_id = (await create(suite.stub, "headphones_mec")).session.session_id
        await answer(suite.stub, session_id, 1, MEC[0], deadline_s=30)
        assert seen and seen[0] is not None and 0 < seen[0] <= 30.5  # clock skew of the two ends
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await answer(suite.stub, session_id, 2, MEC[1], deadline_s=0.001)
        assert code_of(caught.value) == grpc.StatusCode.DEADLINE_EXCEEDED
        # The cut-off turn holds the session until it has recorded its failure: ABORTED until then.
        result = await retry_transient(
            lambda: answer(suite.stub, session_id, 2, MEC[1]), code=grpc.StatusCode.ABORTED
        )
        assert result.turn_number == 2


async def test_dependency_down_is_unavailable_naming_it_and_the_turn_resumes(suite: Suite) -> None:
    session_id = (await create(suite.stub, "headphones_mec")).session.session_id
    await answer(suite.stub, session_id, 1, MEC[0])
    await suite.stop("graph_store")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await answer(suite.stub, session_id, 2, MEC[1])
    assert code_of(caught.value) == grpc.StatusCode.UNAVAILABLE
    assert (
        "graph_store" in (caught.value.details() or "")
        or error_info(caught.value).get("service") == "graph_store"
    )
    await suite.start("graph_store")
    result = await retry_transient(lambda: answer(suite.stub, session_id, 2, MEC[1]))
    assert result.turn_number == 2 and (await _state(suite, session_id))[0] == 2


async def test_restart_between_turns_changes_no_decision(suite_factory: SuiteFactory) -> None:
    async def run(restart: bool) -> list[tuple[str, str, int]]:
        async with suite_factory() as suite:
            # One request id for both runs: same session id, so the offline engine words the same
            # questions and any difference comes from the restarts.
            created = await create(suite.stub, "headphones_mec", max_turns=7, request_id="restart-check")
            session_id = created.session.session_id
            decisions = []
            for turn in range(1, 8):
                if restart:
                    for name in ("orchestrator", "scoring", "graph_store"):
                        await suite.restart(name)
                result = await answer(suite.stub, session_id, turn, MEC[turn - 1])
                decisions.append(
                    (result.strategy_selected, result.focus_label, result.saturation.consecutive_low_info)
                )
                if not result.should_continue:
                    break
            return decisions

    assert await run(restart=True) == await run(restart=False)


async def test_create_session_is_idempotent_on_request_id(suite: Suite) -> None:
    first = await create(suite.stub, "coffee_jtbd", request_id="create-once")
    again = await create(suite.stub, "coffee_jtbd", request_id="create-once")
    assert again.session.session_id == first.session.session_id
    assert again.opening_question == first.opening_question
    listed = await suite.stub.ListSessions(pb.ListSessionsRequest(page_size=500))
    assert [s.session_id for s in listed.sessions].count(first.session.session_id) == 1


async def test_many_concurrent_sessions_complete(suite: Suite) -> None:
    # More concurrent turns than the database pool has connections: the turn locks must not starve
    # the stages (PostgreSQL holds one lock connection per running turn).
    sessions = [
        (await create(suite.stub, "headphones_mec", max_turns=6)).session.session_id for _ in range(20)
    ]
    results = await asyncio.gather(*(answer(suite.stub, s, 1, MEC[0]) for s in sessions))
    assert [r.turn_number for r in results] == [1] * 20
