"""SubmitTurn / StreamTurn: validation, exactly-once semantics, the session lock and resume."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import structlog
from opentelemetry import trace

from services.orchestrator.background import BackgroundTasks
from services.orchestrator.contracts import ScoringPersistenceOutput
from services.orchestrator.discovery_start import DiscoveryStart
from services.orchestrator.locks import SessionBusyError, SessionLocks
from services.orchestrator.models import SessionRow
from services.orchestrator.pipeline import (
    Chain,
    CheckpointWriter,
    EventSink,
    Group,
    PipelineContext,
    Stage,
    TurnInput,
    TurnPipeline,
)
from services.orchestrator.repository import OrchestratorRepository
from services.orchestrator.stages.common import StageDeps
from services.orchestrator.stages.decision import ContinuationStage, StrategySelectionStage
from services.orchestrator.stages.graph import GraphUpdateStage, SlotDiscoveryStage, StateComputationStage
from services.orchestrator.stages.intake import (
    ContextLoadingStage,
    ExtractionStage,
    RubricStage,
    SrlStage,
    UtteranceSavingStage,
    start_intake,
)
from services.orchestrator.stages.output import (
    QuestionGenerationStage,
    ResponseSavingStage,
    ScoringPersistenceStage,
    deferred_request,
)
from services.orchestrator.turn_errors import (
    SessionEndedError,
    SessionPausedError,
    TurnAlreadyAnsweredError,
    TurnOutOfOrderError,
)
from shared.channels import set_inbound_deadline
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2
from shared.gen.interview.slots.v1 import slots_pb2
from shared.grpc_errors import public_message, status_code_for
from shared.validation import Violations

_log = structlog.get_logger("orchestrator.turns")
_tracer = trace.get_tracer("interview.orchestrator.turns")


StageWrapper = Callable[[Stage], Stage]


def build_groups(d: StageDeps, wrap: StageWrapper | None = None) -> list[Group]:
    """The stage graph. Preprocessing (srl) runs beside context loading, the rubric beside
    extraction → graph update; slot discovery runs inline (before state computation) or deferred
    (in the background once the turn's canonical reads are done; completed at the next turn).

    `wrap` decorates every stage (fault-injection tests use it to fail a chosen stage once)."""
    groups = _stage_graph(d)
    if wrap is None:
        return groups
    return [[[wrap(stage) for stage in chain] for chain in group] for group in groups]


def _stage_graph(d: StageDeps) -> list[Group]:
    slots = SlotDiscoveryStage(d)
    inline = d.settings.canonical_slots_mode == "inline"
    # The graph update needs only the extraction (and the context), so it ends the extraction chain
    # instead of waiting for the rubric. Deferred: the slot stage only completes earlier turns'
    # discoveries — when turns follow each other quickly it waits for the previous turn's background
    # run — so it runs beside the whole chain; state computation, which reads the slots, joins both.
    intake: list[Chain] = [[ExtractionStage(d), GraphUpdateStage(d)], [RubricStage(d)]]
    if not inline:
        intake.append([slots])
    groups: list[Group] = [
        # The answer is already stored with the turn row; saving it as an utterance needs nothing
        # from the loaded context, and preprocessing needs only the answer and the question the
        # session row holds, so the three run together.
        [[ContextLoadingStage(d)], [UtteranceSavingStage(d)], [SrlStage(d)]],
        intake,
    ]
    if inline:
        groups.append([[slots]])
    groups += [
        [[StateComputationStage(d)]],
        [[StrategySelectionStage(d)]],
        [[ContinuationStage(d)]],
        [[QuestionGenerationStage(d)]],
        [[ResponseSavingStage(d)]],
        [[ScoringPersistenceStage(d)]],
    ]
    return groups


class TurnService:
    """Runs turns exactly once per (session, turn_number)."""

    def __init__(
        self,
        stage_deps: StageDeps,
        locks: SessionLocks,
        wrap: StageWrapper | None = None,
        background: BackgroundTasks | None = None,
    ) -> None:
        self._d = stage_deps
        self._repo: OrchestratorRepository = stage_deps.repo
        self._locks = locks
        self._groups = build_groups(stage_deps, wrap)
        self._background = background if background is not None else BackgroundTasks()

    def validate(self, session_id: str, turn_number: int, text: str, request_id: str) -> None:
        """Reject malformed input before anything is read or written."""
        v = Violations()
        v.require_id(session_id, "session_id")
        v.check(turn_number >= 1, "turn_number", "must be >= 1 (the turn the client answers)")
        v.require_text(text, "text", self._d.settings.max_answer_chars)
        if request_id:
            v.require_id(request_id, "request_id")
        v.raise_if_any()

    async def submit(
        self, session_id: str, turn_number: int, text: str, request_id: str, emit: EventSink | None = None
    ) -> orchestrator_pb2.TurnResult:
        """Run (or replay, or resume) one turn and return its result."""
        self.validate(session_id, turn_number, text, request_id)
        try:
            async with self._locks.hold(session_id):
                # Read once, under the lock: no other turn can change the session meanwhile, and
                # the stages that start the turn reuse this read.
                session = await self._repo.get_session(session_id)
                stored = await self._admit(session, turn_number, text)
                if stored is not None:
                    return stored
                return await self._begin(session, turn_number, text, request_id, emit)
        except SessionBusyError:
            # Another turn holds the lock. A retry of a completed turn is still answered from
            # storage, and a request that is wrong anyway gets its own error; otherwise: busy.
            session = await self._repo.get_session(session_id)
            stored = await self._admit(session, turn_number, text)
            if stored is not None:
                return stored
            raise

    async def _admit(
        self, session: SessionRow, turn_number: int, text: str
    ) -> orchestrator_pb2.TurnResult | None:
        """The stored result of a repeated turn; raises when the turn cannot run; else None."""
        try:
            stored = await self._completed(session.id, turn_number, text, session.turn_count)
        except (TurnAlreadyAnsweredError, TurnOutOfOrderError):
            if session.status == "completed":
                # An ended session takes no turn at all: naming the next turn would mislead.
                raise SessionEndedError.of_session(session.turn_count) from None
            raise
        if stored is not None:
            return stored
        if session.status == "completed":
            raise SessionEndedError.of_session(session.turn_count)
        if session.status == "paused":
            raise SessionPausedError("the session is paused; resume it first", metadata={"status": "paused"})
        _expect_turn(session.turn_count, turn_number)
        return None

    async def _begin(
        self, session: SessionRow, turn_number: int, text: str, request_id: str, emit: EventSink | None
    ) -> orchestrator_pb2.TurnResult:
        """Start (or resume) the turn under the lock and run its pipeline."""
        # The node lookup, the transcript read and the preprocessing call need only the session
        # and the answer: they run while the turn is recorded instead of after it.
        early = start_intake(self._d, session, text)
        try:
            turn = await self._repo.begin_turn(session.id, turn_number, text, request_id or None)
            checkpoints = (
                await self._repo.load_checkpoints(session.id, turn_number) if turn.attempts > 1 else {}
            )
            return await self._run(
                TurnInput(session.id, turn_number, text, request_id or None, session, early),
                checkpoints,
                emit,
            )
        finally:
            await early.settle()

    async def _run(
        self, turn: TurnInput, checkpoints: dict[str, str], emit: EventSink | None
    ) -> orchestrator_pb2.TurnResult:
        async def save(outputs: list[tuple[str, str]]) -> None:
            await self._repo.save_checkpoints(turn.session_id, turn.turn_number, outputs)

        ctx = PipelineContext(turn=turn, emit=emit)
        discovery: asyncio.Task[None] | None = None

        def start_discovery() -> None:
            # Deferred mode: this turn's DiscoverSlots, once the turn's canonical reads are settled
            # (`DiscoveryStart`): the run overlaps strategy selection and the question generation
            # instead of following the response, so the next turn's catch-up waits for less.
            nonlocal discovery
            request = deferred_request(ctx)
            if request is not None:
                run = self._d.discoveries.start(request.session_id, request.turn_number)
                discovery = self._background.spawn("slot_discovery", self._discover(request, run))

        starter = DiscoveryStart(ctx, checkpoints, start_discovery)
        writer = CheckpointWriter(
            save, session_id=turn.session_id, turn_number=turn.turn_number, on_written=starter.written
        )
        pipeline = TurnPipeline(self._groups, writer, on_stage=starter.stage_done)
        try:
            await pipeline.run(ctx, checkpoints)
        except BaseException as exc:
            starter.stop()
            code = status_code_for(exc).name if isinstance(exc, Exception) else "CANCELLED"
            message = public_message(exc) if isinstance(exc, Exception) else "cancelled"
            _log.warning("turn_failed", session_id=turn.session_id, turn=turn.turn_number, code=code)
            # Every completed stage's output is stored before the turn is marked failed (and before
            # the session lock is released), so the resume finds all of them.
            await asyncio.shield(self._settle_failure(writer, turn, code, message))
            raise
        result = ctx.get(ScoringPersistenceOutput).result
        if discovery is not None and not result.should_continue:
            # No next turn will complete it: the closing turn maps its nodes before it returns.
            await asyncio.shield(discovery)
            await self._d.discoveries.take(turn.session_id, turn.turn_number)  # nobody else will
        return result

    async def _discover(
        self,
        request: slots_pb2.DiscoverSlotsRequest,
        run: asyncio.Future[slots_pb2.DiscoverSlotsResponse | None],
    ) -> None:
        """A deferred DiscoverSlots call; its response goes to `run` for the next turn (None after
        a failure, which is logged: the next turn sends the request again)."""
        set_inbound_deadline(None)  # the client's deadline was for the response, not for this
        # Its own span in the turn's trace (not a stage: it may run after the turn's response), so the
        # canonical_slots call hangs under something that says why it ran.
        with _tracer.start_as_current_span("background.slot_discovery") as span:
            span.set_attribute("session.id", request.session_id)
            span.set_attribute("turn.number", request.turn_number)
            try:
                response = await self._d.deps(
                    self._d.deps.slots.DiscoverSlots, request, service="canonical_slots"
                )
                run.set_result(response)
            except Exception as exc:
                code = status_code_for(exc).name
                span.set_attribute("error.code", code)
                _log.warning(
                    "deferred_slot_discovery_failed",
                    session_id=request.session_id,
                    turn=request.turn_number,
                    code=code,
                )
            finally:
                if not run.done():  # failed or cancelled (shutdown): the next turn asks again
                    run.set_result(None)

    async def _settle_failure(
        self, writer: CheckpointWriter, turn: TurnInput, code: str, message: str
    ) -> None:
        await writer.flush()
        await self._repo.fail_turn(turn.session_id, turn.turn_number, code, message)

    async def _completed(
        self, session_id: str, turn_number: int, text: str, turn_count: int
    ) -> orchestrator_pb2.TurnResult | None:
        """The stored result when this exact turn was already completed, else None."""
        if turn_number > turn_count:
            return None
        row = await self._repo.get_turn(session_id, turn_number)
        expected = {"expected_turn_number": str(turn_count + 1)}
        if row is None or row.status != "completed" or row.result is None:
            raise TurnOutOfOrderError(
                f"turn {turn_number} is already answered; expected turn_number {turn_count + 1}",
                metadata=expected,
            )
        if row.answer_text != text:
            raise TurnAlreadyAnsweredError(
                f"turn {turn_number} was already answered with a different text; "
                f"expected turn_number {turn_count + 1}",
                metadata=expected,
            )
        result = orchestrator_pb2.TurnResult.FromString(row.result)
        result.replayed = True
        return result


def _expect_turn(turn_count: int, turn_number: int) -> None:
    if turn_number != turn_count + 1:
        raise TurnOutOfOrderError(
            f"stale or future turn_number {turn_number}; expected {turn_count + 1}",
            metadata={"expected_turn_number": str(turn_count + 1)},
        )
