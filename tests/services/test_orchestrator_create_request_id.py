"""CreateSession's request_id (AIP-155) against a real server on port 0: the same request again
returns the original session; the request id reused for a different request is FAILED_PRECONDITION
and creates nothing, also when both requests race."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import pytest
import pytest_asyncio

from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1.orchestrator_pb2_grpc import InterviewServiceStub as Stub
from tests.rich_status import error_info
from tests.services.orchestrator_app import FakeQuestions, running_orchestrator


@pytest.fixture
def questions() -> FakeQuestions:
    return FakeQuestions()


@pytest_asyncio.fixture
async def stub(db_url: str, questions: FakeQuestions) -> AsyncIterator[Stub]:
    async with running_orchestrator(db_url, questions) as running:
        yield running


def _request(request_id: str, **fields: Any) -> pb.CreateSessionRequest:
    values: dict[str, Any] = {"concept_id": "headphones_mec", "max_turns": 5, **fields}
    return pb.CreateSessionRequest(request_id=request_id, **values)


async def _sessions(stub: Stub) -> list[pb.Session]:
    return list((await stub.ListSessions(pb.ListSessionsRequest(page_size=500))).sessions)


async def test_a_request_id_reused_for_another_request_is_refused_and_creates_nothing(
    stub: Stub, questions: FakeQuestions
) -> None:
    request_id = str(uuid.uuid4())
    original = await stub.CreateSession(_request(request_id, metadata={"k": "v"}))
    before = await stub.GetSession(pb.GetSessionRequest(session_id=original.session.session_id))
    calls = len(questions.calls)
    # QA's repro first, then one changed field at a time.
    for changed, differing in (
        ({"concept_id": "coffee_jtbd", "max_turns": 9}, "concept_id"),
        ({"max_turns": 9}, "max_turns"),
        ({"max_turns": 0}, "max_turns"),  # resolves to the concept's 20, not the 5 asked before
        ({"methodology": "jobs_to_be_done"}, "methodology"),
        ({"metadata": {"k": "w"}}, "metadata"),
        ({"metadata": {}}, "metadata"),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.CreateSession(_request(request_id, **{"metadata": {"k": "v"}, **changed}))
        assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        details = caught.value.details() or ""
        assert request_id in details and "different CreateSession request" in details
        info = error_info(caught.value)
        assert info.reason == "REQUEST_ID_REUSED"
        assert info.metadata["fields"] == differing
        assert info.metadata["session_id"] == original.session.session_id
    # Nothing was created, asked of the question service or changed.
    assert len(questions.calls) == calls
    assert [s.session_id for s in await _sessions(stub)] == [original.session.session_id]
    after = await stub.GetSession(pb.GetSessionRequest(session_id=original.session.session_id))
    assert after == before
    # The original request still gets its session.
    again = await stub.CreateSession(_request(request_id, metadata={"k": "v"}))
    assert again.session == original.session and again.opening_question == original.opening_question
    assert len(questions.calls) == calls

    # max_turns 0 means "the concept's": sent again it is the same request, another number is not.
    defaulted = str(uuid.uuid4())
    created = await stub.CreateSession(_request(defaulted, max_turns=0))
    assert created.session.max_turns == 20  # headphones_mec's own
    retried = await stub.CreateSession(_request(defaulted, max_turns=0))
    assert retried.session == created.session
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.CreateSession(_request(defaulted, max_turns=9))
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert len(await _sessions(stub)) == 2


async def test_racing_requests_with_one_request_id_get_one_session(
    stub: Stub, questions: FakeQuestions
) -> None:
    # Both calls pass the request-id lookup before either stores its session: the loser must answer
    # as a retry would (the session, or the refusal), not fail on the unique constraint (INTERNAL).
    questions.gather = 2
    request_id = str(uuid.uuid4())
    first, second = await asyncio.gather(
        stub.CreateSession(_request(request_id)), stub.CreateSession(_request(request_id))
    )
    assert first.session == second.session and first.opening_question == second.opening_question
    questions.calls.clear()
    other = str(uuid.uuid4())
    results = await asyncio.gather(
        stub.CreateSession(_request(other)),
        stub.CreateSession(_request(other, max_turns=9)),
        return_exceptions=True,
    )
    created = [r for r in results if isinstance(r, pb.CreateSessionResponse)]
    refused = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
    assert len(created) == 1 and len(refused) == 1, results
    assert refused[0].code() == grpc.StatusCode.FAILED_PRECONDITION
    ids = sorted(s.session_id for s in await _sessions(stub))
    assert ids == sorted({first.session.session_id, created[0].session.session_id})
