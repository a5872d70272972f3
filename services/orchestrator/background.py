"""Work a turn leaves running in the background (checkpoint clean-up, deferred slot discovery).

Tasks are kept referenced until they finish (asyncio holds only weak references to tasks) and are
awaited, with a bound, when the server shuts down, so a SIGTERM does not cut them off half-way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import structlog

_log = structlog.get_logger("orchestrator.background")


class BackgroundTasks:
    """A set of running fire-and-forget tasks; failures are logged, never raised."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, name: str, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Start `work` now; it runs on after the caller returns."""
        task = asyncio.create_task(self._guard(name, work), name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    @staticmethod
    async def _guard(name: str, work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            _log.warning("background_task_failed", task=name, error=type(exc).__name__)

    @property
    def running(self) -> int:
        """How many tasks have not finished yet."""
        return len(self._tasks)

    async def join(self, timeout_s: float) -> None:
        """Wait for the running tasks (shutdown); those still running after `timeout_s` are cancelled."""
        if not self._tasks:
            return
        pending = set(self._tasks)
        _, still = await asyncio.wait(pending, timeout=timeout_s)
        for task in still:
            task.cancel()
        if still:
            await asyncio.gather(*still, return_exceptions=True)
            _log.warning("background_tasks_cancelled", count=len(still))
