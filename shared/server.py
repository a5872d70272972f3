"""The one gRPC server bootstrap every service uses.

    registrations = [ServiceRegistration("interview.graph.v1.GraphService",
                                         lambda s: graph_pb2_grpc.add_GraphServiceServicer_to_server(svc, s))]
    await serve(settings, registrations, on_shutdown=[engine.dispose])     # until SIGTERM / SIGINT

    async with GrpcServer(settings, registrations) as server:              # tests: port 0
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.port}")

A service's `main()` calls `bootstrap(settings)` first, before it loads a model, migrates or warms
up, so every line it writes is in the configured format:

    async def main() -> None:
        settings = GraphStoreSettings()
        bootstrap(settings)
        ...                                                                # models, migrations
        await serve(settings, registrations)

The server (re-)applies the same bootstrap, then builds a grpc.aio server with the interceptor chain
request id → structlog context → OpenTelemetry → error mapping, `grpc.health.v1` (SERVING for ""
and each service) and reflection. Shutdown: every health status goes NOT_SERVING, the server stops
with a grace period, then the `on_shutdown` hooks run.

Server-streaming handlers should be async generators (OpenTelemetry's aio interceptor iterates them).
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import signal
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import grpc
import grpc.aio
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from shared.channels import (
    REQUEST_ID_HEADER,
    current_request_id,
    set_inbound_deadline,
    set_request_id,
    valid_request_id,
)
from shared.grpc_errors import error_scope
from shared.logging import configure_logging
from shared.settings import RequestIdEcho, ServiceSettings
from shared.telemetry import server_interceptor, setup_telemetry

HEALTH_SERVICE_NAME = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
ShutdownHook = Callable[[], Awaitable[None]]
ScopeFactory = Callable[[grpc.aio.ServicerContext], AbstractAsyncContextManager[None]]

_log = structlog.get_logger("shared.server")


@dataclass(frozen=True)
class ServiceRegistration:
    """One gRPC service to host: its full proto name and how to add its servicer to a server."""

    full_name: str
    add_to_server: Callable[[grpc.aio.Server], None]


# -- interceptors -------------------------------------------------------------------------------------
def _wrap_behavior(behavior: Any, scope: ScopeFactory) -> Any:
    """Run `behavior` inside `scope(context)`, keeping its kind (coroutine or async generator)."""
    if inspect.isasyncgenfunction(behavior):

        async def stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            async with scope(context):
                async for response in behavior(request, context):
                    yield response

        return stream
    if inspect.iscoroutinefunction(behavior):

        async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
            async with scope(context):
                return await behavior(request, context)

        return unary
    return behavior  # synchronous handlers are not used by our services; leave them untouched


def _wrap_handler(handler: grpc.RpcMethodHandler | None, scope: ScopeFactory) -> grpc.RpcMethodHandler | None:
    if handler is None:
        return None
    if handler.request_streaming and handler.response_streaming:
        attr = "stream_stream"
    elif handler.request_streaming:
        attr = "stream_unary"
    elif handler.response_streaming:
        attr = "unary_stream"
    else:
        attr = "unary_unary"
    wrapped: grpc.RpcMethodHandler = handler._replace(  # type: ignore[attr-defined]
        **{attr: _wrap_behavior(getattr(handler, attr), scope)}
    )
    return wrapped


class ScopeInterceptor(grpc.aio.ServerInterceptor):
    """Base: wraps every handler's behaviour in `self.scope(details, context)`."""

    def scope(
        self, details: grpc.HandlerCallDetails, context: grpc.aio.ServicerContext
    ) -> AbstractAsyncContextManager[None]:
        raise NotImplementedError

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(handler_call_details)
        return _wrap_handler(handler, lambda context: self.scope(handler_call_details, context))  # type: ignore[return-value]


class _NullScope(AbstractAsyncContextManager[None]):
    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None


def _metadata_value(context: grpc.aio.ServicerContext, key: str) -> str | None:
    for item in context.invocation_metadata() or ():
        if item[0] == key and isinstance(item[1], str):
            return item[1]
    return None


