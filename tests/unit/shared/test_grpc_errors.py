"""Domain exception → gRPC status mapping, end to end over a real socket (unary and server streaming)."""

from __future__ import annotations

import json
from typing import Any

import grpc
import grpc.aio
import pytest
from google.rpc import error_details_pb2, status_pb2

from shared.channels import RemoteError
from shared.errors import FieldViolation, InvalidArgumentError
from shared.grpc_errors import build_status, status_code_for
from shared.settings import ServiceSettings
from tests.rich_status import from_aio_call

SECRET = "password=hunter2 at /srv/db"  # what the probe puts into the exceptions' own messages
SETTINGS = ServiceSettings(service_name="probe-svc", log_json=True)
C = grpc.StatusCode

EXPECTED: list[tuple[str, grpc.StatusCode, str]] = [
    ("invalid", C.INVALID_ARGUMENT, "invalid request: two fields"),
    ("not_found", C.NOT_FOUND, "session 's-1' not found"),
    ("already_exists", C.ALREADY_EXISTS, "session s-1 exists"),
    ("precondition", C.FAILED_PRECONDITION, "session s-1 has ended"),
    ("aborted", C.ABORTED, "another turn is in progress"),
    ("unauthenticated", C.UNAUTHENTICATED, "missing credentials"),
    ("unavailable", C.UNAVAILABLE, "dependency graph_store is unavailable"),
    ("deadline", C.DEADLINE_EXCEEDED, "deadline exceeded calling scoring"),
    ("llm_timeout", C.DEADLINE_EXCEEDED, "language model timed out"),
    ("llm_rate_limit", C.RESOURCE_EXHAUSTED, "language model rate limit exceeded"),
    ("llm_unavailable", C.UNAVAILABLE, "language model provider unavailable"),
    ("llm_invalid_output", C.INTERNAL, "language model returned invalid structured output"),
    ("domain_internal", C.INTERNAL, "internal error"),
    ("bug", C.INTERNAL, "internal error"),
]


def _unpack(status: status_pb2.Status, kind: type[Any]) -> Any | None:
    for detail in status.details:
        if detail.Is(kind.DESCRIPTOR):
            message = kind()
            detail.Unpack(message)
            return message
    return None


async def _failed_call(client: Any, kind: str, streaming: bool) -> tuple[grpc.aio.Call, grpc.aio.AioRpcError]:
    if streaming:
        call = client.stream("RaiseStream")({"kind": kind})
        received = []
        with pytest.raises(grpc.aio.AioRpcError) as info:
            async for message in call:
                received.append(message)
        assert received == [{"n": 1}]  # messages before the failure still reach the client
    else:
        call = client.unary("Raise")({"kind": kind})
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await call
    return call, info.value


@pytest.mark.parametrize("streaming", [False, True], ids=["unary", "stream"])
@pytest.mark.parametrize(("kind", "code", "details"), EXPECTED, ids=[e[0] for e in EXPECTED])
async def test_domain_error_maps_to_status(
    grpc_server_factory: Any,
    probe: Any,
    probe_client: Any,
    kind: str,
    code: grpc.StatusCode,
    details: str,
    streaming: bool,
) -> None:
    _, channel = await grpc_server_factory(SETTINGS, [probe])
    call, error = await _failed_call(probe_client(channel), kind, streaming)

    assert error.code() == code
    assert error.details() == details
    status = await from_aio_call(call)
    assert status is not None and status.code == code.value[0] and status.message == details
    assert SECRET not in status.SerializeToString().decode("utf-8", "replace")
    info = _unpack(status, error_details_pb2.ErrorInfo)
    assert info is not None and info.domain == "probe-svc"
    assert info.metadata["request_id"] == dict(await call.initial_metadata())["x-request-id"]


async def test_invalid_argument_carries_every_field_violation(
    grpc_server_factory: Any, probe: Any, probe_client: Any
) -> None:
    _, channel = await grpc_server_factory(SETTINGS, [probe])
    call, _ = await _failed_call(probe_client(channel), "invalid", streaming=False)

    status = await from_aio_call(call)
    bad = _unpack(status, error_details_pb2.BadRequest)
    assert bad is not None
    assert [(v.field, v.description) for v in bad.field_violations] == [
        ("session_id", "must not be empty"),
        ("text", "too long"),
    ]


async def test_unavailable_names_the_dependency(
    grpc_server_factory: Any, probe: Any, probe_client: Any
) -> None:
    _, channel = await grpc_server_factory(SETTINGS, [probe])
    call, _ = await _failed_call(probe_client(channel), "unavailable", streaming=False)

    info = _unpack(await from_aio_call(call), error_details_pb2.ErrorInfo)
    assert info is not None
    assert info.reason == "DEPENDENCY_UNAVAILABLE"
    assert info.metadata["service"] == "graph_store"


async def test_internal_error_is_logged_with_traceback_not_sent(
    grpc_server_factory: Any, probe: Any, probe_client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    _, channel = await grpc_server_factory(SETTINGS, [probe])
    capsys.readouterr()
    _, error = await _failed_call(probe_client(channel), "bug", streaming=False)

    assert SECRET not in (error.details() or "")
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    logged = [line for line in lines if line["event"] == "rpc.unhandled_exception"]
    assert len(logged) == 1
    assert logged[0]["exception"][0]["exc_type"] == "RuntimeError"
    assert logged[0]["exception"][0]["exc_value"] == SECRET
    assert logged[0]["rpc_method"] == "/test.v1.Probe/Raise"
    assert logged[0]["service"] == "probe-svc"


async def test_explicit_abort_passes_through_untouched(
    grpc_server_factory: Any, probe: Any, probe_client: Any
) -> None:
    _, channel = await grpc_server_factory(SETTINGS, [probe])
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await probe_client(channel).unary("Abort")({})
    assert info.value.code() == C.PERMISSION_DENIED
    assert info.value.details() == "explicit abort"


def test_subclasses_inherit_the_code_of_their_parent() -> None:
    class MethodologyError(InvalidArgumentError):
        pass

    assert status_code_for(MethodologyError("bad yaml")) == C.INVALID_ARGUMENT


@pytest.mark.parametrize(
    ("remote_code", "expected"),
    [
        (C.RESOURCE_EXHAUSTED, C.RESOURCE_EXHAUSTED),
        (C.UNIMPLEMENTED, C.UNIMPLEMENTED),
        (C.PERMISSION_DENIED, C.PERMISSION_DENIED),
        (C.INTERNAL, C.INTERNAL),
        (C.UNKNOWN, C.INTERNAL),
        (C.DATA_LOSS, C.INTERNAL),
    ],
)
def test_remote_error_keeps_only_safe_codes(remote_code: grpc.StatusCode, expected: grpc.StatusCode) -> None:
    error = RemoteError("scoring", remote_code, "remote said something")
    status = build_status(error, domain="orchestrator")
    assert status_code_for(error) == expected
    assert status.code == expected.value[0]
    assert status.message == ("internal error" if expected == C.INTERNAL else "remote said something")


def test_invalid_argument_without_violations_has_no_bad_request() -> None:
    status = build_status(InvalidArgumentError("nope"), domain="x")
    assert _unpack(status, error_details_pb2.BadRequest) is None
    status = build_status(InvalidArgumentError("nope", [FieldViolation("a", "b")]), domain="x")
    assert _unpack(status, error_details_pb2.BadRequest) is not None
