"""When a turn's deferred slot discovery may start.

The deferred DiscoverSlots of turn N writes slots and mappings that turn N must not see: canonical
signals lag one turn (DESIGN.md). Turn N's canonical reads all happen in its slot stage, beside
extraction: the canonical state and the slots of the nodes tracked before the turn, kept in the
stage's output. State computation and strategy selection use that snapshot and ask canonical_slots
nothing. So the run may start as soon as two things hold:

* the graph update is done: the request is made of the nodes and edges it created;
* the snapshot is stored in the turn's checkpoints. Were the process to die after the run but before
  that write, the resumed turn would run its slot stage again and read the run's own slots.

The slot stage is costly, so its output is written within milliseconds, long before the graph
update ends: in a normal turn the run starts right after the graph update. That is 10-15 ms before
the continuation decision, which was the start before, and that time is gained on the next turn,
whose slot stage waits for this run (bench/README.md). The continuation decision remains the
latest start. It is the only start when no stored snapshot comes: with canonical slots off, or
when the checkpoint writes fail.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from services.orchestrator.contracts import SlotDiscoveryOutput, StageName
from services.orchestrator.pipeline import PipelineContext


class DiscoveryStart:
    """Calls `start` once, at the first moment the turn's deferred discovery may begin.

    Told of each stage's completion (`stage_done`, the pipeline's `on_stage`) and of each checkpoint
    write (`written`, the checkpoint writer's `on_written`). `stored` holds the stage names whose
    outputs were already in the checkpoints when the turn (re)started. `stop` ends the watch: after
    a failure, a late checkpoint write must not start a run for a turn that is failing.
    """

    def __init__(self, ctx: PipelineContext, stored: Iterable[str], start: Callable[[], None]) -> None:
        self._ctx = ctx
        self._stored = set(stored)
        self._start = start
        self._done = False

    def stage_done(self, stage: StageName) -> None:
        """A stage's output is in the context (run, or restored from a checkpoint)."""
        if stage is StageName.CONTINUATION or self._reads_settled():
            self._fire()

    def written(self, stages: Iterable[StageName]) -> None:
        """These stages' outputs were written to the checkpoints."""
        self._stored.update(stage.value for stage in stages)
        if self._reads_settled():
            self._fire()

    def stop(self) -> None:
        """No start from now on."""
        self._done = True

    def _reads_settled(self) -> bool:
        ctx = self._ctx
        if not (ctx.has(StageName.GRAPH_UPDATE) and ctx.has(StageName.SLOT_DISCOVERY)):
            return False
        if StageName.SLOT_DISCOVERY.value not in self._stored:
            return False
        return ctx.get(SlotDiscoveryOutput).snapshot() is not None

    def _fire(self) -> None:
        if not self._done:
            self._done = True
            self._start()
