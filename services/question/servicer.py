"""The gRPC servicer: protobuf in, `QuestionGenerator` call, protobuf out (no logic here).

Domain errors (`InvalidArgumentError`, `LLM*Error`) propagate to the server's error-mapping
interceptor, which turns them into status codes with field violations.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc

from services.question import convert
from services.question.engine import QuestionGenerator
from shared.gen.interview.question.v1 import question_pb2, question_pb2_grpc


class QuestionServicer(question_pb2_grpc.QuestionServiceServicer):
    """`interview.question.v1.QuestionService`."""

    def __init__(self, generator: QuestionGenerator) -> None:
        self._generator = generator

    async def GenerateOpeningQuestion(
        self, request: question_pb2.GenerateOpeningQuestionRequest, context: grpc.aio.ServicerContext
    ) -> question_pb2.GenerateOpeningQuestionResponse:
        """The warm, open opening question for the session's methodology and concept."""
        result = await self._generator.opening(convert.opening_request(request))
        return convert.opening_response(result)

    async def GenerateFollowUpQuestion(
        self, request: question_pb2.GenerateFollowUpQuestionRequest, context: grpc.aio.ServicerContext
    ) -> question_pb2.GenerateFollowUpQuestionResponse:
        """One follow-up question for the selected strategy and focus."""
        result = await self._generator.follow_up(convert.follow_up_request(request))
        return convert.follow_up_response(result)

    async def StreamFollowUpQuestion(
        self, request: question_pb2.StreamFollowUpQuestionRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[question_pb2.StreamFollowUpQuestionResponse]:
        """Text deltas in order, then the final sanitised question (which may differ from the deltas)."""
        domain = convert.follow_up_request(request.request, prefix="request.")
        async for event in self._generator.stream_follow_up(domain, field_prefix="request"):
            if event.final is not None:
                yield question_pb2.StreamFollowUpQuestionResponse(
                    final=convert.follow_up_response(event.final)
                )
            elif event.delta:
                yield question_pb2.StreamFollowUpQuestionResponse(delta=event.delta)

    async def GenerateClosingMessage(
        self, request: question_pb2.GenerateClosingMessageRequest, context: grpc.aio.ServicerContext
    ) -> question_pb2.GenerateClosingMessageResponse:
        """Thanks and a brief summary of what was learned."""
        result = await self._generator.closing(convert.closing_request(request))
        return convert.closing_response(result)

    async def RephraseQuestion(
        self, request: question_pb2.RephraseQuestionRequest, context: grpc.aio.ServicerContext
    ) -> question_pb2.RephraseQuestionResponse:
        """The question again in simpler words, same intent."""
        result = await self._generator.rephrase(convert.rephrase_request(request))
        return convert.rephrase_response(result)
