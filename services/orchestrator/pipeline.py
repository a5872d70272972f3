"""The turn pipeline: a single-writer context, stage groups, checkpoints and resume.

Stages are grouped; the items of a group run concurrently and an item may be a chain of stages
run in order (srl → extraction runs concurrently with the rubric call). Each stage's output is
checkpointed with the turn, so a turn that fails part-way resumes at the failed stage and reuses
every stored output (LLM results included) instead of recomputing it.

Checkpoints are written by a `CheckpointWriter` behind the pipeline: each stage's own output once
(not the accumulated payload), in stage order, while the next stage waits for its service. Only the
output of a *costly* stage (an LLM call, or a write in another service) starts a write; the outputs
of cheap stages (reads, local rules, deterministic calls) queue and go with the next costly one.
A failing turn flushes the writer before it is marked failed, so a resume finds every output that
was completed, cheap ones included. A crashed process loses what was still queued: those stages are
recomputed on resume (every internal RPC is idempotent on its key, and a cheap stage gives the same
output from the same stored inputs), never a wrong result. The stage that completes the turn commits
it and deletes its checkpoints in one transaction; the outputs still queued when it starts are held
back meanwhile and written only if it fails (had it succeeded they would be deleted unread).
"""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, TypeVar

import structlog
from opentelemetry import trace

from services.orchestrator.contracts import CONTRACTS, Contract, StageName
from services.orchestrator.models import SessionRow
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2

if TYPE_CHECKING:  # the stages import this module
    from services.orchestrator.stages.intake import EarlyIntake

C = TypeVar("C", bound=Contract)
EventSink = Callable[[orchestrator_pb2.StreamTurnResponse], Awaitable[None]]
# Writes (stage name, output JSON) pairs of one turn in one transaction.
CheckpointSink = Callable[[list[tuple[str, str]]], Awaitable[None]]
# How long a completed output waits before it is written (see CheckpointWriter).
CHECKPOINT_DELAY_S = 0.002

_log = structlog.get_logger("orchestrator.pipeline")
_tracer = trace.get_tracer("interview.orchestrator.pipeline")


class ContractError(RuntimeError):
    """A programming error: a contract read before its stage wrote it, or written twice."""


@dataclass
class TurnInput:
    """What the client submitted, and the session as read under the turn's lock."""

    session_id: str
    turn_number: int
    text: str
    request_id: str | None
    # Read once by `TurnService` after taking the lock; the stages that start the turn use it
    # instead of reading the session again (None only where a test drives the pipeline directly).
    session: SessionRow | None = None
    # The node lookup, transcript read and preprocessing call, started by `TurnService` before it
    # records the turn and settled after it (None only where a test drives the pipeline directly).
    early: EarlyIntake | None = None


@dataclass
class PipelineContext:
    """Carries the turn's input and the stage outputs; each output has exactly one writer."""

    turn: TurnInput
    emit: EventSink | None = None
    started_at: float = field(default_factory=time.time)
    _outputs: dict[StageName, Contract] = field(default_factory=dict)
    timings: list[orchestrator_pb2.StageTiming] = field(default_factory=list)

    def set(self, stage: StageName, output: Contract) -> None:
        """Store a stage's output; a second write or a wrong type is a bug."""
        if stage in self._outputs:
            raise ContractError(f"{stage.value} output written twice")
        expected = CONTRACTS[stage]
        if not isinstance(output, expected):
            raise ContractError(f"{stage.value} must write {expected.__name__}, not {type(output).__name__}")
        self._outputs[stage] = output

    def get(self, cls: type[C]) -> C:
        """The output of type `cls`; raises when its stage has not run yet."""
        for stage, contract in CONTRACTS.items():
            if contract is cls:
                output = self._outputs.get(stage)
                if output is None:
                    raise ContractError(f"{cls.__name__} read before stage {stage.value} wrote it")
                assert isinstance(output, cls)
                return output
        raise ContractError(f"{cls.__name__} is not a stage contract")

    def has(self, stage: StageName) -> bool:
        """Whether the stage's output exists."""
        return stage in self._outputs

    async def send(self, event: orchestrator_pb2.StreamTurnResponse) -> None:
        """Forward an event to a streaming client, if any."""
        if self.emit is not None:
            await self.emit(event)


