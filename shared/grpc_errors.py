"""The one mapping from domain exceptions to gRPC status codes, with rich `google.rpc.Status` details.

    InvalidArgumentError          -> INVALID_ARGUMENT + google.rpc.BadRequest (every field violation)
    NotFoundError                 -> NOT_FOUND
    AlreadyExistsError            -> ALREADY_EXISTS
    FailedPreconditionError       -> FAILED_PRECONDITION
    AbortedError                  -> ABORTED
    UnauthenticatedError          -> UNAUTHENTICATED
    DependencyUnavailableError    -> UNAVAILABLE          (ErrorInfo metadata names the service)
    DependencyDeadlineError       -> DEADLINE_EXCEEDED
    LLMTimeoutError               -> DEADLINE_EXCEEDED
    LLMRateLimitError             -> RESOURCE_EXHAUSTED
    LLMUnavailableError           -> UNAVAILABLE
    RemoteError                   -> its code when safe to pass on, else INTERNAL
    other DomainError / Exception -> INTERNAL with the class's fixed public message ("internal error")

Every non-INVALID_ARGUMENT status carries a `google.rpc.ErrorInfo` (reason, domain = service name,
metadata incl. the request id). `str(exc)` is only ever logged, never sent.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import NoReturn

import grpc
import grpc.aio
import structlog
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status
from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode

from shared.channels import RemoteError, current_request_id
from shared.errors import (
    AbortedError,
    AlreadyExistsError,
    DependencyDeadlineError,
    DependencyUnavailableError,
    DomainError,
    FailedPreconditionError,
    InvalidArgumentError,
    LLMRateLimitError,
    LLMTimeoutError,
    LLMUnavailableError,
    NotFoundError,
    UnauthenticatedError,
)

INTERNAL_MESSAGE = "internal error"

_CODES: dict[type[BaseException], grpc.StatusCode] = {
    InvalidArgumentError: grpc.StatusCode.INVALID_ARGUMENT,
    NotFoundError: grpc.StatusCode.NOT_FOUND,
    AlreadyExistsError: grpc.StatusCode.ALREADY_EXISTS,
    FailedPreconditionError: grpc.StatusCode.FAILED_PRECONDITION,
    AbortedError: grpc.StatusCode.ABORTED,
    UnauthenticatedError: grpc.StatusCode.UNAUTHENTICATED,
    DependencyUnavailableError: grpc.StatusCode.UNAVAILABLE,
    DependencyDeadlineError: grpc.StatusCode.DEADLINE_EXCEEDED,
    LLMTimeoutError: grpc.StatusCode.DEADLINE_EXCEEDED,
    LLMRateLimitError: grpc.StatusCode.RESOURCE_EXHAUSTED,
    LLMUnavailableError: grpc.StatusCode.UNAVAILABLE,
}
# Remote codes that mean the same thing to our caller; anything else from a dependency is our bug.
_REMOTE_PASSTHROUGH = frozenset(
    {grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNIMPLEMENTED}
)
# Client-caused codes are routine: log them at INFO, not as errors.
_CLIENT_CODES = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.UNAUTHENTICATED,
    }
)

_log = structlog.get_logger("shared.grpc_errors")


def status_code_for(exc: BaseException) -> grpc.StatusCode:
    """The gRPC status code an exception maps to (subclasses inherit their parent's code)."""
    if isinstance(exc, RemoteError):
        return exc.code if exc.code in _REMOTE_PASSTHROUGH else grpc.StatusCode.INTERNAL
    for cls in type(exc).__mro__:
        if cls in _CODES:
            return _CODES[cls]
    return grpc.StatusCode.INTERNAL


def public_message(exc: BaseException) -> str:
    """What the client may read: the exception's public message, or a fixed text for INTERNAL."""
    if not isinstance(exc, DomainError):
        return INTERNAL_MESSAGE
    if status_code_for(exc) == grpc.StatusCode.INTERNAL:
        # The class-level message is a fixed, reviewed text; the instance's may carry internals.
        return type(exc).public_message
    return exc.public_message


def _reason(exc: BaseException, code: grpc.StatusCode) -> str:
    if code == grpc.StatusCode.INTERNAL or not isinstance(exc, DomainError):
        return "INTERNAL"
    name = type(exc).__name__.removesuffix("Error") or code.name
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


def build_status(exc: BaseException, *, domain: str) -> status_pb2.Status:
    """The rich `google.rpc.Status` for an exception raised by a handler of service `domain`."""
    code = status_code_for(exc)
    status = status_pb2.Status(code=code.value[0], message=public_message(exc))
    if isinstance(exc, InvalidArgumentError) and exc.violations:
        bad = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field=v.field, description=v.description)
                for v in exc.violations
            ]
        )
        packed = any_pb2.Any()
        packed.Pack(bad)
        status.details.append(packed)
    metadata: dict[str, str] = {}
    if isinstance(exc, DomainError) and code != grpc.StatusCode.INTERNAL:
        metadata.update(exc.metadata)  # INTERNAL metadata could carry internals: never sent
    if (request_id := current_request_id()) is not None:
        metadata["request_id"] = request_id
    info = error_details_pb2.ErrorInfo(reason=_reason(exc, code), domain=domain, metadata=metadata)
    packed_info = any_pb2.Any()
    packed_info.Pack(info)
    status.details.append(packed_info)
    return status


def _log_error(exc: BaseException, code: grpc.StatusCode) -> None:
    if not isinstance(exc, DomainError):
        _log.error("rpc.unhandled_exception", grpc_code=code.name, exc_info=exc)
    elif code == grpc.StatusCode.INTERNAL:
        _log.error("rpc.internal_error", grpc_code=code.name, error=type(exc).__name__, exc_info=exc)
    elif code in _CLIENT_CODES:
        _log.info("rpc.rejected", grpc_code=code.name, error=type(exc).__name__, detail=str(exc))
    else:
        _log.warning("rpc.failed", grpc_code=code.name, error=type(exc).__name__, detail=str(exc))


async def abort_with_error(context: grpc.aio.ServicerContext, exc: BaseException, *, domain: str) -> NoReturn:
    """Log `exc` and end the RPC with its mapped rich status (raises `grpc.aio.AbortError`)."""
    status = build_status(exc, domain=domain)
    code = status_code_for(exc)
    _log_error(exc, code)
    span = trace.get_current_span()
    span.record_exception(exc)
    span.set_status(Status(StatusCode.ERROR, f"{code.name}: {status.message}"))
    # grpc-stubs lacks aio's abort_with_status; it exists on grpc.aio.ServicerContext.
    await context.abort_with_status(rpc_status.to_status(status))  # type: ignore[attr-defined,unused-ignore]
    raise AssertionError("abort_with_status returned")  # pragma: no cover - abort always raises


@asynccontextmanager
async def error_scope(context: grpc.aio.ServicerContext, *, domain: str) -> AsyncIterator[None]:
    """Turn any exception escaping the block into the mapped status; `AbortError` passes untouched."""
    try:
        yield
    except grpc.aio.AbortError:
        raise  # the handler aborted explicitly: its status stands
    except Exception as exc:
        await abort_with_error(context, exc, domain=domain)
