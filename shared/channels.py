"""Client side of internal calls: channels, request-id and deadline propagation, error mapping.

    channel = create_channel("localhost:50053", max_message_bytes=settings.max_message_bytes)
    stub = graph_pb2_grpc.GraphServiceStub(channel)
    resp = await call(stub.GetNode, req, service="graph_store", timeout=2.0)

`call` uses the smaller of `timeout` and the deadline left on the inbound RPC being served (set by the
server bootstrap), so a public deadline bounds every internal call. Failures come back as the domain
errors of `shared.errors` (the server bootstrap maps them to status codes again), e.g. UNAVAILABLE →
`DependencyUnavailableError(service)`.

Trace context is propagated by the OpenTelemetry aio client instrumentation, which
`shared.telemetry.setup_telemetry` installs process-wide before channels are created.
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar

import grpc
import grpc.aio
from google.rpc import error_details_pb2, status_pb2

from shared.errors import (
    AbortedError,
    AlreadyExistsError,
    DependencyDeadlineError,
    DependencyUnavailableError,
    DomainError,
    FailedPreconditionError,
    FieldViolation,
    InvalidArgumentError,
    NotFoundError,
    UnauthenticatedError,
)

REQUEST_ID_HEADER = "x-request-id"
STATUS_DETAILS_KEY = "grpc-status-details-bin"
DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024
_REQUEST_ID_PATTERN = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")

# Per-RPC context. grpc.aio runs every RPC in its own task, so these never leak between RPCs.
_request_id: ContextVar[str | None] = ContextVar("interview_request_id", default=None)
_deadline: ContextVar[float | None] = ContextVar("interview_inbound_deadline", default=None)

ResponseT = TypeVar("ResponseT")

# For a channel that waits for a server to come up. gRPC's default reconnect backoff grows to 120 s,
# so a poller that first knocked while the server was still loading models could miss it being up
# for a minute or more; capped at one second, it notices within a second of the port opening.
STARTUP_RECONNECT_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.min_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 1000),
)


# -- request context (set by the server bootstrap, read by channels) --------------------------------
def current_request_id() -> str | None:
    """The request id of the inbound RPC being served, if any."""
    return _request_id.get()


def set_request_id(request_id: str | None) -> None:
    """Bind the request id for the current task (server bootstrap; tests)."""
    _request_id.set(request_id)


def valid_request_id(value: str | None) -> bool:
    """Whether a client-supplied request id is safe to echo and log."""
    return bool(value) and _REQUEST_ID_PATTERN.match(value or "") is not None


def set_inbound_deadline(time_remaining: float | None) -> None:
    """Record the inbound RPC's remaining time (seconds; None = no deadline) as an absolute deadline."""
    _deadline.set(None if time_remaining is None else time.monotonic() + max(time_remaining, 0.0))


def remaining_deadline() -> float | None:
    """Seconds left on the inbound RPC's deadline (never negative), or None when it has none."""
    deadline = _deadline.get()
    return None if deadline is None else max(deadline - time.monotonic(), 0.0)


def effective_timeout(timeout: float | None) -> float | None:
    """The smaller of `timeout` and the propagated deadline (None when neither is set)."""
    remaining = remaining_deadline()
    if remaining is None:
        return timeout
    return remaining if timeout is None else min(timeout, remaining)


# -- errors -------------------------------------------------------------------------------------------
class RemoteError(DomainError):
    """A dependency answered with a status that has no dedicated domain error.

    RESOURCE_EXHAUSTED, PERMISSION_DENIED and UNIMPLEMENTED keep their code (with the remote message)
    when re-raised to our own caller; any other code (INTERNAL, UNKNOWN, DATA_LOSS, ...) becomes
    INTERNAL with the fixed message, because it is our failure from the caller's point of view.
    """

    def __init__(self, service: str, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message or f"{service} failed with {code.name}", metadata={"service": service})
        self.service = service
        self.code = code


def _rich_status(trailing: Sequence[tuple[str, str | bytes]] | None) -> status_pb2.Status | None:
    for key, value in trailing or ():
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            try:
                return status_pb2.Status.FromString(value)
            except Exception:  # a malformed detail must not hide the status code itself
                return None
    return None