class RequestIdInterceptor(ScopeInterceptor):
    """Reads `x-request-id` (or makes a UUID4), binds it and the deadline, echoes it back: in the
    response headers, or with `echo="trailers"` in the trailers (on an error the rich status's
    ErrorInfo carries it instead)."""

    def __init__(self, echo: RequestIdEcho = "headers") -> None:
        self._echo_in_headers = echo == "headers"

    def scope(
        self, details: grpc.HandlerCallDetails, context: grpc.aio.ServicerContext
    ) -> AbstractAsyncContextManager[None]:
        return _RequestIdScope(context, self._echo_in_headers)


class _RequestIdScope(_NullScope):
    def __init__(self, context: grpc.aio.ServicerContext, echo_in_headers: bool) -> None:
        self._context = context
        self._echo_in_headers = echo_in_headers

    async def __aenter__(self) -> None:
        incoming = _metadata_value(self._context, REQUEST_ID_HEADER)
        request_id = incoming if incoming is not None and valid_request_id(incoming) else str(uuid.uuid4())
        # Each RPC runs in its own task, so setting (not resetting) the contextvars is safe.
        set_request_id(request_id)
        set_inbound_deadline(self._context.time_remaining())
        echo = ((REQUEST_ID_HEADER, request_id),)
        if self._echo_in_headers:
            # Headers go out at once, in a write of their own (about a third of the cost of a
            # small RPC here): worth it only where a caller may not know the id.
            await self._context.send_initial_metadata(echo)
        else:
            self._context.set_trailing_metadata(echo)


class LogContextInterceptor(ScopeInterceptor):
    """Binds request_id, rpc_method and rpc_service into structlog's contextvars for the RPC."""

    def scope(
        self, details: grpc.HandlerCallDetails, context: grpc.aio.ServicerContext
    ) -> AbstractAsyncContextManager[None]:
        return _LogScope(details.method)


class _LogScope(_NullScope):
    def __init__(self, method: str) -> None:
        self._method = method

    async def __aenter__(self) -> None:
        rpc_service = self._method.strip("/").split("/", 1)[0]
        structlog.contextvars.bind_contextvars(
            request_id=current_request_id(), rpc_method=self._method, rpc_service=rpc_service
        )


class ErrorMappingInterceptor(ScopeInterceptor):
    """Maps exceptions escaping a handler to rich statuses (`shared.grpc_errors`)."""

    def __init__(self, domain: str) -> None:
        self._domain = domain

    def scope(
        self, details: grpc.HandlerCallDetails, context: grpc.aio.ServicerContext
    ) -> AbstractAsyncContextManager[None]:
        return error_scope(context, domain=self._domain)


def build_interceptors(settings: ServiceSettings) -> list[grpc.aio.ServerInterceptor]:
    """The interceptor chain, outermost first."""
    return [
        RequestIdInterceptor(settings.request_id_echo),
        LogContextInterceptor(),
        server_interceptor(),
        ErrorMappingInterceptor(settings.service_name),
    ]


# -- bootstrap ----------------------------------------------------------------------------------------
def bootstrap(settings: ServiceSettings) -> None:
    """Set up the process's logging and telemetry from `settings`: the first thing a service does.

    Logging first, because everything a service does before serving logs (the LLM clients, model
    loading and its first-start export, migrations, warm-up): configured only when the server
    starts, those lines came out in structlog's console format, and a library's stdlib record
    logged through the root logger had the stdlib install a handler of its own that duplicated
    every later line. Telemetry next, because OpenTelemetry instruments only the gRPC channels
    created after it. Idempotent: `GrpcServer.start()` applies it again (tests start servers
    without a `main()`)."""
    configure_logging(settings)
    setup_telemetry(settings)


