"""When a turn's deferred slot discovery starts: after its canonical reads are stored, never before."""

from __future__ import annotations

from collections.abc import Iterable

from services.orchestrator.contracts import (
    ContinuationOutput,
    Contract,
    GraphUpdateOutput,
    SlotDiscoveryOutput,
    StageName,
)
from services.orchestrator.discovery_start import DiscoveryStart
from services.orchestrator.pipeline import PipelineContext, TurnInput
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.graph.v1 import graph_pb2


class Turn:
    """A turn's context and its DiscoveryStart, counting the starts."""

    def __init__(self, stored: Iterable[str] = ()) -> None:
        self.ctx = PipelineContext(turn=TurnInput("s1", 2, "an answer", None))
        self.starts = 0
        self.watch = DiscoveryStart(self.ctx, stored, self._start)

    def _start(self) -> None:
        self.starts += 1

    def done(self, stage: StageName, output: Contract) -> None:
        """A stage completed (its output in the context)."""
        self.ctx.set(stage, output)
        self.watch.stage_done(stage)

    def slot_stage(self, snapshot: bool = True) -> None:
        """The slot stage completed, with its canonical reads (or without: canonical slots off, or
        a checkpoint from before they were kept)."""
        if snapshot:
            state = common_pb2.CanonicalGraphState(concept_count=2)
            output = SlotDiscoveryOutput(mode="deferred", canonical_state=state, slot_ids={"n1": "slot-1"})
        else:
            output = SlotDiscoveryOutput(mode="deferred", skipped=True)
        self.done(StageName.SLOT_DISCOVERY, output)

    def graph_update(self) -> None:
        self.done(
            StageName.GRAPH_UPDATE,
            GraphUpdateOutput(response=graph_pb2.ApplyExtractionResponse(), tracker={}),
        )

    def continuation(self) -> None:
        output = ContinuationOutput(
            should_continue=True, termination_reason=0, turns_remaining=3, next_action="follow_up"
        )
        self.done(StageName.CONTINUATION, output)


def test_the_run_starts_once_the_snapshot_is_stored_and_the_graph_update_is_done() -> None:
    turn = Turn()
    turn.slot_stage()
    turn.graph_update()
    # Both outputs are in the context, but the snapshot is not stored yet: a crash now would make
    # the resumed slot stage read again, after the run.
    assert turn.starts == 0
    turn.watch.written([StageName.SLOT_DISCOVERY])
    assert turn.starts == 1
    # Later stages and writes do not start it again; neither does the continuation.
    turn.watch.written([StageName.GRAPH_UPDATE])
    turn.continuation()
    assert turn.starts == 1


def test_a_snapshot_stored_before_the_graph_update_ends_starts_the_run_at_its_end() -> None:
    turn = Turn()
    turn.slot_stage()
    turn.watch.written([StageName.SLOT_DISCOVERY])
    assert turn.starts == 0  # the request is made of what the graph update created
    turn.graph_update()
    assert turn.starts == 1


def test_a_snapshot_restored_from_the_checkpoints_counts_as_stored() -> None:
    turn = Turn(stored={StageName.SLOT_DISCOVERY.value: "{}"})
    turn.slot_stage()
    turn.graph_update()
    assert turn.starts == 1


def test_other_stages_stored_do_not_stand_for_the_snapshot() -> None:
    turn = Turn(stored={StageName.EXTRACTION.value: "{}"})
    turn.slot_stage()
    turn.graph_update()
    turn.watch.written([StageName.GRAPH_UPDATE, StageName.RUBRIC])
    assert turn.starts == 0


def test_without_a_stored_snapshot_the_run_starts_at_the_continuation() -> None:
    # Checkpoint writes failing: the snapshot is never stored, so the run waits for the decision.
    turn = Turn()
    turn.slot_stage()
    turn.graph_update()
    assert turn.starts == 0
    turn.continuation()
    assert turn.starts == 1


def test_an_output_without_a_snapshot_starts_the_run_at_the_continuation_only() -> None:
    turn = Turn()
    turn.slot_stage(snapshot=False)
    turn.graph_update()
    turn.watch.written([StageName.SLOT_DISCOVERY, StageName.GRAPH_UPDATE])
    assert turn.starts == 0
    turn.continuation()
    assert turn.starts == 1


def test_a_stopped_watch_starts_nothing() -> None:
    # The turn failed: the failure's flush writes the snapshot, which must not start a run then.
    turn = Turn()
    turn.slot_stage()
    turn.graph_update()
    turn.watch.stop()
    turn.watch.written([StageName.SLOT_DISCOVERY])
    assert turn.starts == 0