class Stage(ABC):
    """One pipeline stage: reads earlier contracts, writes its own."""

    name: StageName
    # False for a stage whose output is committed with the turn itself (nothing left to resume).
    checkpointed: ClassVar[bool] = True
    # True when recomputing the output would cost an LLM call or another service's write: the output
    # (with the cheap ones queued before it) is written as soon as the next stage is under way. A
    # cheap stage's output waits for the next costly one, or for the turn's failure: a turn that
    # completes never writes the cheap outputs that follow its last costly stage.
    costly: ClassVar[bool] = False
    # True for the stage whose transaction completes the turn and deletes its checkpoints.
    completes_turn: ClassVar[bool] = False

    @abstractmethod
    async def run(self, ctx: PipelineContext) -> Contract:
        """Do the stage's work and return its output contract."""

    async def restore(self, ctx: PipelineContext, stored: str) -> Contract:
        """The output from its checkpoint (JSON). A stage whose checkpoint leaves out what it can
        derive from earlier outputs (a node tracker) rebuilds that here."""
        return CONTRACTS[self.name].model_validate_json(stored)


Chain = Sequence[Stage]
Group = Sequence[Chain]


class CheckpointWriter:
    """Persists stage outputs of one turn in the background, in the order the stages completed.

    `put` never waits for the database: outputs queue up and one drain task writes whatever has
    queued in a single transaction, so a turn pays neither a commit per stage nor the JSON encoding
    on its critical path. A costly output starts the drain, `delay_s` later: the JSON encoding and
    the write (SQLite's statements run on the event loop's thread) then happen while the next stage
    waits for its service, not before the next stage gets to send its request, and the outputs of
    stages that end close together share one transaction. A cheap output only queues: it is written
    with the next costly one, or by `flush` when the turn fails, never on its own (were the drain
    to take up whatever queued during its write, a slow host would add a write to the turn that
    the completing stage's delete then undoes). A failed write is logged and dropped (the stage is
    recomputed on resume). `on_written` is told the stages of each batch once it is written.
    """

    def __init__(
        self,
        sink: CheckpointSink,
        *,
        session_id: str,
        turn_number: int,
        delay_s: float = CHECKPOINT_DELAY_S,
        on_written: Callable[[list[StageName]], None] | None = None,
    ) -> None:
        self._sink = sink
        self._delay_s = delay_s
        self._on_written = on_written
        self._queue: list[tuple[StageName, Contract]] = []
        self._task: asyncio.Task[None] | None = None
        self._held = False
        self._writing = False  # a batch is being written (not waiting out the delay)
        self._due = False  # a costly output (or a flush) asks for what is queued to be written
        self._log = _log.bind(session_id=session_id, turn=turn_number)

    def put(self, stage: StageName, output: Contract, *, costly: bool = True) -> None:
        """Queue a completed stage's output (contracts are frozen: serialising later is safe); a
        costly one starts a write of everything queued."""
        self._queue.append((stage, output))
        if costly:
            self._due = True
            self._start()

    def _start(self, delay_s: float | None = None) -> None:
        if not self._held and (self._task is None or self._task.done()):
            self._task = asyncio.create_task(self._drain(self._delay_s if delay_s is None else delay_s))

    async def hold(self) -> None:
        """Stop writing: the write in progress completes, what is queued stays queued.

        A write still waiting out its delay is called off rather than waited for: the stage that
        completes the turn (the one that holds) would otherwise wait for a write that, once held,
        writes nothing (up to `delay_s` on every turn, after the question's output was queued)."""
        self._held = True
        task = self._task
        if task is not None and not task.done() and not self._writing:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            # The cancelled task keeps its CancelledError, whose traceback holds `_drain`'s frame and
            # so this writer: a reference cycle through the writer's sink (the turn's input, its
            # session row, transcript and node lookup) that only a full collection freed. Turns
            # left their objects behind until then: +3 MB of the orchestrator's RSS over 50 turns.
            self._task = None
        await self.flush()

    def release(self) -> None:
        """Write again, starting with what was held back (at once: the turn is failing, no next
        stage's request is there to go first)."""
        self._held = False
        if self._queue:
            self._due = True
            self._start(0.0)

    async def _drain(self, delay_s: float) -> None:
        if delay_s > 0:
            await asyncio.sleep(delay_s)
        while self._queue and self._due and not self._held:
            batch, self._queue, self._due = self._queue, [], False
            self._writing = True
            try:
                await self._sink([(stage.value, out.model_dump_json()) for stage, out in batch])
            except Exception as exc:
                self._log.warning(
                    "checkpoint_write_failed", stages=[s.value for s, _ in batch], error=type(exc).__name__
                )
            else:
                if self._on_written is not None:
                    self._on_written([stage for stage, _ in batch])
            finally:
                self._writing = False

    async def flush(self) -> None:
        """Write everything queued so far, cheap outputs included, and wait until it is written (or
        has failed and been logged). While held, only the write in progress is waited for."""
        if self._queue:
            self._due = True
            self._start()
        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)


