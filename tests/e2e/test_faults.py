"""Faults in the running processes: kill -9 a service during a turn, restart it, and check the session
continues with nothing lost and nothing stored twice.

"During a turn" is made deterministic in two ways: freezing a dependency (SIGSTOP) so the turn is
certainly blocked inside it when the kill lands, or streaming the turn (StreamTurn) and killing on
a given stage event. Each faulted session is compared with a clean session given the same answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TypeAlias

import grpc
import grpc.aio
import pytest
import pytest_asyncio

from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from tests.e2e.helpers import SessionSnapshot, answers_for, get_session, snapshot, submit
from tests.e2e.processes import Deployment
from tests.integration.helpers import error_info

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

Stub: TypeAlias = orchestrator_pb2_grpc.InterviewServiceStub
CONCEPT = "headphones_mec"
ANSWERS = answers_for(CONCEPT)
MAX_TURNS = 8  # the same for every session here: phases (and so decisions) depend on it
TURNS = 3
BLOCKED_S = 1.0  # how long a turn must stay blocked on a frozen service before the kill
# A client channel that reconnects quickly once a restarted orchestrator listens again.
FAST_RECONNECT = [
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 500),
]


@pytest_asyncio.fixture(loop_scope="session")
async def client(live_deployment: Deployment) -> AsyncIterator[Stub]:
    """A stub of its own per test (the orchestrator may be killed under it)."""
    async with grpc.aio.insecure_channel(live_deployment.target(), options=FAST_RECONNECT) as channel:
        yield orchestrator_pb2_grpc.InterviewServiceStub(channel)


async def _new_session(stub: Stub) -> str:
    created: pb.CreateSessionResponse = await stub.CreateSession(
        pb.CreateSessionRequest(concept_id=CONCEPT, max_turns=MAX_TURNS)
    )
    return created.session.session_id


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def baseline(deployment: Deployment, stub: Stub) -> SessionSnapshot:
    """A clean session with the same answers: what every faulted session must end up equal to."""
    session_id = await _new_session(stub)
    for turn in range(1, TURNS + 1):
        assert (await submit(stub, session_id, turn, ANSWERS[turn - 1])).should_continue
    return await snapshot(stub, session_id)


async def _retry_turn(stub: Stub, session_id: str, turn: int, attempts: int = 40) -> pb.TurnResult:
    """Re-submit the same turn (same number and text) as a client would: retry while UNAVAILABLE
    (the channels reconnect to the restarted process)."""
    for _ in range(attempts - 1):
        try:
            return await submit(stub, session_id, turn, ANSWERS[turn - 1])
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            await asyncio.sleep(0.25)
    return await submit(stub, session_id, turn, ANSWERS[turn - 1])


async def _finish(stub: Stub, session_id: str, after: int) -> SessionSnapshot:
    """Answer the remaining turns normally, then read everything back."""
    for turn in range(after + 1, TURNS + 1):
        result = await submit(stub, session_id, turn, ANSWERS[turn - 1])
        assert result.turn_number == turn and not result.replayed
    return await snapshot(stub, session_id)


async def _blocked_turn_killed(
    deployment: Deployment, stub: Stub, session_id: str, turn: int, frozen: str, killed: str
) -> grpc.aio.AioRpcError:
    """Freeze `frozen`, submit `turn` (it blocks inside the frozen service), kill -9 `killed` while the
    turn is in flight, thaw `frozen`, and return the error the SubmitTurn ended with."""
    deployment.freeze(frozen)
    try:
        call = asyncio.ensure_future(submit(stub, session_id, turn, ANSWERS[turn - 1]))
        done, _ = await asyncio.wait([call], timeout=BLOCKED_S)
        assert not done, f"turn {turn} finished although {frozen} was frozen: it was not in flight"
        deployment.kill(killed)
    finally:
        deployment.thaw(frozen)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await asyncio.wait_for(call, 30)
    return caught.value


async def _streamed_turn_killed(
    stub: Stub, session_id: str, turn: int, stage: str, status: int, kill: Callable[[], None]
) -> grpc.aio.AioRpcError:
    """StreamTurn `turn`; when the stage event (stage, status) arrives, run `kill`; return the error."""
    call = stub.StreamTurn(
        pb.StreamTurnRequest(session_id=session_id, turn_number=turn, text=ANSWERS[turn - 1]), timeout=60
    )
    fired = False
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        async for event in call:
            if (
                not fired
                and event.HasField("stage")
                and (event.stage.stage, event.stage.status) == (stage, status)
            ):
                kill()
                fired = True
    assert fired, f"no {stage} event before the stream ended"
    return caught.value


def _assert_unavailable_naming(exc: grpc.aio.AioRpcError, service: str) -> None:
    assert exc.code() == grpc.StatusCode.UNAVAILABLE, (exc.code(), exc.details())
    assert service in (exc.details() or ""), exc.details()
    assert error_info(exc).get("service") == service, error_info(exc)


def _statuses(result: pb.TurnResult) -> dict[str, int]:
    return {t.stage: t.status for t in result.stage_timings}


async def test_graph_store_killed_during_a_submitted_turn(
    live_deployment: Deployment, client: Stub, baseline: SessionSnapshot
) -> None:
    session_id = await _new_session(client)
    await submit(client, session_id, 1, ANSWERS[0])
    # The turn is held in extraction's preprocessing (after loading its context and saving the
    # answer) while graph_store dies; released, its next graph_store call finds it gone.
    error = await _blocked_turn_killed(live_deployment, client, session_id, 2, "extraction", "graph_store")
    _assert_unavailable_naming(error, "graph_store")
    assert (await get_session(client, session_id)).session.turn_count == 1  # the turn did not complete

    await live_deployment.arestart("graph_store")
    retried = await _retry_turn(client, session_id, 2)
    assert retried.turn_number == 2 and not retried.replayed and retried.should_continue
    # Resumed: the answer saved and the preprocessing done before the kill were reused; the stages
    # that needed graph_store (extraction reads the existing nodes, then the graph update) ran now.
    statuses = _statuses(retried)
    assert statuses["utterance_saving"] == statuses["srl"] == pb.STAGE_STATUS_REUSED, statuses
    assert statuses["graph_update"] == pb.STAGE_STATUS_COMPLETED, statuses
    assert await _finish(client, session_id, after=2) == baseline


async def test_graph_store_killed_as_the_graph_update_starts(
    live_deployment: Deployment, client: Stub, baseline: SessionSnapshot
) -> None:
    session_id = await _new_session(client)
    await submit(client, session_id, 1, ANSWERS[0])
    error = await _streamed_turn_killed(
        client,
        session_id,
        2,
        "graph_update",
        pb.STAGE_STATUS_STARTED,
        lambda: live_deployment.kill("graph_store"),
    )
    _assert_unavailable_naming(error, "graph_store")

    await live_deployment.arestart("graph_store")
    retried = await _retry_turn(client, session_id, 2)
    assert retried.turn_number == 2 and not retried.replayed
    # The retry resumed: the extraction checkpointed before the kill was reused, not run again.
    statuses = _statuses(retried)
    assert statuses["extraction"] == pb.STAGE_STATUS_REUSED, statuses
    assert statuses["graph_update"] == pb.STAGE_STATUS_COMPLETED, statuses
    assert await _finish(client, session_id, after=2) == baseline


async def test_canonical_slots_killed_during_slot_discovery(
    live_deployment: Deployment, client: Stub, baseline: SessionSnapshot
) -> None:
    session_id = await _new_session(client)
    # The slot stage of the first turn has no earlier discovery to catch up with, so it reads the
    # canonical state beside extraction: canonical_slots is frozen, so turn 1 is certainly blocked
    # in it, then killed. (A later turn of this orchestrator usually calls canonical_slots not at
    # all: it takes the previous turn's background run from this process and knows its nodes'
    # slots. A background run lost with the process is run by the next turn:
    # tests/integration/test_deferred_slots.py.)
    error = await _blocked_turn_killed(
        live_deployment, client, session_id, 1, "canonical_slots", "canonical_slots"
    )
    _assert_unavailable_naming(error, "canonical_slots")
    assert (await get_session(client, session_id)).session.turn_count == 0

    await live_deployment.arestart("canonical_slots")
    retried = await _retry_turn(client, session_id, 1)
    assert retried.turn_number == 1 and not retried.replayed
    # The stages that finished beside the blocked one were checkpointed and reused; the slot
    # stage ran again, not reused (a first turn's slot stage maps nothing: it reports skipped).
    statuses = _statuses(retried)
    assert statuses["srl"] == statuses["extraction"] == pb.STAGE_STATUS_REUSED, statuses
    assert statuses["slot_discovery"] == pb.STAGE_STATUS_SKIPPED, statuses
    assert retried.HasField("canonical_graph")  # what the read that blocked was for
    assert await _finish(client, session_id, after=1) == baseline


async def test_orchestrator_killed_between_turns(
    live_deployment: Deployment, client: Stub, baseline: SessionSnapshot
) -> None:
    session_id = await _new_session(client)
    first = [await submit(client, session_id, turn, ANSWERS[turn - 1]) for turn in (1, 2)]
    before = await get_session(client, session_id)

    live_deployment.kill("orchestrator")
    await live_deployment.arestart("orchestrator")

    after = await get_session(client, session_id)
    assert after == before  # status, histories, usage, current question, transcript: all intact
    assert [f.turn for f in after.session.focus_history] == [1, 2]
    assert list(after.session.strategy_history) == [r.strategy_selected for r in first]
    # Exactly-once survives the restart: turn 2 again is the stored result, turn 3 is new.
    again = await submit(client, session_id, 2, ANSWERS[1])
    assert again.replayed and again.next_question == first[1].next_question
    assert await _finish(client, session_id, after=2) == baseline


async def test_orchestrator_killed_during_a_turn(
    live_deployment: Deployment, client: Stub, baseline: SessionSnapshot
) -> None:
    session_id = await _new_session(client)
    await submit(client, session_id, 1, ANSWERS[0])
    # The turn blocks in question generation (after extraction and the graph update committed).
    error = await _blocked_turn_killed(live_deployment, client, session_id, 2, "question", "orchestrator")
    assert error.code() == grpc.StatusCode.UNAVAILABLE, (error.code(), error.details())

    await live_deployment.arestart("orchestrator")
    assert (await get_session(client, session_id)).session.turn_count == 1
    retried = await _retry_turn(client, session_id, 2)
    assert retried.turn_number == 2 and not retried.replayed
    statuses = _statuses(retried)
    assert statuses["graph_update"] == pb.STAGE_STATUS_REUSED, statuses  # resumed, not redone
    got = await get_session(client, session_id)
    assert got.session.turn_count == 2 and len(got.transcript) == 5  # opening + 2 × (answer, question)
    assert await _finish(client, session_id, after=2) == baseline
