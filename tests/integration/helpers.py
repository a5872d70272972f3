"""Small helpers shared by the integration tests."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

import grpc
import grpc.aio
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from services.orchestrator.pipeline import PipelineContext, Stage
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from tests.integration.answers import ANSWERS
from tests.rich_status import error_info as rich_error_info

T = TypeVar("T")
Unary = Callable[[Any, grpc.aio.ServicerContext], Awaitable[Any]]


class UnaryInterceptor(grpc.aio.ServerInterceptor):
    """Fault injection and call recording on an internal service: every unary method whose full
    name ends with `suffix` ("" for all) runs through `around`, which calls the real method."""

    suffix = ""

    async def around(self, method: str, inner: Unary, request: Any, context: grpc.aio.ServicerContext) -> Any:
        """Runs in place of `method` (its short name); by default just calls it."""
        return await inner(request, context)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None or handler.unary_unary is None or not details.method.endswith(self.suffix):
            return handler
        # grpc-stubs type the behaviour as the sync API's; on a grpc.aio server it is a coroutine function.
        inner, method = cast(Unary, handler.unary_unary), details.method.rsplit("/", 1)[-1]

        async def behaviour(request: Any, context: grpc.aio.ServicerContext) -> Any:
            return await self.around(method, inner, request, context)

        return grpc.unary_unary_rpc_method_handler(
            behaviour,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )


async def set_within(event: asyncio.Event, limit_s: float) -> bool:
    """Wait up to `limit_s` for `event`; whether it was set in time."""
    try:
        await asyncio.wait_for(event.wait(), limit_s)
    except TimeoutError:
        return False
    return True


class Hold(UnaryInterceptor):
    """Holds each call of one method until `ready` is set (or `limit_s` passed), noting which, then
    clears it for the next turn."""

    def __init__(self, suffix: str, ready: asyncio.Event, limit_s: float = 5.0) -> None:
        self.suffix, self.ready, self.limit_s = suffix, ready, limit_s
        self.saw_ready: list[bool] = []

    async def around(self, method: str, inner: Unary, request: Any, context: Any) -> Any:
        self.saw_ready.append(await set_within(self.ready, self.limit_s))
        self.ready.clear()
        return await inner(request, context)


class CallRecorder(UnaryInterceptor):
    """Records (method name, request) of every unary call to the server it is installed on."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Message]] = []

    def requests(self, method: str) -> list[Any]:
        """The requests of one method, in arrival order."""
        return [request for name, request in self.calls if name == method]

    async def around(self, method: str, inner: Unary, request: Message, context: Any) -> Any:
        self.calls.append((method, request))
        return await inner(request, context)


class Signal(UnaryInterceptor):
    """Sets `arrived` when a call of one method arrives."""

    def __init__(self, suffix: str, arrived: asyncio.Event) -> None:
        self.suffix, self.arrived = suffix, arrived

    async def around(self, method: str, inner: Unary, request: Any, context: Any) -> Any:
        self.arrived.set()
        return await inner(request, context)


async def create(
    stub: orchestrator_pb2_grpc.InterviewServiceStub, concept: str, max_turns: int = 6, request_id: str = ""
) -> pb.CreateSessionResponse:
    """A new session (a fixed request_id gives the same session id in every deployment)."""
    response: pb.CreateSessionResponse = await stub.CreateSession(
        pb.CreateSessionRequest(concept_id=concept, max_turns=max_turns, request_id=request_id)
    )
    return response


async def answer(
    stub: orchestrator_pb2_grpc.InterviewServiceStub,
    session_id: str,
    turn: int,
    text: str,
    deadline_s: float = 60,
) -> pb.TurnResult:
    """Submit one turn and return its result."""
    response: pb.SubmitTurnResponse = await stub.SubmitTurn(
        pb.SubmitTurnRequest(session_id=session_id, turn_number=turn, text=text), timeout=deadline_s
    )
    return response.result


async def interview(
    stub: orchestrator_pb2_grpc.InterviewServiceStub, concept: str, max_turns: int = 6
) -> tuple[str, list[pb.TurnResult]]:
    """A whole interview with the concept's scripted answers; returns the session id and results."""
    created = await create(stub, concept, max_turns)
    session_id = created.session.session_id
    results: list[pb.TurnResult] = []
    answers = ANSWERS[concept]
    for turn in range(1, max_turns + 1):
        result = await answer(stub, session_id, turn, answers[(turn - 1) % len(answers)])
        results.append(result)
        if not result.should_continue:
            break
    return session_id, results


async def retry_transient(
    call: Callable[[], Awaitable[T]], attempts: int = 20, code: grpc.StatusCode = grpc.StatusCode.UNAVAILABLE
) -> T:
    """What a client does after a transient status: UNAVAILABLE (the channel reconnects) or, with
    `code=ABORTED`, a busy session (the turn in progress finishes): retry with a short pause."""
    for _ in range(attempts - 1):
        try:
            return await call()
        except grpc.aio.AioRpcError as exc:
            if exc.code() != code:
                raise
            await asyncio.sleep(0.25)
    return await call()


def error_info(exc: grpc.aio.AioRpcError) -> dict[str, str]:
    """The google.rpc.ErrorInfo metadata of a rich status (empty when absent)."""
    status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    if status is None:
        return {}
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return dict(info.metadata)
    return {}


def error_reason(exc: grpc.aio.AioRpcError) -> str:
    """The google.rpc.ErrorInfo reason of a rich status (empty when absent)."""
    return rich_error_info(exc).reason


def field_violations(exc: grpc.aio.AioRpcError) -> list[str]:
    """Fields named by the google.rpc.BadRequest of a rich status."""
    status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    fields: list[str] = []
    if status is None:
        return fields
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            fields += [v.field for v in bad.field_violations]
    return fields


def graph_signature(
    graph: pb.GetSessionGraphResponse,
) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """Id-free view of a surface graph: sorted (label, type) and (source, target, type) tuples."""
    labels = {n.id: n.label for n in graph.nodes}
    nodes = sorted((n.label, n.node_type) for n in graph.nodes)
    edges = sorted((labels[e.source_node_id], labels[e.target_node_id], e.edge_type) for e in graph.edges)
    return nodes, edges


def code_of(exc: BaseException) -> grpc.StatusCode:
    """The status code of an AioRpcError."""
    assert isinstance(exc, grpc.aio.AioRpcError), exc
    return exc.code()


class StageWrapper(Stage):
    """Base of the stages tests wrap around a real one (`stage_wrapper=`): same name, and a
    checkpoint is restored by the real stage (some rebuild part of their output then)."""

    def __init__(self, inner: Stage) -> None:
        self.name = inner.name
        self._inner = inner
        # The checkpoint flags too (class variables of the stages): the pipeline writes, holds and
        # restores a wrapped stage's output as it would the real one's.
        for flag in ("checkpointed", "costly", "completes_turn"):
            setattr(self, flag, getattr(inner, flag))

    async def run(self, ctx: PipelineContext) -> Any:
        return await self._inner.run(ctx)

    async def restore(self, ctx: PipelineContext, stored: str) -> Any:
        return await self._inner.restore(ctx, stored)
