"""Background work of a turn: kept alive, failures contained, joined (bounded) at shutdown."""

from __future__ import annotations

import asyncio

from services.orchestrator.background import BackgroundTasks


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