class TurnPipeline:
    """Runs groups of stage chains with checkpointing and resume.

    `on_stage` is told each stage's name once its output is in the context (run or restored from
    a checkpoint), for work that may start part-way through a turn."""

    def __init__(
        self,
        groups: Sequence[Group],
        writer: CheckpointWriter,
        on_stage: Callable[[StageName], None] | None = None,
    ) -> None:
        self._groups = groups
        self._writer = writer
        self._on_stage = on_stage

    @property
    def stage_names(self) -> list[StageName]:
        """Every stage in execution order."""
        return [stage.name for group in self._groups for chain in group for stage in chain]

    async def run(self, ctx: PipelineContext, checkpoints: dict[str, str]) -> None:
        """Run every stage not already checkpointed; stored outputs (JSON) are restored instead."""
        for group in self._groups:
            chains = [self._run_chain(ctx, chain, checkpoints) for chain in group]
            results = await asyncio.gather(*chains, return_exceptions=True)
            failures = [r for r in results if isinstance(r, BaseException)]
            if failures:
                raise failures[0]

    async def _run_chain(self, ctx: PipelineContext, chain: Chain, checkpoints: dict[str, str]) -> None:
        for stage in chain:
            await self._run_stage(ctx, stage, checkpoints)

    async def _run_stage(self, ctx: PipelineContext, stage: Stage, checkpoints: dict[str, str]) -> None:
        stored = checkpoints.get(stage.name.value)
        status = orchestrator_pb2.STAGE_STATUS_COMPLETED
        started = time.perf_counter()
        if stored is not None:
            ctx.set(stage.name, await stage.restore(ctx, stored))
            status = orchestrator_pb2.STAGE_STATUS_REUSED
        else:
            await ctx.send(_stage_event(stage.name, orchestrator_pb2.STAGE_STATUS_STARTED, 0))
            with _tracer.start_as_current_span(f"stage.{stage.name.value}") as span:
                span.set_attribute("session.id", ctx.turn.session_id)
                span.set_attribute("turn.number", ctx.turn.turn_number)
                output = await self._run_work(ctx, stage)
            ctx.set(stage.name, output)
            if getattr(output, "skipped", False):
                status = orchestrator_pb2.STAGE_STATUS_SKIPPED
            if stage.checkpointed:
                self._writer.put(stage.name, output, costly=stage.costly)
        elapsed = int((time.perf_counter() - started) * 1000)
        ctx.timings.append(
            orchestrator_pb2.StageTiming(stage=stage.name.value, status=status, duration_ms=elapsed)
        )
        _log.debug("stage_done", stage=stage.name.value, status=status, ms=elapsed)
        if self._on_stage is not None:
            self._on_stage(stage.name)
        await ctx.send(_stage_event(stage.name, status, elapsed))

    async def _run_work(self, ctx: PipelineContext, stage: Stage) -> Contract:
        if not stage.completes_turn:
            return await stage.run(ctx)
        # Its transaction deletes the turn's checkpoints: the queued ones are needed only if it fails.
        # Waiting for the write in progress also keeps a late insert from outliving that delete.
        await self._writer.hold()
        try:
            return await stage.run(ctx)
        except BaseException:
            self._writer.release()
            raise


def _stage_event(stage: StageName, status: int, elapsed_ms: int) -> orchestrator_pb2.StreamTurnResponse:
    return orchestrator_pb2.StreamTurnResponse(
        stage=orchestrator_pb2.StageEvent(stage=stage.value, status=status, duration_ms=elapsed_ms)  # type: ignore[arg-type]
    )
