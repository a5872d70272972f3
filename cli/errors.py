"""gRPC failures as one readable line: code, details, field violations, expected turn.

The server attaches a rich `google.rpc.Status` in the `grpc-status-details-bin` trailer
(BadRequest field violations for INVALID_ARGUMENT, ErrorInfo with metadata for the rest). A
failure with no rich status never reached the service (e.g. connection refused), which is how
"the service is not reachable" is told apart from "a dependency of the service is down".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import grpc
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2

STATUS_DETAILS_KEY = "grpc-status-details-bin"
_MAX_DETAILS = 200

# Failures after which the very same answer may be sent again (with the same request id).
RETRYABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.INTERNAL,
    }
)


class RpcCall(Protocol):
    """What both `grpc.RpcError` (sync) and `grpc.aio.AioRpcError` offer."""

    def code(self) -> grpc.StatusCode: ...

    def details(self) -> str | None: ...

    def trailing_metadata(self) -> Any: ...


@dataclass(frozen=True)
class RpcFailure:
    """A parsed failed call."""

    code: grpc.StatusCode
    details: str
    violations: list[tuple[str, str]] = field(default_factory=list)
    reason: str = ""
    domain: str = ""
    metadata: dict[str, str] = field(default_factory=dict)
    rich: bool = False  # the service itself produced the status (it carries google.rpc details)

    @property
    def expected_turn(self) -> int | None:
        """The turn number the server expects, when it said so."""
        value = self.metadata.get("expected_turn_number", "")
        return int(value) if value.isdigit() else None

    @property
    def retryable(self) -> bool:
        """Whether resending the same request may succeed."""
        return self.code in RETRYABLE


def _pairs(metadata: Any) -> Iterable[tuple[str, Any]]:
    for item in metadata or ():
        key, value = item[0], item[1]
        yield str(key), value


def parse_rpc_error(error: grpc.RpcError | RpcCall) -> RpcFailure:
    """Code, details and rich-status details of a failed call (sync or aio)."""
    call = cast(RpcCall, error)
    code = call.code()
    details = (call.details() or "").strip()
    violations: list[tuple[str, str]] = []
    reason = domain = ""
    metadata: dict[str, str] = {}
    rich = False
    for key, value in _pairs(call.trailing_metadata()):
        if key != STATUS_DETAILS_KEY or not isinstance(value, bytes):
            continue
        status = status_pb2.Status()
        try:
            status.ParseFromString(value)
        except DecodeError:
            continue
        rich = True
        for packed in status.details:
            bad = error_details_pb2.BadRequest()
            info = error_details_pb2.ErrorInfo()
            if packed.Is(bad.DESCRIPTOR) and packed.Unpack(bad):
                violations += [(v.field, v.description) for v in bad.field_violations]
            elif packed.Is(info.DESCRIPTOR) and packed.Unpack(info):
                reason, domain = info.reason, info.domain
                metadata.update(info.metadata)
    return RpcFailure(code, details, violations, reason, domain, metadata, rich)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_DETAILS else text[: _MAX_DETAILS - 1] + "…"


def describe(failure: RpcFailure, target: str) -> str:
    """One line for the user: `CODE: what happened` plus the specifics of the code."""
    code = failure.code.name
    details = _short(failure.details)
    if failure.code == grpc.StatusCode.UNAVAILABLE and not failure.rich:
        suffix = f" ({details})" if details else ""
        return f"{code}: the service at {target} is not reachable{suffix}"
    if failure.code == grpc.StatusCode.DEADLINE_EXCEEDED and not failure.rich:
        return f"{code}: no answer from the service at {target} in time"
    line = f"{code}: {details or 'no details'}"
    # List the violations the details do not already spell out (shared.validation's do).
    unsaid = [f"{f}: {d}" for f, d in failure.violations if f"{f}: {d}" not in failure.details]
    if unsaid:
        line += " — " + "; ".join(unsaid)
    if failure.code == grpc.StatusCode.UNAVAILABLE and "service" in failure.metadata:
        line += f" (the {failure.metadata['service']} service is down; retry later)"
    if failure.code == grpc.StatusCode.FAILED_PRECONDITION and failure.expected_turn is not None:
        line += f" (the service expects turn {failure.expected_turn})"
    if failure.code == grpc.StatusCode.UNAUTHENTICATED:
        line += " (pass --token or set INTERVIEW_TOKEN)"
    return line
