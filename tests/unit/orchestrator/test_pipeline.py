"""The pipeline runner: single-writer contracts, concurrency groups, checkpoints and resume."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.orchestrator.contracts import (
    ContinuationOutput,
    ResponseSavingOutput,
    StageName,
    UtteranceSavingOutput,
)
from services.orchestrator.pipeline import ContractError, PipelineContext, Stage, TurnInput, TurnPipeline


def _ctx() -> PipelineContext:
    return PipelineContext(turn=TurnInput("s1", 1, "an answer", None))


class Saving(Stage):
    name = StageName.UTTERANCE_SAVING

    def __init__(self) -> None:
        self.runs = 0

    async def run(self, ctx: PipelineContext) -> UtteranceSavingOutput:
        self.runs += 1
        return UtteranceSavingOutput(turn_number=1, user_utterance_id="s1:1:r", text=ctx.turn.text)


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
    saved: list[dict[str, Any]] = []

    async def save(payload: dict[str, Any]) -> None:
        saved.append(payload)

    saving, deciding = Saving(), Deciding(fail_times=1)
    pipeline = TurnPipeline([[[saving]], [[deciding]]], save)
    with pytest.raises(RuntimeError, match="injected"):
        await pipeline.run(_ctx(), {})
    assert saving.runs == 1 and list(saved[-1]) == ["utterance_saving"]

    ctx = _ctx()
    await pipeline.run(ctx, saved[-1])
    assert saving.runs == 1  # restored, not recomputed
    assert deciding.runs == 2
    assert ctx.get(ContinuationOutput).should_continue
    statuses = {t.stage: t.status for t in ctx.timings}
    from shared.gen.interview.orchestrator.v1 import orchestrator_pb2

    assert statuses["utterance_saving"] == orchestrator_pb2.STAGE_STATUS_REUSED
    assert statuses["continuation"] == orchestrator_pb2.STAGE_STATUS_COMPLETED


async def test_chains_in_a_group_run_concurrently_and_a_failure_keeps_siblings_checkpointed() -> None:
    saved: list[dict[str, Any]] = []

    async def save(payload: dict[str, Any]) -> None:
        saved.append(payload)

    a_started, b_started = asyncio.Event(), asyncio.Event()
    group = [[Saving(), Deciding(fail_times=1)], [Responding(a_started, b_started)]]

    class Signal(Stage):
        name = StageName.CONTEXT_LOADING

        async def run(self, ctx: PipelineContext) -> Any:
            b_started.set()
            raise RuntimeError("never stored")

    # Responding waits for b_started, which only the other chain sets: proves concurrency.
    pipeline = TurnPipeline([[[Signal()], *group]], save)
    with pytest.raises(RuntimeError):
        await pipeline.run(_ctx(), {})
    assert "response_saving" in saved[-1] and "context_loading" not in saved[-1]
