"""SubmitTurn / StreamTurn: validation, exactly-once semantics, the session lock and resume."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import structlog

from services.orchestrator.contracts import ScoringPersistenceOutput
from services.orchestrator.locks import SessionLocks
from services.orchestrator.pipeline import EventSink, Group, PipelineContext, Stage, TurnInput, TurnPipeline
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
)
from services.orchestrator.stages.output import (
    QuestionGenerationStage,
    ResponseSavingStage,
    ScoringPersistenceStage,
)
from shared.errors import FailedPreconditionError
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2
from shared.grpc_errors import public_message, status_code_for
from shared.validation import Violations

_log = structlog.get_logger("orchestrator.turns")


StageWrapper = Callable[[Stage], Stage]


def build_groups(d: StageDeps, wrap: StageWrapper | None = None) -> list[Group]:
    """The stage graph. The rubric runs beside srl → extraction; slot discovery runs inline (before
    state computation) or deferred (beside question generation).

    `wrap` decorates every stage (fault-injection tests use it to fail a chosen stage once)."""
    groups = _stage_graph(d)
    if wrap is None:
        return groups
    return [[[wrap(stage) for stage in chain] for chain in group] for group in groups]


def _stage_graph(d: StageDeps) -> list[Group]:
    slots = SlotDiscoveryStage(d)
    inline = d.settings.canonical_slots_mode == "inline"
    groups: list[Group] = [
        [[ContextLoadingStage(d)]],
        [[UtteranceSavingStage(d)]],
        [[SrlStage(d), ExtractionStage(d)], [RubricStage(d)]],
        [[GraphUpdateStage(d)]],
    ]
    if inline:
        groups.append([[slots]])
    groups += [
        [[StateComputationStage(d)]],
        [[StrategySelectionStage(d)]],
        [[ContinuationStage(d)]],
        [[QuestionGenerationStage(d)], [slots]] if not inline else [[QuestionGenerationStage(d)]],
        [[ResponseSavingStage(d)]],
        [[ScoringPersistenceStage(d)]],
    ]
    return groups


class TurnService:
    """Runs turns exactly once per (session, turn_number)."""

    def __init__(self, stage_deps: StageDeps, locks: SessionLocks, wrap: StageWrapper | None = None) -> None:
        self._d = stage_deps
        self._repo: OrchestratorRepository = stage_deps.repo
        self._locks = locks
        self._groups = build_groups(stage_deps, wrap)

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
        session = await self._repo.get_session(session_id)
        stored = await self._completed(session_id, turn_number, text, session.turn_count)
        if stored is not None:
            return stored
        if session.status == "completed":
            raise FailedPreconditionError(
                "the session has ended",
                metadata={"status": "completed", "turn_count": str(session.turn_count)},
            )
        if session.status == "paused":
            raise FailedPreconditionError(
                "the session is paused; resume it first", metadata={"status": "paused"}
            )
        _expect_turn(session.turn_count, turn_number)
        async with self._locks.hold(session_id):
            session = await self._repo.get_session(session_id)
            stored = await self._completed(session_id, turn_number, text, session.turn_count)
            if stored is not None:
                return stored
            _expect_turn(session.turn_count, turn_number)
            turn = await self._repo.begin_turn(session_id, turn_number, text, request_id or None)
            return await self._run(
                TurnInput(session_id, turn_number, text, request_id or None), turn.checkpoints, emit
            )

    async def _run(
        self, turn: TurnInput, checkpoints: dict[str, Any], emit: EventSink | None
    ) -> orchestrator_pb2.TurnResult:
        async def save(payload: dict[str, Any]) -> None:
            await self._repo.save_checkpoint(turn.session_id, turn.turn_number, payload)

        ctx = PipelineContext(turn=turn, emit=emit)
        pipeline = TurnPipeline(self._groups, save)
        try:
            await pipeline.run(ctx, checkpoints or {})
        except BaseException as exc:
            code = status_code_for(exc).name if isinstance(exc, Exception) else "CANCELLED"
            message = public_message(exc) if isinstance(exc, Exception) else "cancelled"
            _log.warning("turn_failed", session_id=turn.session_id, turn=turn.turn_number, code=code)
            await asyncio.shield(self._repo.fail_turn(turn.session_id, turn.turn_number, code, message))
            raise
        return ctx.get(ScoringPersistenceOutput).result

    async def _completed(
        self, session_id: str, turn_number: int, text: str, turn_count: int
    ) -> orchestrator_pb2.TurnResult | None:
        """The stored result when this exact turn was already completed, else None."""
        if turn_number > turn_count:
            return None
        row = await self._repo.get_turn(session_id, turn_number)
        if row is None or row.status != "completed" or row.result is None or row.answer_text != text:
            raise FailedPreconditionError(
                f"turn {turn_number} is already answered; expected turn_number {turn_count + 1}",
                metadata={"expected_turn_number": str(turn_count + 1)},
            )
        result = orchestrator_pb2.TurnResult.FromString(row.result)
        result.replayed = True
        return result


def _expect_turn(turn_count: int, turn_number: int) -> None:
    if turn_number != turn_count + 1:
        raise FailedPreconditionError(
            f"stale or future turn_number {turn_number}; expected {turn_count + 1}",
            metadata={"expected_turn_number": str(turn_count + 1)},
        )
