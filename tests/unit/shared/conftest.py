"""A tiny JSON-over-gRPC "probe" service used to exercise the server bootstrap over real sockets.

Methods of `test.v1.Probe` (requests and responses are JSON objects):
    Raise        raises the error named by request["kind"] (see ERRORS)
    RaiseStream  yields one message, then raises request["kind"]
    Abort        aborts explicitly with PERMISSION_DENIED (the AbortError must pass untouched)
    Echo         returns the request id and deadline the handler sees
    Forward      calls Echo (or Raise) on request["target"] through `shared.channels.call`
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import grpc.aio
import pytest

from shared.channels import call, create_channel, current_request_id
from shared.errors import (
    AbortedError,
    AlreadyExistsError,
    DependencyDeadlineError,
    DependencyUnavailableError,
    DomainError,
    FailedPreconditionError,
    FieldViolation,
    InvalidArgumentError,
    LLMInvalidOutputError,
    LLMRateLimitError,
    LLMTimeoutError,
    LLMUnavailableError,
    NotFoundError,
    UnauthenticatedError,
)
from shared.server import ServiceRegistration

PROBE_SERVICE = "test.v1.Probe"
SECRET = "password=hunter2 at /srv/db"

ERRORS: dict[str, Callable[[], BaseException]] = {
    "invalid": lambda: InvalidArgumentError(
        "invalid request: two fields",
        [FieldViolation("session_id", "must not be empty"), FieldViolation("text", "too long")],
    ),
    "not_found": lambda: NotFoundError("session", "s-1"),
    "already_exists": lambda: AlreadyExistsError("session s-1 exists"),
    "precondition": lambda: FailedPreconditionError("session s-1 has ended"),
    "aborted": lambda: AbortedError("another turn is in progress"),
    "unauthenticated": lambda: UnauthenticatedError("missing credentials"),
    "unavailable": lambda: DependencyUnavailableError("graph_store"),
    "deadline": lambda: DependencyDeadlineError("scoring"),
    "llm_timeout": lambda: LLMTimeoutError(),
    "llm_rate_limit": lambda: LLMRateLimitError(),
    "llm_unavailable": lambda: LLMUnavailableError(),
    "llm_invalid_output": lambda: LLMInvalidOutputError(SECRET),
    "domain_internal": lambda: DomainError(SECRET),
    "bug": lambda: RuntimeError(SECRET),
}


def _dumps(value: Any) -> bytes:
    return json.dumps(value).encode()


class Probe:
    """Handlers of the probe service."""

    async def raise_(self, request: dict[str, Any], context: grpc.aio.ServicerContext) -> dict[str, Any]:
        raise ERRORS[request["kind"]]()

    async def raise_stream(
        self, request: dict[str, Any], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[dict[str, Any]]:
        yield {"n": 1}
        raise ERRORS[request["kind"]]()

    async def abort(self, request: dict[str, Any], context: grpc.aio.ServicerContext) -> dict[str, Any]:
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, "explicit abort")
        return {}

    async def echo(self, request: dict[str, Any], context: grpc.aio.ServicerContext) -> dict[str, Any]:
        return {"request_id": current_request_id(), "time_remaining": context.time_remaining()}

    async def forward(self, request: dict[str, Any], context: grpc.aio.ServicerContext) -> dict[str, Any]:
        seen = context.time_remaining()
        async with create_channel(request["target"]) as channel:
            method = channel.unary_unary(
                f"/{PROBE_SERVICE}/{request.get('method', 'Echo')}",
                request_serializer=_dumps,
                response_deserializer=json.loads,
            )
            reply = await call(
                method, request.get("payload", {}), service="downstream", timeout=request.get("timeout")
            )
        return {"downstream": reply, "time_remaining": seen, "request_id": current_request_id()}


def _unary(fn: Any) -> grpc.RpcMethodHandler:
    return grpc.unary_unary_rpc_method_handler(
        fn, request_deserializer=json.loads, response_serializer=_dumps
    )


def probe_registration() -> ServiceRegistration:
    """Registration of the probe service under `test.v1.Probe`."""
    probe = Probe()
    handlers = {
        "Raise": _unary(probe.raise_),
        "Abort": _unary(probe.abort),
        "Echo": _unary(probe.echo),
        "Forward": _unary(probe.forward),
        "RaiseStream": grpc.unary_stream_rpc_method_handler(
            probe.raise_stream, request_deserializer=json.loads, response_serializer=_dumps
        ),
    }

    def add(server: grpc.aio.Server) -> None:
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(PROBE_SERVICE, handlers),))

    return ServiceRegistration(PROBE_SERVICE, add)


class ProbeClient:
    """Client-side callables of the probe service on one channel."""

    def __init__(self, channel: grpc.aio.Channel) -> None:
        self.channel = channel

    def unary(self, method: str) -> Any:
        return self.channel.unary_unary(
            f"/{PROBE_SERVICE}/{method}", request_serializer=_dumps, response_deserializer=json.loads
        )

    def stream(self, method: str) -> Any:
        return self.channel.unary_stream(
            f"/{PROBE_SERVICE}/{method}", request_serializer=_dumps, response_deserializer=json.loads
        )


@pytest.fixture
def probe() -> ServiceRegistration:
    """A fresh probe service registration."""
    return probe_registration()


@pytest.fixture
def probe_client() -> Callable[[grpc.aio.Channel], ProbeClient]:
    """Build a `ProbeClient` for a channel."""
    return ProbeClient
