"""Background work of a turn: kept alive, failures contained, joined (bounded) at shutdown; the
deferred discoveries a process started, taken by the next turn."""

from __future__ import annotations

import asyncio

from services.orchestrator.background import BackgroundTasks, LocalDiscoveries
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.slots.v1 import slots_pb2


async def test_join_waits_for_running_tasks() -> None:
    tasks = BackgroundTasks()
    done: list[str] = []

    async def work() -> None:
        await asyncio.sleep(0.05)
        done.append("finished")

    tasks.spawn("work", work())
    assert tasks.running == 1
    await tasks.join(timeout_s=5)
    assert done == ["finished"] and tasks.running == 0


async def test_a_failing_task_is_contained() -> None:
    tasks = BackgroundTasks()

    async def boom() -> None:
        raise ConnectionError("dependency down")

    task = tasks.spawn("boom", boom())
    await tasks.join(timeout_s=5)
    assert task.done() and task.exception() is None  # logged, not raised into the loop


async def test_join_cancels_what_outlives_the_grace_period() -> None:
    tasks = BackgroundTasks()
    cancelled = asyncio.Event()

    async def forever() -> None:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    tasks.spawn("forever", forever())
    await tasks.join(timeout_s=0.05)
    assert cancelled.is_set() and tasks.running == 0


async def test_a_discovery_started_here_is_taken_once_and_awaited_while_running() -> None:
    runs = LocalDiscoveries()
    run = runs.start("s1", 3)
    taking = asyncio.create_task(runs.take("s1", 3))
    await asyncio.sleep(0.01)
    assert not taking.done()  # the run has not answered yet: the next turn waits for it
    response = slots_pb2.DiscoverSlotsResponse(usage=common_pb2.LlmUsage(input_tokens=3))
    run.set_result(response)
    assert await taking is response
    assert await runs.take("s1", 3) is None and len(runs) == 0  # taken once


async def test_an_unknown_or_failed_discovery_gives_none_so_the_caller_asks_again() -> None:
    runs = LocalDiscoveries()
    assert await runs.take("s1", 1) is None
    runs.start("s1", 2).set_result(None)  # what a failed background call leaves
    assert await runs.take("s1", 2) is None


async def test_a_cancelled_taker_leaves_the_run_alone() -> None:
    runs = LocalDiscoveries()
    run = runs.start("s1", 1)
    taking = asyncio.create_task(runs.take("s1", 1))
    await asyncio.sleep(0.01)
    taking.cancel()
    await asyncio.gather(taking, return_exceptions=True)
    assert not run.cancelled()
    run.set_result(slots_pb2.DiscoverSlotsResponse())  # the background run still can


async def test_the_oldest_runs_are_dropped_beyond_the_limit() -> None:
    runs = LocalDiscoveries(limit=2)
    for turn in (1, 2, 3):
        usage = common_pb2.LlmUsage(input_tokens=turn)
        runs.start("s1", turn).set_result(slots_pb2.DiscoverSlotsResponse(usage=usage))
    assert len(runs) == 2
    assert await runs.take("s1", 1) is None  # dropped: the caller replays it from canonical_slots
    taken = await runs.take("s1", 3)
    assert taken is not None and taken.usage.input_tokens == 3
