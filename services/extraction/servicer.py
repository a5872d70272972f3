"""The gRPC servicer: protobuf in, `ExtractionEngine` call, protobuf out (no logic here).

Domain errors (`InvalidArgumentError`, `LLM*Error`) propagate to the server's error-mapping
interceptor, which turns them into status codes (with field violations for bad input).
"""

from __future__ import annotations

import grpc

from services.extraction import convert
from services.extraction.engine import ExtractionEngine
from shared.gen.interview.extraction.v1 import extraction_pb2, extraction_pb2_grpc


class ExtractionServicer(extraction_pb2_grpc.ExtractionServiceServicer):
    """`interview.extraction.v1.ExtractionService`."""

    def __init__(self, engine: ExtractionEngine, *, max_text_chars: int, methodology_known: set[str]) -> None:
        self._engine = engine
        self._max_chars = max_text_chars
        self._known = methodology_known

    async def Preprocess(
        self, request: extraction_pb2.PreprocessRequest, context: grpc.aio.ServicerContext
    ) -> extraction_pb2.PreprocessResponse:
        """Stage 2.5: sentences, lemmas, discourse relations, frames and the respondent's intent."""
        convert.preprocess_request(request, self._max_chars)
        result = await self._engine.apreprocess(
            request.text, question=request.question, topic=request.topic, enabled=request.enable_srl
        )
        return convert.preprocess_response(result)

    async def ClassifyIntent(
        self, request: extraction_pb2.ClassifyIntentRequest, context: grpc.aio.ServicerContext
    ) -> extraction_pb2.ClassifyIntentResponse:
        """The respondent's intent only (answer, clarification / skip / stop request, off-topic)."""
        convert.classify_intent_request(request, self._max_chars)
        result = await self._engine.aclassify_intent(
            request.text, question=request.question, topic=request.topic
        )
        return extraction_pb2.ClassifyIntentResponse(intent=convert.intent(result))

    async def Extract(
        self, request: extraction_pb2.ExtractRequest, context: grpc.aio.ServicerContext
    ) -> extraction_pb2.ExtractResponse:
        """Stage 3: concepts and relationships of one answer, each with its verbatim quote."""
        domain = convert.extract_request(
            request, max_chars=self._max_chars, methodology_known=self._known.__contains__
        )
        result = await self._engine.extract(domain)
        return convert.extract_response(result)
