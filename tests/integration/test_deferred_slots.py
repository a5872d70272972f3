"""Deferred slot discovery: a turn's DiscoverSlots runs in the background, the next turn completes it.

A recording interceptor on canonical_slots sees every DiscoverSlots call (and can fail some), so the
tests observe the order of calls across turns, not just the end state.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import grpc.aio

from services.orchestrator.contracts import StageName
from services.orchestrator.pipeline import PipelineContext, Stage
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.slots.v1 import slots_pb2
from tests.integration.answers import ANSWERS
from tests.integration.helpers import (
    Hold,
    Signal,
    StageWrapper,
    Unary,
    UnaryInterceptor,
    answer,
    create,
    set_within,
)

CONCEPT = "headphones_mec"


class DiscoverSlotsRecorder(UnaryInterceptor):
    """Records (turn_number, outcome) of every DiscoverSlots call; fails the first `fail` calls."""

    suffix = "/DiscoverSlots"

    def __init__(self, fail: int = 0, hold_first: asyncio.Event | None = None) -> None:
        self.calls: list[tuple[int, str]] = []
        self.fail = fail
        self.changed = asyncio.Event()
        self.hold_first = hold_first  # the first call waits for it (a slow background run)
        self.arrived = 0

    def record(self, turn: int, outcome: str) -> None:
        self.calls.append((turn, outcome))
        self.changed.set()

    async def until(self, call: tuple[int, str], timeout_s: float = 20) -> None:
        """Wait until `call` was recorded (background work finishes after the response)."""
        async with asyncio.timeout(timeout_s):
            while call not in self.calls:
                self.changed.clear()
                await self.changed.wait()

    async def around(
        self, method: str, inner: Unary, request: slots_pb2.DiscoverSlotsRequest, context: Any
    ) -> Any:
        self.arrived += 1
        if self.arrived == 1 and self.hold_first is not None:
            await self.hold_first.wait()
        if self.fail:
            self.fail -= 1
            self.record(request.turn_number, "failed")
            await context.abort(grpc.StatusCode.INTERNAL, "injected failure")
        response: slots_pb2.DiscoverSlotsResponse = await inner(request, context)
        self.record(request.turn_number, "replayed" if response.replayed else "ran")
        return response


def _slot_stage(result: pb.TurnResult) -> int:
    return next(t.status for t in result.stage_timings if t.stage == "slot_discovery")


def _canonical_size(result: pb.TurnResult) -> int:
    return result.canonical_graph.concept_count + result.canonical_graph.candidate_count


class Answered(UnaryInterceptor):
    """Keeps every DiscoverSlots response by turn, and sets `done` once one has been answered."""

    suffix = "/DiscoverSlots"

    def __init__(self, done: asyncio.Event) -> None:
        self.done = done
        self.responses: dict[int, slots_pb2.DiscoverSlotsResponse] = {}

    async def around(
        self, method: str, inner: Unary, request: slots_pb2.DiscoverSlotsRequest, context: Any
    ) -> Any:
        response: slots_pb2.DiscoverSlotsResponse = await inner(request, context)
        self.responses.setdefault(request.turn_number, response)
        self.done.set()
        return response


def _state_size(state: common_pb2.CanonicalGraphState) -> int:
    return state.concept_count + state.candidate_count


async def test_the_discovery_starts_before_strategy_selection(suite_factory: Any) -> None:
    # Each SelectStrategy waits until a DiscoverSlots call has arrived: when the turn's own
    # discovery starts only at the continuation decision (after strategy selection), or after the
    # response, the wait runs out instead.
    arrived = asyncio.Event()
    selection = Hold("/SelectStrategy", arrived)
    recorder = DiscoverSlotsRecorder()
    interceptors = {"canonical_slots": [recorder, Signal("/DiscoverSlots", arrived)], "scoring": [selection]}
    async with suite_factory(interceptors=interceptors) as suite:
        session = (await create(suite.stub, CONCEPT, max_turns=6)).session.session_id
        first = await answer(suite.stub, session, 1, ANSWERS[CONCEPT][0])
        second = await answer(suite.stub, session, 2, ANSWERS[CONCEPT][1])
        assert first.nodes_added and second.nodes_added and second.should_continue
        assert selection.saw_ready == [True, True]
        await recorder.until((2, "ran"))
        assert recorder.calls == [(1, "ran"), (2, "ran")]


class AfterDiscovery(StageWrapper):
    """State computation, run only once the turn's own DiscoverSlots has been answered (or 5 s
    passed: `waited` notes which)."""

    def __init__(self, inner: Stage, done: asyncio.Event, waited: list[bool]) -> None:
        super().__init__(inner)
        self._done, self._waited = done, waited

    async def run(self, ctx: PipelineContext) -> Any:
        self._waited.append(await set_within(self._done, 5.0))
        self._done.clear()
        return await self._inner.run(ctx)


async def test_a_turn_never_counts_its_own_discovery_even_when_it_finished_first(suite_factory: Any) -> None:
    # State computation waits until the turn's own discovery has been answered: its slots are in
    # canonical_slots before the turn computes its signals. The turn still reports the canonical
    # graph as it stood before its run (read beside extraction): canonical signals lag one turn.
    done = asyncio.Event()
    answered = Answered(done)
    waited: list[bool] = []

    def wrap(stage: Stage) -> Stage:
        return AfterDiscovery(stage, done, waited) if stage.name is StageName.STATE_COMPUTATION else stage

    async with suite_factory(interceptors={"canonical_slots": [answered]}, stage_wrapper=wrap) as suite:
        session = (await create(suite.stub, CONCEPT, max_turns=6)).session.session_id
        first = await answer(suite.stub, session, 1, ANSWERS[CONCEPT][0])
        second = await answer(suite.stub, session, 2, ANSWERS[CONCEPT][1])
        assert waited == [True, True]
        after_first, after_second = (_state_size(answered.responses[t].canonical_state) for t in (1, 2))
        # Each run added slots, so a turn that counted its own would show it.
        assert 0 < after_first < after_second
        assert _canonical_size(first) == 0
        assert _canonical_size(second) == after_first


async def test_discovery_runs_in_the_background_and_the_next_turn_completes_it(suite_factory: Any) -> None:
    recorder = DiscoverSlotsRecorder()
    async with suite_factory(interceptors={"canonical_slots": [recorder]}) as suite:
        session = (await create(suite.stub, CONCEPT, max_turns=6)).session.session_id
        first = await answer(suite.stub, session, 1, ANSWERS[CONCEPT][0])
        assert first.nodes_added and first.should_continue
        # Nothing was pending before turn 1, and turn 1's own discovery is not part of its turn:
        # the canonical graph it reports is still empty.
        assert _slot_stage(first) == pb.STAGE_STATUS_SKIPPED
        assert _canonical_size(first) == 0
        await recorder.until((1, "ran"))  # sent in the background

        second = await answer(suite.stub, session, 2, ANSWERS[CONCEPT][1])
        # Turn 2 completed turn 1's discovery first, so its canonical graph holds turn 1's slots;
        # the background run was this orchestrator's, so turn 2 took its response instead of
        # sending the request again. Its own discovery follows in the background.
        assert _slot_stage(second) == pb.STAGE_STATUS_COMPLETED
        assert _canonical_size(second) > 0
        await recorder.until((2, "ran"))
        assert recorder.calls == [(1, "ran"), (2, "ran")]


async def test_the_next_turn_waits_for_a_background_discovery_still_running(suite_factory: Any) -> None:
    release = asyncio.Event()
    recorder = DiscoverSlotsRecorder(hold_first=release)  # turn 1's background run is slow
    async with suite_factory(interceptors={"canonical_slots": [recorder]}) as suite:
        session = (await create(suite.stub, CONCEPT, max_turns=6)).session.session_id
        await answer(suite.stub, session, 1, ANSWERS[CONCEPT][0])
        second = asyncio.create_task(answer(suite.stub, session, 2, ANSWERS[CONCEPT][1]))
        await asyncio.sleep(0.5)
        # Turn 2 waits for the run in progress; it does not send turn 1's request a second time.
        assert not second.done() and recorder.arrived == 1
        release.set()
        result = await second
        assert _canonical_size(result) > 0
        await recorder.until((2, "ran"))
        assert recorder.calls == [(1, "ran"), (2, "ran")]


async def test_a_failed_background_discovery_is_run_by_the_next_turn(suite_factory: Any) -> None:
    recorder = DiscoverSlotsRecorder(fail=1)
    async with suite_factory(interceptors={"canonical_slots": [recorder]}) as suite:
        session = (await create(suite.stub, CONCEPT, max_turns=6)).session.session_id
        await answer(suite.stub, session, 1, ANSWERS[CONCEPT][0])
        await recorder.until((1, "failed"))
        second = await answer(suite.stub, session, 2, ANSWERS[CONCEPT][1])
        # The background call failed; the next turn ran the discovery for real, nothing was lost.
        assert recorder.calls[:2] == [(1, "failed"), (1, "ran")]
        assert _canonical_size(second) > 0


async def test_the_closing_turn_maps_its_own_nodes_before_it_returns(suite_factory: Any) -> None:
    recorder = DiscoverSlotsRecorder()
    async with suite_factory(interceptors={"canonical_slots": [recorder]}) as suite:
        session = (await create(suite.stub, CONCEPT, max_turns=2)).session.session_id
        await answer(suite.stub, session, 1, ANSWERS[CONCEPT][0])
        last = await answer(suite.stub, session, 2, ANSWERS[CONCEPT][1])
        assert not last.should_continue
        # No later turn would complete it, so the closing turn's discovery ran before the response.
        assert (2, "ran") in recorder.calls


async def test_reading_the_graph_completes_a_discovery_still_pending(suite_factory: Any) -> None:
    release = asyncio.Event()
    recorder = DiscoverSlotsRecorder(hold_first=release)  # turn 1's background run is slow
    async with suite_factory(interceptors={"canonical_slots": [recorder]}) as suite:
        session = (await create(suite.stub, CONCEPT, max_turns=6)).session.session_id
        first = await answer(suite.stub, session, 1, ANSWERS[CONCEPT][0])
        graph = await suite.stub.GetSessionGraph(pb.GetSessionGraphRequest(session_id=session))
        # Every node of the answered turn is mapped to a slot although the background run has not
        # even started: the read completed the discovery itself.
        assert recorder.calls == [(1, "ran")]
        assert {m.surface_node_id for m in graph.mappings} == {n.id for n in first.nodes_added}
        release.set()
        await recorder.until((1, "replayed"))  # the background run, when it goes on, is a replay
