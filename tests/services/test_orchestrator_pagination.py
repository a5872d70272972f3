"""Page tokens of the orchestrator's public List RPCs (AIP-158), against a real server on port 0:
forged tokens are INVALID_ARGUMENT (never INTERNAL), a token only works with the listing and filter
that returned it, and paging ListSessions while sessions are created returns each session once."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import pytest
import pytest_asyncio

from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1.orchestrator_pb2_grpc import InterviewServiceStub as Stub
from tests.rich_status import field_violations
from tests.services.orchestrator_app import FakeQuestions, running_orchestrator

# QA's forged token: base64 of "o:99999999999999999999999", an offset past SQLite's INTEGER.
QA_TOKEN = "bzo5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OQ=="


@pytest_asyncio.fixture
async def stub(db_url: str) -> AsyncIterator[Stub]:
    async with running_orchestrator(db_url, FakeQuestions()) as running:
        yield running


async def _create(stub: Stub, count: int) -> list[str]:
    """`count` new sessions' ids, in creation order."""
    return [
        (await stub.CreateSession(pb.CreateSessionRequest(concept_id="headphones_mec"))).session.session_id
        for _ in range(count)
    ]


async def _listed(stub: Stub, status: pb.SessionStatus = pb.SESSION_STATUS_UNSPECIFIED) -> list[str]:
    reply = await stub.ListSessions(pb.ListSessionsRequest(page_size=500, status=status))
    return [s.session_id for s in reply.sessions]


