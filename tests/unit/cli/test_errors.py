"""Error lines from real failed calls: a tiny real gRPC server aborts with rich statuses
(google.rpc.Status via grpcio-status); both the aio and the sync client surface are parsed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent import futures

import grpc
import grpc.aio
import pytest
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from cli.errors import describe, parse_rpc_error
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from tests.ports import closed_port


def _packed(message: Message) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def _status(code: int, message: str, *details: Message) -> status_pb2.Status:
    return status_pb2.Status(code=code, message=message, details=[_packed(d) for d in details])


STATUSES = {
    "invalid": _status(
        code_pb2.INVALID_ARGUMENT,
        "invalid request",
        error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field="text", description="must not be empty"),
                error_details_pb2.BadRequest.FieldViolation(field="turn_number", description="must be >= 1"),
            ]
        ),
    ),
    "invalid-listed": _status(
        code_pb2.INVALID_ARGUMENT,
        "invalid request: text: must not be empty",
        error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field="text", description="must not be empty"),
                error_details_pb2.BadRequest.FieldViolation(field="request_id", description="bad characters"),
            ]
        ),
    ),
    "stale": _status(
        code_pb2.FAILED_PRECONDITION,
        "stale or future turn_number 5; expected 3",
        error_details_pb2.ErrorInfo(
            reason="FAILED_PRECONDITION",
            domain="interview.orchestrator.v1.InterviewService",
            metadata={"expected_turn_number": "3"},
        ),
    ),
    "dependency": _status(
        code_pb2.UNAVAILABLE,
        "dependency graph_store is unavailable",
        error_details_pb2.ErrorInfo(reason="DEPENDENCY_UNAVAILABLE", metadata={"service": "graph_store"}),
    ),
    "auth": _status(code_pb2.UNAUTHENTICATED, "missing bearer token", error_details_pb2.ErrorInfo()),
}


class AbortingServicer(orchestrator_pb2_grpc.InterviewServiceServicer):
    """GetSession fails with the status named by the session id; "slow" waits until released."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def GetSession(  # noqa: N802
        self, request: pb.GetSessionRequest, context: grpc.ServicerContext
    ) -> pb.GetSessionResponse:
        if request.session_id == "slow":
            self.release.wait(10)
            return pb.GetSessionResponse()
        context.abort_with_status(rpc_status.to_status(STATUSES[request.session_id]))
        raise AssertionError("unreachable")


Served = tuple[str, AbortingServicer]


@pytest.fixture(scope="module")
def server() -> Iterator[Served]:
    servicer = AbortingServicer()
    grpc_server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    orchestrator_pb2_grpc.add_InterviewServiceServicer_to_server(servicer, grpc_server)
    port = grpc_server.add_insecure_port("127.0.0.1:0")
    grpc_server.start()
    try:
        yield f"127.0.0.1:{port}", servicer
    finally:
        servicer.release.set()
        grpc_server.stop(grace=None)


async def _aio_error(target: str, session_id: str, deadline_s: float = 10.0) -> grpc.aio.AioRpcError:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = orchestrator_pb2_grpc.InterviewServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.GetSession(pb.GetSessionRequest(session_id=session_id), timeout=deadline_s)
    return caught.value


def _sync_error(target: str, session_id: str) -> grpc.RpcError:
    with grpc.insecure_channel(target) as channel:
        stub = orchestrator_pb2_grpc.InterviewServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.GetSession(pb.GetSessionRequest(session_id=session_id), timeout=10)
    return caught.value


async def test_invalid_argument_lists_every_field_violation(server: Served) -> None:
    target, _ = server
    failure = parse_rpc_error(await _aio_error(target, "invalid"))
    assert failure.code == grpc.StatusCode.INVALID_ARGUMENT
    assert failure.violations == [("text", "must not be empty"), ("turn_number", "must be >= 1")]
    assert describe(failure, target) == (
        "INVALID_ARGUMENT: invalid request — text: must not be empty; turn_number: must be >= 1"
    )


async def test_violations_already_in_the_details_are_not_repeated(server: Served) -> None:
    target, _ = server
    line = describe(parse_rpc_error(await _aio_error(target, "invalid-listed")), target)
    assert line == "INVALID_ARGUMENT: invalid request: text: must not be empty — request_id: bad characters"


async def test_failed_precondition_names_the_expected_turn(server: Served) -> None:
    target, _ = server
    failure = parse_rpc_error(await _aio_error(target, "stale"))
    assert failure.expected_turn == 3
    assert not failure.retryable
    assert describe(failure, target) == (
        "FAILED_PRECONDITION: stale or future turn_number 5; expected 3 (the service expects turn 3)"
    )


async def test_unavailable_from_the_service_names_the_dependency(server: Served) -> None:
    target, _ = server
    failure = parse_rpc_error(await _aio_error(target, "dependency"))
    assert failure.rich and failure.retryable
    line = describe(failure, target)
    assert line.startswith("UNAVAILABLE: dependency graph_store is unavailable")
    assert "graph_store service is down" in line
    assert "not reachable" not in line  # the service answered; it is a dependency that is down


async def test_unauthenticated_hints_at_the_token(server: Served) -> None:
    target, _ = server
    line = describe(parse_rpc_error(await _aio_error(target, "auth")), target)
    assert line == "UNAUTHENTICATED: missing bearer token (pass --token or set INTERVIEW_TOKEN)"


async def test_client_deadline_is_reported_without_server_details(server: Served) -> None:
    target, servicer = server
    error = await _aio_error(target, "slow", deadline_s=0.2)
    servicer.release.set()
    failure = parse_rpc_error(error)
    assert failure.code == grpc.StatusCode.DEADLINE_EXCEEDED and not failure.rich
    assert describe(failure, target) == f"DEADLINE_EXCEEDED: no answer from the service at {target} in time"


async def test_nothing_listening_is_not_reachable() -> None:
    target = f"127.0.0.1:{closed_port()}"
    failure = parse_rpc_error(await _aio_error(target, "invalid"))
    assert failure.code == grpc.StatusCode.UNAVAILABLE and not failure.rich
    line = describe(failure, target)
    assert line.startswith(f"UNAVAILABLE: the service at {target} is not reachable")
    assert "\n" not in line


def test_the_sync_client_surface_parses_the_same(server: Served) -> None:
    target, _ = server
    invalid = parse_rpc_error(_sync_error(target, "invalid"))
    assert invalid.violations == [("text", "must not be empty"), ("turn_number", "must be >= 1")]
    assert parse_rpc_error(_sync_error(target, "stale")).expected_turn == 3
