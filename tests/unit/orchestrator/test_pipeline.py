"""The pipeline runner: single-writer contracts, concurrency groups, checkpoints and resume."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

import pytest

from services.orchestrator.contracts import (
    ContinuationOutput,
    ResponseSavingOutput,
    ScoringPersistenceOutput,
    StageName,
    UtteranceSavingOutput,
)
from services.orchestrator.pipeline import (
    CheckpointWriter,
    ContractError,
    Group,
    PipelineContext,
    Stage,
    TurnInput,
    TurnPipeline,
)
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2


def _ctx() -> PipelineContext:
    return PipelineContext(turn=TurnInput("s1", 1, "an answer", None))


class Store:
    """The checkpoint table of one turn, written through a CheckpointWriter."""

    def __init__(self, fail_writes: int = 0) -> None:
        self.rows: dict[str, str] = {}
        self.batches: list[list[str]] = []
        self.fail_writes = fail_writes

    async def save(self, outputs: list[tuple[str, str]]) -> None:
        await asyncio.sleep(0)  # a real write yields to the event loop
        if self.fail_writes:
            self.fail_writes -= 1
            raise ConnectionError("database down")
        self.batches.append([stage for stage, _ in outputs])
        for stage, payload in outputs:
            self.rows.setdefault(stage, payload)

    def writer(self) -> CheckpointWriter:
        return CheckpointWriter(self.save, session_id="s1", turn_number=1)


class GatedStore(Store):
    """Writes that wait for the test to open the gate, so that one is surely in progress."""

    def __init__(self) -> None:
        super().__init__()
        self.started, self.gate, self.written = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def save(self, outputs: list[tuple[str, str]]) -> None:
        self.started.set()
        await self.gate.wait()
        await super().save(outputs)
        self.written.set()


class Saving(Stage):
    name = StageName.UTTERANCE_SAVING

    def __init__(self) -> None:
        self.runs = 0

    async def run(self, ctx: PipelineContext) -> UtteranceSavingOutput:
        self.runs += 1
        return UtteranceSavingOutput(turn_number=1, user_utterance_id="s1:1:r", text=ctx.turn.text)


class CostlySaving(Saving):
    """A stage whose output starts a checkpoint write (an LLM call would be lost otherwise)."""

    costly = True


class Deciding(Stage):
    name = StageName.CONTINUATION

    def __init__(self, fail_times: int = 0) -> None:
        self.fail_times = fail_times
        self.runs = 0

    async def run(self, ctx: PipelineContext) -> ContinuationOutput:
        self.runs += 1
        saved = ctx.get(UtteranceSavingOutput)  # reads the earlier contract
        if self.fail_times:
            self.fail_times -= 1
            raise RuntimeError("injected")
        return ContinuationOutput(
            should_continue=bool(saved.text), termination_reason=0, turns_remaining=3, next_action="follow_up"
        )


class Responding(Stage):
    name = StageName.RESPONSE_SAVING

    def __init__(self, started: asyncio.Event, other: asyncio.Event) -> None:
        self.started, self.other = started, other

    async def run(self, ctx: PipelineContext) -> ResponseSavingOutput:
        self.started.set()
        await asyncio.wait_for(self.other.wait(), 2)  # only completes if the sibling runs concurrently
        return ResponseSavingOutput(system_utterance_id="x", question_text="q?")


def test_reading_a_contract_before_it_is_written_raises() -> None:
    with pytest.raises(ContractError, match="read before stage utterance_saving"):
        _ctx().get(UtteranceSavingOutput)


def test_a_contract_has_one_writer() -> None:
    ctx = _ctx()
    out = UtteranceSavingOutput(turn_number=1, user_utterance_id="u", text="t")
    ctx.set(StageName.UTTERANCE_SAVING, out)
    with pytest.raises(ContractError, match="written twice"):
        ctx.set(StageName.UTTERANCE_SAVING, out)
    with pytest.raises(ContractError, match="must write ContinuationOutput"):
        ctx.set(StageName.CONTINUATION, out)


async def test_failed_stage_resumes_from_checkpoint_without_rerunning_earlier_stages() -> None:
    store = Store()
    saving, deciding = Saving(), Deciding(fail_times=1)
    writer = store.writer()
    pipeline = TurnPipeline([[[saving]], [[deciding]]], writer)
    with pytest.raises(RuntimeError, match="injected"):
        await pipeline.run(_ctx(), {})
    assert store.rows == {}  # a cheap output waits for a costly one, or for the failure's flush
    await writer.flush()
    assert saving.runs == 1 and list(store.rows) == ["utterance_saving"]

    ctx = _ctx()
    await TurnPipeline([[[saving]], [[deciding]]], store.writer()).run(ctx, dict(store.rows))
    assert saving.runs == 1  # restored, not recomputed
    assert deciding.runs == 2
    assert ctx.get(ContinuationOutput).should_continue
    assert ctx.get(UtteranceSavingOutput).text == "an answer"
    statuses = {t.stage: t.status for t in ctx.timings}
    assert statuses["utterance_saving"] == orchestrator_pb2.STAGE_STATUS_REUSED
    assert statuses["continuation"] == orchestrator_pb2.STAGE_STATUS_COMPLETED


async def test_chains_in_a_group_run_concurrently_and_a_failure_keeps_siblings_checkpointed() -> None:
    store = Store()
    a_started, b_started = asyncio.Event(), asyncio.Event()
    group: Group = [[Saving(), Deciding(fail_times=1)], [Responding(a_started, b_started)]]

    class Signal(Stage):
        name = StageName.CONTEXT_LOADING

        async def run(self, ctx: PipelineContext) -> Any:
            b_started.set()
            raise RuntimeError("never stored")

    # Responding waits for b_started, which only the other chain sets: proves concurrency.
    writer = store.writer()
    pipeline = TurnPipeline([[[Signal()], *group]], writer)
    with pytest.raises(RuntimeError):
        await pipeline.run(_ctx(), {})
    await writer.flush()
    assert "response_saving" in store.rows and "context_loading" not in store.rows


async def test_each_output_is_written_once_in_stage_order_and_batched_behind_the_pipeline() -> None:
    store = Store()
    writer = store.writer()
    ctx = _ctx()
    await TurnPipeline([[[Saving()]], [[Deciding()]]], writer).run(ctx, {})
    await writer.flush()
    written = [stage for batch in store.batches for stage in batch]
    assert written == ["utterance_saving", "continuation"]  # each once, in order
    # Only the stage's own output is stored, restorable on its own.
    restored = ContinuationOutput.model_validate_json(store.rows["continuation"])
    assert restored == ctx.get(ContinuationOutput)


async def test_an_output_is_written_once_the_next_stage_waits_for_its_service() -> None:
    # The write (JSON encoding and, on SQLite, statements on the loop's thread) must not delay the
    # next stage's request: it runs while that stage waits for the reply.
    store = GatedStore()
    store.gate.set()
    writer = store.writer()
    seen: dict[str, list[str]] = {}

    class Calling(Deciding):
        async def run(self, ctx: PipelineContext) -> ContinuationOutput:
            seen["when_sent"] = list(store.rows)
            # The service's reply comes once the write is done (a writer that waited for the turn's
            # end would never write here: the wait would time out).
            await asyncio.wait_for(store.written.wait(), 5)
            seen["when_answered"] = list(store.rows)
            return await super().run(ctx)

    await TurnPipeline([[[CostlySaving()]], [[Calling()]]], writer).run(_ctx(), {})
    await writer.flush()
    assert seen == {"when_sent": [], "when_answered": ["utterance_saving"]}


async def test_a_stage_committed_with_the_turn_is_not_checkpointed() -> None:
    class Final(Saving):
        checkpointed = False

    store = Store()
    writer = store.writer()
    await TurnPipeline([[[Final()]], [[Deciding()]]], writer).run(_ctx(), {})
    await writer.flush()
    assert list(store.rows) == ["continuation"]


async def test_the_writer_tells_which_stages_each_write_stored_and_not_a_failed_one() -> None:
    # The deferred slot discovery starts once the slot stage's output is stored (DiscoveryStart):
    # a write that failed must not count.
    store = Store(fail_writes=1)
    told: list[list[str]] = []
    writer = CheckpointWriter(
        store.save,
        session_id="s1",
        turn_number=1,
        on_written=lambda stages: told.append([s.value for s in stages]),
    )
    await TurnPipeline([[[CostlySaving()]], [[Yielding()]]], writer).run(_ctx(), {})
    assert told == []  # the first write failed; the continuation's output is cheap, still queued
    await writer.flush()
    assert told == [["continuation"]] == store.batches


async def test_a_failed_checkpoint_write_does_not_fail_the_turn_and_later_writes_go_on() -> None:
    store = Store(fail_writes=1)
    writer = store.writer()
    ctx = _ctx()
    # Yielding: the second output queues after the first one's write has started (not in its batch).
    await TurnPipeline([[[CostlySaving()]], [[Yielding()]]], writer).run(ctx, {})
    await writer.flush()
    assert ctx.get(ContinuationOutput).should_continue
    # The first write was lost (that stage would be recomputed on a resume); the next one landed.
    assert "continuation" in store.rows and "utterance_saving" not in store.rows


class Completing(Stage):
    """The stage that commits the turn: notes which checkpoints were written when it ran."""

    name = StageName.SCORING_PERSISTENCE
    checkpointed = False
    completes_turn = True

    def __init__(self, store: Store, fail: bool = False) -> None:
        self.store, self.fail = store, fail
        self.written_when_run: list[str] | None = None

    async def run(self, ctx: PipelineContext) -> ScoringPersistenceOutput:
        self.written_when_run = list(self.store.rows)
        await asyncio.sleep(0.01)  # a queued output would be written meanwhile, were it not held
        if self.fail:
            raise RuntimeError("commit failed")
        return ScoringPersistenceOutput(result=orchestrator_pb2.TurnResult(session_id="s1"))


class SlowStore(Store):
    """Writes that take a while, so one is in progress when the turn completes."""

    async def save(self, outputs: list[tuple[str, str]]) -> None:
        await asyncio.sleep(0.02)
        await super().save(outputs)


class Yielding(Deciding):
    async def run(self, ctx: PipelineContext) -> ContinuationOutput:
        await asyncio.sleep(0.005)  # the first output's write starts meanwhile
        return await super().run(ctx)


async def test_outputs_queued_when_the_turn_completes_are_not_written() -> None:
    # The completing stage deletes the turn's checkpoints in its own transaction: writing the
    # outputs still queued then would only add writes (and, on SQLite, a wait) to the turn.
    store = SlowStore()
    writer = store.writer()
    completing = Completing(store)
    await TurnPipeline([[[CostlySaving()]], [[Yielding()]], [[completing]]], writer).run(_ctx(), {})
    await writer.flush()
    # The write in progress (utterance_saving) completed before the stage ran; the queued one never ran.
    assert completing.written_when_run == ["utterance_saving"]
    assert list(store.rows) == ["utterance_saving"]


async def test_outputs_held_back_for_a_completion_that_fails_are_written_for_the_resume() -> None:
    store = SlowStore()
    writer = store.writer()
    completing = Completing(store, fail=True)
    with pytest.raises(RuntimeError, match="commit failed"):
        await TurnPipeline([[[CostlySaving()]], [[Yielding()]], [[completing]]], writer).run(_ctx(), {})
    await writer.flush()
    assert completing.written_when_run == ["utterance_saving"]
    assert list(store.rows) == ["utterance_saving", "continuation"]


async def test_a_cheap_output_is_written_with_the_next_costly_one() -> None:
    store = Store()
    writer = store.writer()
    seen: dict[str, list[str]] = {}

    class CostlyDeciding(Deciding):
        costly = True

        async def run(self, ctx: PipelineContext) -> ContinuationOutput:
            await asyncio.sleep(0.02)  # the cheap output before it had time to be written, were it
            seen["while_running"] = list(store.rows)
            return await super().run(ctx)

    await TurnPipeline([[[Saving()]], [[CostlyDeciding()]]], writer).run(_ctx(), {})
    await writer.flush()  # the costly output's write, behind the pipeline
    assert seen == {"while_running": []}
    assert store.batches == [["utterance_saving", "continuation"]]  # one transaction for both


async def test_cheap_outputs_after_the_last_costly_one_are_never_written_when_the_turn_completes() -> None:
    class Pausing(Stage):
        name = StageName.RESPONSE_SAVING

        async def run(self, ctx: PipelineContext) -> ResponseSavingOutput:
            await asyncio.sleep(0.02)  # time enough to write what queued before it, were it costly
            return ResponseSavingOutput(system_utterance_id="x", question_text="q?")

    store = Store()
    writer = store.writer()
    completing = Completing(store)
    stages: list[Group] = [[[CostlySaving()]], [[Yielding()]], [[Pausing()]], [[completing]]]
    await TurnPipeline(stages, writer).run(_ctx(), {})
    await writer.flush()
    # Only the costly output was written; the completion's transaction deletes it with the turn.
    assert completing.written_when_run == ["utterance_saving"]
    assert list(store.rows) == ["utterance_saving"]


async def test_a_cheap_output_queued_during_a_write_waits_for_the_next_costly_one() -> None:
    # On a slow host the next stage can end while the costly output's write is still running (CI
    # once saw it). The drain must not take the cheap output up on its own: that is a write the
    # completing stage's delete undoes, or one the next costly output would have shared.
    store = GatedStore()
    writer = store.writer()
    ctx = _ctx()
    writer.put(StageName.UTTERANCE_SAVING, await Saving().run(ctx), costly=True)
    await asyncio.wait_for(store.started.wait(), 5)
    ctx.set(StageName.UTTERANCE_SAVING, await Saving().run(ctx))
    writer.put(StageName.CONTINUATION, await Deciding().run(ctx), costly=False)
    store.gate.set()
    for _ in range(20):  # the drain's further iterations, had it any
        await asyncio.sleep(0)
    assert store.batches == [["utterance_saving"]]
    writer.put(StageName.RESPONSE_SAVING, ResponseSavingOutput(system_utterance_id="x", question_text="q?"))
    await writer.flush()
    assert store.batches == [["utterance_saving"], ["continuation", "response_saving"]]


async def test_a_write_still_waiting_to_start_is_called_off_when_the_turn_completes() -> None:
    # The question's output starts a write `delay_s` later; the completing stage right after it
    # holds the writer. Waiting out that delay would only delay the turn: the write, once held,
    # writes nothing. (A delay far longer than the test's deadline: waiting for it fails the test.)
    store = Store()
    writer = CheckpointWriter(store.save, session_id="s1", turn_number=1, delay_s=60.0)
    writer.put(StageName.UTTERANCE_SAVING, await Saving().run(_ctx()), costly=True)
    await asyncio.sleep(0)  # the write has started waiting
    await asyncio.wait_for(writer.hold(), 5)
    assert store.batches == []
    # The completion failed: what was held back is written for the resume, without the delay.
    writer.release()
    await asyncio.wait_for(writer.flush(), 5)
    assert store.batches == [["utterance_saving"]]


async def test_a_called_off_write_leaves_no_reference_cycle() -> None:
    # The cancelled write's CancelledError holds its frame, and so the writer and (through the
    # sink) the turn's objects: while the writer kept the task, only a full collection freed a
    # turn's session row, transcript and node lookup. Freed by reference counting now.
    gc.disable()
    try:
        store = Store()
        writer = CheckpointWriter(store.save, session_id="s1", turn_number=1, delay_s=60.0)
        writer.put(StageName.UTTERANCE_SAVING, await Saving().run(_ctx()), costly=True)
        await asyncio.sleep(0)  # the write has started waiting
        await asyncio.wait_for(writer.hold(), 5)
        freed = weakref.ref(writer)
        del writer
        assert freed() is None
    finally:
        gc.enable()


async def test_a_write_in_progress_when_the_turn_completes_is_waited_for() -> None:
    store = GatedStore()
    writer = CheckpointWriter(store.save, session_id="s1", turn_number=1, delay_s=0.0)
    writer.put(StageName.UTTERANCE_SAVING, await Saving().run(_ctx()), costly=True)
    await asyncio.wait_for(store.started.wait(), 5)
    holding = asyncio.create_task(writer.hold())
    await asyncio.sleep(0.01)
    assert not holding.done()  # waits for the batch being written
    store.gate.set()
    await asyncio.wait_for(holding, 5)
    assert store.batches == [["utterance_saving"]]  # completed, not called off