async def _rejected(call: Any, field: str = "page_token") -> str:
    """The description of the one field violation of a call that must be INVALID_ARGUMENT."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT, caught.value.details()
    violations = field_violations(caught.value)
    assert list(violations) == [field]
    return violations[field]


def _forged(payload: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


async def test_forged_tokens_are_invalid_argument_not_internal(stub: Stub) -> None:
    await _create(stub, 2)
    before = await _listed(stub)
    # The token QA sent used to reach SQLite as an offset too large for its INTEGER: INTERNAL.
    described = await _rejected(stub.ListSessions(pb.ListSessionsRequest(page_token=QA_TOKEN)))
    assert "previous response" in described
    await _rejected(stub.ListConcepts(pb.ListConceptsRequest(page_token=QA_TOKEN)))
    await _rejected(stub.ListMethodologies(pb.ListMethodologiesRequest(page_token=QA_TOKEN)))
    # Well-formed envelopes with positions no response ever held.
    for position in (10**30, -1, 0, True, "3", None):
        token = _forged({"v": 1, "l": "ListConcepts", "f": "", "a": position})
        await _rejected(stub.ListConcepts(pb.ListConceptsRequest(page_token=token)))
    for after in (
        ["0001-01-01T00:00:00+05:00", "x"],  # before datetime's range once in UTC
        ["2024-01-01T00:00:00", "x"],  # no time zone
        ["2024-01-01T00:00:00+00:00", ""],
        ["2024-01-01T00:00:00+00:00", "x" * 500],
        [10**30, "x"],
        "2024-01-01T00:00:00+00:00",
    ):
        token = _forged({"v": 1, "l": "ListSessions", "f": "", "a": after})
        await _rejected(stub.ListSessions(pb.ListSessionsRequest(page_token=token)))
    await _rejected(stub.ListSessions(pb.ListSessionsRequest(page_token="A" * 5000)))
    await _rejected(stub.ListSessions(pb.ListSessionsRequest(page_token="not base64 !")))
    await _rejected(stub.ListSessions(pb.ListSessionsRequest(page_size=-1)), field="page_size")
    assert await _listed(stub) == before  # and the service still answers


async def test_a_token_only_pages_the_listing_and_filter_that_returned_it(stub: Stub) -> None:
    ids = await _create(stub, 3)
    for session_id in ids[:2]:
        await stub.PauseSession(pb.PauseSessionRequest(session_id=session_id))
    paused = await stub.ListSessions(pb.ListSessionsRequest(page_size=1, status=pb.SESSION_STATUS_PAUSED))
    assert paused.total_size == 2 and paused.next_page_token
    sessions_token = paused.next_page_token
    concepts_token = (await stub.ListConcepts(pb.ListConceptsRequest(page_size=1))).next_page_token
    methodologies_token = (
        await stub.ListMethodologies(pb.ListMethodologiesRequest(page_size=1))
    ).next_page_token
    assert concepts_token and methodologies_token

    # Another filter of the same listing.
    for status in (pb.SESSION_STATUS_ACTIVE, pb.SESSION_STATUS_UNSPECIFIED):
        described = await _rejected(
            stub.ListSessions(pb.ListSessionsRequest(page_token=sessions_token, status=status))
        )
        assert "different status" in described
    described = await _rejected(
        stub.ListConcepts(pb.ListConceptsRequest(page_token=concepts_token, methodology="means_end_chain"))
    )
    assert "different methodology" in described
    # Another listing.
    for call in (
        stub.ListConcepts(pb.ListConceptsRequest(page_token=sessions_token)),
        stub.ListMethodologies(pb.ListMethodologiesRequest(page_token=sessions_token)),
        stub.ListSessions(pb.ListSessionsRequest(page_token=concepts_token)),
        stub.ListMethodologies(pb.ListMethodologiesRequest(page_token=concepts_token)),
        stub.ListSessions(pb.ListSessionsRequest(page_token=methodologies_token)),
        stub.ListConcepts(pb.ListConceptsRequest(page_token=methodologies_token)),
    ):
        assert "another listing" in await _rejected(call)

    # With the request that returned it (page size may change), each token still works.
    rest = await stub.ListSessions(
        pb.ListSessionsRequest(page_token=sessions_token, page_size=5, status=pb.SESSION_STATUS_PAUSED)
    )
    assert [paused.sessions[0].session_id, *(s.session_id for s in rest.sessions)] == await _listed(
        stub, pb.SESSION_STATUS_PAUSED
    )
    assert set(ids[:2]) == {paused.sessions[0].session_id, rest.sessions[0].session_id}
    assert not rest.next_page_token
    assert await _all_concepts(stub, concepts_token, page_size=2) == await _all_concepts(stub, "", 500)
    assert await _all_methodologies(stub, methodologies_token, 2) == await _all_methodologies(stub, "", 500)


async def _all_concepts(stub: Stub, token: str, page_size: int) -> list[str]:
    """Concept ids from the first page (after `token`'s page when given) to the last."""
    ids = [] if not token else [(await stub.ListConcepts(pb.ListConceptsRequest(page_size=1))).concepts[0].id]
    while True:
        page = await stub.ListConcepts(pb.ListConceptsRequest(page_size=page_size, page_token=token))
        ids += [c.id for c in page.concepts]
        token = page.next_page_token
        if not token:
            return ids


async def _all_methodologies(stub: Stub, token: str, page_size: int) -> list[str]:
    """Methodology names from the first page (after `token`'s page when given) to the last."""
    first = pb.ListMethodologiesRequest(page_size=1)
    names = [] if not token else [(await stub.ListMethodologies(first)).methodologies[0].name]
    while True:
        page = await stub.ListMethodologies(
            pb.ListMethodologiesRequest(page_size=page_size, page_token=token)
        )
        names += [m.name for m in page.methodologies]
        token = page.next_page_token
        if not token:
            return names


async def test_paging_sessions_while_sessions_are_created_returns_each_once(stub: Stub) -> None:
    await _create(stub, 5)
    expected = await _listed(stub)  # newest first
    seen: list[str] = []
    first = await stub.ListSessions(pb.ListSessionsRequest(page_size=2))
    seen += [s.session_id for s in first.sessions]
    # Newer sessions arrive between the pages: an offset would now point one page too early and
    # repeat the last sessions of the first page.
    await _create(stub, 2)
    token = first.next_page_token
    pages = 1
    while token:
        page = await stub.ListSessions(pb.ListSessionsRequest(page_size=2, page_token=token))
        assert page.total_size == 7
        seen += [s.session_id for s in page.sessions]
        token = page.next_page_token
        pages += 1
    assert seen == expected
    assert pages == 3  # a full last page has no token: no empty page is needed to find the end