def _violations(status: status_pb2.Status | None) -> list[FieldViolation]:
    found: list[FieldViolation] = []
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            found.extend(FieldViolation(v.field, v.description) for v in bad.field_violations)
    return found


def _error_info(status: status_pb2.Status | None) -> dict[str, str]:
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return dict(info.metadata)
    return {}


def _with_message(error: DomainError, message: str) -> DomainError:
    if message:
        error.public_message = message
        error.args = (message,)
    return error


def error_from_rpc(exc: grpc.aio.AioRpcError, service: str) -> DomainError:
    """Translate a failed internal call into the domain error our own handler should raise."""
    code = exc.code()
    details = exc.details() or ""
    if code == grpc.StatusCode.UNAVAILABLE:
        return DependencyUnavailableError(service)
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return DependencyDeadlineError(service)
    status = _rich_status(exc.trailing_metadata())  # type: ignore[arg-type]
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        return InvalidArgumentError(details or f"{service} rejected the request", _violations(status))
    if code == grpc.StatusCode.NOT_FOUND:
        info = _error_info(status)
        return _with_message(NotFoundError(info.get("resource", "resource"), info.get("id", "")), details)
    simple: dict[grpc.StatusCode, type[DomainError]] = {
        grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
        grpc.StatusCode.ABORTED: AbortedError,
        grpc.StatusCode.ALREADY_EXISTS: AlreadyExistsError,
        grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
    }
    if code in simple:
        return simple[code](details or None, metadata={"service": service})
    return RemoteError(service, code, details)


# -- channel ------------------------------------------------------------------------------------------
def _outgoing(details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
    metadata = grpc.aio.Metadata(*tuple(details.metadata or ()))
    request_id = current_request_id()
    if request_id and REQUEST_ID_HEADER not in metadata:
        metadata.add(REQUEST_ID_HEADER, request_id)
    return grpc.aio.ClientCallDetails(
        details.method,
        effective_timeout(details.timeout),
        metadata,
        details.credentials,
        details.wait_for_ready,
    )


class _UnaryUnaryPropagation(grpc.aio.UnaryUnaryClientInterceptor):
    """Adds x-request-id and caps the timeout at the propagated deadline."""

    async def intercept_unary_unary(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        return await continuation(_outgoing(client_call_details), request)


class _UnaryStreamPropagation(grpc.aio.UnaryStreamClientInterceptor):
    """Same as `_UnaryUnaryPropagation`, for server-streaming calls."""

    async def intercept_unary_stream(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        return await continuation(_outgoing(client_call_details), request)


def create_channel(
    target: str,
    *,
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
    options: Sequence[tuple[str, Any]] = (),
) -> grpc.aio.Channel:
    """An insecure aio channel that propagates request id, deadline and (via OTel) trace context.

    Call `shared.telemetry.setup_telemetry` first (the server bootstrap does) so the channel is traced.
    """
    all_options = [
        ("grpc.max_send_message_length", max_message_bytes),
        ("grpc.max_receive_message_length", max_message_bytes),
        *options,
    ]
    interceptors: list[Any] = [_UnaryUnaryPropagation(), _UnaryStreamPropagation()]
    return grpc.aio.insecure_channel(target, options=all_options, interceptors=interceptors)


async def call(
    method: Callable[..., Awaitable[ResponseT]],
    request: Any,
    *,
    service: str,
    timeout: float | None = None,  # noqa: ASYNC109 - a gRPC deadline passed to the stub, not a sleep bound
    metadata: Sequence[tuple[str, str]] | None = None,
) -> ResponseT:
    """Invoke a unary stub method with a propagated deadline; failures become domain errors."""
    effective = effective_timeout(timeout)
    if effective is not None and effective <= 0:
        raise DependencyDeadlineError(service)
    try:
        return await method(request, timeout=effective, metadata=metadata)
    except grpc.aio.AioRpcError as exc:
        raise error_from_rpc(exc, service) from exc
