"""Work a turn leaves running in the background (checkpoint clean-up, deferred slot discovery).

Tasks are kept referenced until they finish (asyncio holds only weak references to tasks) and are
awaited, with a bound, when the server shuts down, so a SIGTERM does not cut them off half-way.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Coroutine
from typing import Any

import structlog

from shared.gen.interview.slots.v1.slots_pb2 import DiscoverSlotsResponse

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


class LocalDiscoveries:
    """The deferred DiscoverSlots runs this process started, by (session, turn).

    The next turn must know that the previous turn's run completed before it reads the canonical
    graph. When that run was started here, its outcome is already in this process: the catch-up
    takes the response from here (waiting for the run when it is still going) instead of sending
    the request again for canonical_slots to replay from storage. That saves a round trip, the
    request's embeddings sent again, and the replay's read and conversion in canonical_slots.

    A run that failed, or one started by another replica or before a restart, is not here: the
    catch-up then sends the stored request as before. An entry is taken once; the oldest are
    dropped beyond `limit` (abandoned sessions), which costs at most one replay each.
    """

    def __init__(self, limit: int = 4096) -> None:
        self._limit = limit
        self._runs: OrderedDict[tuple[str, int], asyncio.Future[DiscoverSlotsResponse | None]] = OrderedDict()

    def start(self, session_id: str, turn_number: int) -> asyncio.Future[DiscoverSlotsResponse | None]:
        """Register a run about to start; the caller sets the response (None when it failed)."""
        future: asyncio.Future[DiscoverSlotsResponse | None] = asyncio.get_running_loop().create_future()
        self._runs[(session_id, turn_number)] = future
        while len(self._runs) > self._limit:
            self._runs.popitem(last=False)
        return future

    async def take(self, session_id: str, turn_number: int) -> DiscoverSlotsResponse | None:
        """The response of the run of (session, turn) started here (awaited when still running);
        None when there is none or it failed: the caller asks canonical_slots."""
        future = self._runs.pop((session_id, turn_number), None)
        if future is None:
            return None
        # Shielded: a caller that gives up must not cancel what the background run will set.
        return await asyncio.shield(future)

    def __len__(self) -> int:
        return len(self._runs)
