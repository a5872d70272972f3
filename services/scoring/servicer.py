"""The ScoringService gRPC servicer: validate, convert, delegate to `ScoringEngine`, convert back."""

from __future__ import annotations

import grpc.aio

from services.scoring import convert
from services.scoring.engine import ScoringEngine
from services.scoring.models import SignalInputs
from services.scoring.settings import ScoringSettings
from shared.gen.interview.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from shared.validation import Violations


class ScoringServicer(scoring_pb2_grpc.ScoringServiceServicer):
    """Thin servicer: every rule lives in the engine and the converters."""

    def __init__(self, engine: ScoringEngine, settings: ScoringSettings) -> None:
        self._engine = engine
        self._settings = settings

    def _inputs(self, msg: scoring_pb2.SignalInputs, v: Violations) -> SignalInputs:
        with v.nested("inputs") as iv:
            return convert.inputs_from_proto(
                msg,
                iv,
                max_text_chars=self._settings.max_text_chars,
                methodology_exists=self._engine.has_methodology,
            )

    async def ScoreResponse(
        self, request: scoring_pb2.ScoreResponseRequest, context: grpc.aio.ServicerContext
    ) -> scoring_pb2.ScoreResponseResponse:
        """Score one answer on the six rubric dimensions (the question is part of the prompt)."""
        v = Violations()
        if request.session_id:
            v.require_id(request.session_id, "session_id")
        v.require_text(request.question, "question", self._settings.max_text_chars, allow_empty=True)
        v.require_text(request.answer, "answer", self._settings.max_text_chars)
        v.raise_if_any()
        rubric = await self._engine.score_response(
            request.question, request.answer, session_id=request.session_id or None
        )
        return scoring_pb2.ScoreResponseResponse(rubric=convert.rubric_to_proto(rubric))

    async def SelectStrategy(
        self, request: scoring_pb2.SelectStrategyRequest, context: grpc.aio.ServicerContext
    ) -> scoring_pb2.SelectStrategyResponse:
        """Detect every signal the methodology needs and rank the (strategy, node) candidates."""
        v = Violations()
        mode = convert.mode_from_proto(request.mode, v)
        inputs = self._inputs(request.inputs, v)
        v.raise_if_any()
        selection = await self._engine.select(inputs, mode)
        return convert.selection_to_proto(
            selection,
            alternatives_limit=self._settings.alternatives_limit,
            decomposition_limit=self._settings.decomposition_limit,
        )

    async def DetectSignals(
        self, request: scoring_pb2.DetectSignalsRequest, context: grpc.aio.ServicerContext
    ) -> scoring_pb2.DetectSignalsResponse:
        """Detect the methodology's signals only (replay and analysis)."""
        v = Violations()
        inputs = self._inputs(request.inputs, v)
        v.raise_if_any()
        detection = await self._engine.detect(inputs)
        return convert.detection_to_proto(detection)
