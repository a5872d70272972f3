"""When a turn's deferred slot discovery starts: after its canonical reads are stored, never before."""

from __future__ import annotations

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


class Starts:
    """Counts the calls of the start callback."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> None:
        self.count += 1


def _ctx() -> PipelineContext:
    return PipelineContext(turn=TurnInput("s1", 2, "an answer", None))


def _slot_output(snapshot: bool = True) -> SlotDiscoveryOutput:
    if not snapshot:  # canonical slots off, or a checkpoint from before the snapshot was kept
        return SlotDiscoveryOutput(mode="deferred", skipped=True)
    return SlotDiscoveryOutput(
        mode="deferred",
        canonical_state=common_pb2.CanonicalGraphState(concept_count=2),
        slot_ids={"n1": "slot-1"},
    )


def _graph_output() -> GraphUpdateOutput:
    return GraphUpdateOutput(response=graph_pb2.ApplyExtractionResponse(), tracker={})


def _continuation() -> ContinuationOutput:
    return ContinuationOutput(
        should_continue=True, termination_reason=0, turns_remaining=3, next_action="follow_up"
    )


def _done(ctx: PipelineContext, starter: DiscoveryStart, stage: StageName, output: Contract) -> None:
    ctx.set(stage, output)
    starter.stage_done(stage)


def test_the_run_starts_once_the_snapshot_is_stored_and_the_graph_update_is_done() -> None:
    ctx, starts = _ctx(), Starts()
    starter = DiscoveryStart(ctx, (), starts)
    _done(ctx, starter, StageName.SLOT_DISCOVERY, _slot_output())
    _done(ctx, starter, StageName.GRAPH_UPDATE, _graph_output())
    # Both outputs are in the context, but the snapshot is not stored yet: a crash now would make
    # the resumed slot stage read again, after the run.
    assert starts.count == 0
    starter.written([StageName.SLOT_DISCOVERY])
    assert starts.count == 1
    # Later stages and writes do not start it again; neither does the continuation.
    starter.written([StageName.GRAPH_UPDATE])
    _done(ctx, starter, StageName.CONTINUATION, _continuation())
    assert starts.count == 1


def test_a_snapshot_stored_before_the_graph_update_ends_starts_the_run_at_its_end() -> None:
    ctx, starts = _ctx(), Starts()
    starter = DiscoveryStart(ctx, (), starts)
    _done(ctx, starter, StageName.SLOT_DISCOVERY, _slot_output())
    starter.written([StageName.SLOT_DISCOVERY])
    assert starts.count == 0  # the request is made of what the graph update created
    _done(ctx, starter, StageName.GRAPH_UPDATE, _graph_output())
    assert starts.count == 1


def test_a_snapshot_restored_from_the_checkpoints_counts_as_stored() -> None:
    ctx, starts = _ctx(), Starts()
    starter = DiscoveryStart(ctx, {StageName.SLOT_DISCOVERY.value: "{}"}, starts)
    _done(ctx, starter, StageName.SLOT_DISCOVERY, _slot_output())
    _done(ctx, starter, StageName.GRAPH_UPDATE, _graph_output())
    assert starts.count == 1


def test_other_stages_written_do_not_stand_for_the_snapshot() -> None:
    ctx, starts = _ctx(), Starts()
    starter = DiscoveryStart(ctx, {StageName.EXTRACTION.value: "{}"}, starts)
    _done(ctx, starter, StageName.SLOT_DISCOVERY, _slot_output())
    _done(ctx, starter, StageName.GRAPH_UPDATE, _graph_output())
    starter.written([StageName.GRAPH_UPDATE, StageName.RUBRIC])
    assert starts.count == 0


def test_without_a_stored_snapshot_the_run_starts_at_the_continuation() -> None:
    # Checkpoint writes failing: the snapshot is never stored, so the run waits for the decision.
    ctx, starts = _ctx(), Starts()
    starter = DiscoveryStart(ctx, (), starts)
    _done(ctx, starter, StageName.SLOT_DISCOVERY, _slot_output())
    _done(ctx, starter, StageName.GRAPH_UPDATE, _graph_output())
    assert starts.count == 0
    _done(ctx, starter, StageName.CONTINUATION, _continuation())
    assert starts.count == 1


def test_an_output_without_a_snapshot_starts_the_run_at_the_continuation_only() -> None:
    ctx, starts = _ctx(), Starts()
    starter = DiscoveryStart(ctx, (), starts)
    _done(ctx, starter, StageName.SLOT_DISCOVERY, _slot_output(snapshot=False))
    _done(ctx, starter, StageName.GRAPH_UPDATE, _graph_output())
    starter.written([StageName.SLOT_DISCOVERY, StageName.GRAPH_UPDATE])
    assert starts.count == 0
    _done(ctx, starter, StageName.CONTINUATION, _continuation())
    assert starts.count == 1


def test_a_stopped_watch_starts_nothing() -> None:
    # The turn failed: the failure's flush writes the snapshot, which must not start a run then.
    ctx, starts = _ctx(), Starts()
    starter = DiscoveryStart(ctx, (), starts)
    _done(ctx, starter, StageName.SLOT_DISCOVERY, _slot_output())
    _done(ctx, starter, StageName.GRAPH_UPDATE, _graph_output())
    starter.stop()
    starter.written([StageName.SLOT_DISCOVERY])
    assert starts.count == 0