# -- server -------------------------------------------------------------------------------------------
class GrpcServer:
    """A grpc.aio server hosting `registrations` plus health and reflection; an async context manager."""

    def __init__(
        self,
        settings: ServiceSettings,
        registrations: Sequence[ServiceRegistration],
        *,
        on_shutdown: Sequence[ShutdownHook] = (),
        extra_interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
        credentials: grpc.ServerCredentials | None = None,
    ) -> None:
        self._extra_interceptors = list(extra_interceptors)
        self._credentials = credentials
        self._settings = settings
        self._registrations = list(registrations)
        self._on_shutdown = list(on_shutdown)
        self._server: grpc.aio.Server | None = None
        self._health = HealthServicer()
        self._port: int | None = None
        self._stopped = False

    @property
    def port(self) -> int:
        """The bound port (after `start`)."""
        if self._port is None:
            raise RuntimeError("server not started")
        return self._port

    @property
    def service_names(self) -> list[str]:
        """Full names of the hosted application services."""
        return [r.full_name for r in self._registrations]

    async def start(self) -> int:
        """Bind `settings.host:settings.port` (0 = any free port), start serving, return the port."""
        if self._server is not None:
            raise RuntimeError("server already started")
        bootstrap(self._settings)  # before the server (and any channel) is created
        server = grpc.aio.server(
            # Extra interceptors (e.g. auth) run innermost, inside error mapping, so their domain
            # errors become proper statuses.
            interceptors=[*build_interceptors(self._settings), *self._extra_interceptors],
            options=self._settings.server_options(),
        )
        for registration in self._registrations:
            registration.add_to_server(server)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        reflection.enable_server_reflection(
            [*self.service_names, HEALTH_SERVICE_NAME, reflection.SERVICE_NAME], server
        )
        address = f"{self._settings.host}:{self._settings.port}"
        if self._credentials is not None:
            port = server.add_secure_port(address, self._credentials)
        else:
            port = server.add_insecure_port(address)
        if port == 0:
            raise RuntimeError(f"could not bind {address}")
        await server.start()
        self._server, self._port = server, port
        for name in ["", *self.service_names]:
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        _log.info("grpc.server.started", port=port, host=self._settings.host, services=self.service_names)
        return port

    async def stop(self, grace: float | None = None) -> None:
        """Health NOT_SERVING for all, stop with `grace` (default from settings), then run hooks."""
        if self._server is None or self._stopped:
            return
        self._stopped = True
        grace = self._settings.shutdown_grace_s if grace is None else grace
        _log.info("grpc.server.stopping", grace_s=grace)
        await self._health.enter_graceful_shutdown()
        await self._server.stop(grace)
        for hook in self._on_shutdown:
            try:
                await hook()
            except Exception:  # one failing hook must not keep the others from releasing resources
                _log.exception("grpc.server.shutdown_hook_failed")
        _log.info("grpc.server.stopped")

    async def wait_for_termination(self) -> None:
        """Block until the server has stopped."""
        if self._server is not None:
            await self._server.wait_for_termination()

    async def __aenter__(self) -> GrpcServer:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()


def freeze_startup_heap() -> None:
    """Exclude everything built at start-up from the garbage collector's full collections.

    A service's start-up heap is large (the embedding model, spaCy's tables, SDK and protobuf
    classes: hundreds of MiB) and lives as long as the process. Python's full collection walks all
    of it: 44-59 ms per collection in the orchestrator and the graph store, landing on whichever
    turn happens to trigger it (bench/run_bench.py, 50-turn sessions). Frozen, it is never walked
    again; collections scan only what requests create."""
    gc.collect()
    gc.freeze()


async def serve(
    settings: ServiceSettings,
    registrations: Sequence[ServiceRegistration],
    *,
    on_shutdown: Sequence[ShutdownHook] = (),
    extra_interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
    credentials: grpc.ServerCredentials | None = None,
) -> None:
    """Run a `GrpcServer` until SIGTERM or SIGINT, then shut down gracefully."""
    server = GrpcServer(
        settings,
        registrations,
        on_shutdown=on_shutdown,
        extra_interceptors=extra_interceptors,
        credentials=credentials,
    )
    stop_requested = asyncio.Event()
    loop = asyncio.get_running_loop()
    signals = (signal.SIGTERM, signal.SIGINT)
    # Handlers first: a signal that arrives while starting must still shut down cleanly.
    for sig in signals:
        loop.add_signal_handler(sig, stop_requested.set)
    try:
        freeze_startup_heap()
        await server.start()
        await stop_requested.wait()
        _log.info("grpc.server.signal_received")
    finally:
        for sig in signals:
            loop.remove_signal_handler(sig)
        await server.stop()
