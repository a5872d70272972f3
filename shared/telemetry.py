"""OpenTelemetry set-up: tracer provider, exporter, and gRPC aio instrumentation.

`setup_telemetry(settings)` runs once per process (later calls return the same provider): the
OTel tracer provider is process-global by design, so the first service configured in a process
names it. It installs the grpc.aio *client* instrumentation globally, which is why it must run
before any channel is created (the server bootstrap calls it first). The *server* side uses the
same library's aio server interceptor, placed explicitly by `shared.server` in the interceptor
chain (request id → log context → tracing → error mapping); the global server instrumentor would
force it to the front of the chain.
"""

from __future__ import annotations

import threading

import grpc.aio
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.grpc import GrpcAioInstrumentorClient, aio_server_interceptor, filters
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor

from shared.settings import ServiceSettings


class _ProcessTelemetry:
    """The process-wide telemetry state (OTel itself is process-global; this only guards set-up)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.provider: TracerProvider | None = None


_PROCESS = _ProcessTelemetry()


def _build_provider(settings: ServiceSettings) -> TracerProvider:
    existing = trace.get_tracer_provider()
    if isinstance(existing, TracerProvider):
        return existing  # someone (e.g. a test with an in-memory exporter) configured OTel already
    resource = Resource.create({"service.name": settings.service_name, "service.namespace": "interview"})
    provider = TracerProvider(resource=resource)
    if settings.otel_exporter == "otlp":
        insecure = not settings.otel_endpoint.startswith("https://")
        exporter = OTLPSpanExporter(endpoint=settings.otel_endpoint, insecure=insecure)
        provider.add_span_processor(BatchSpanProcessor(exporter))
    elif settings.otel_exporter == "console":
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
    # "none": spans are still created (trace ids in logs, propagation) but not exported.
    trace.set_tracer_provider(provider)
    return provider


def setup_telemetry(settings: ServiceSettings) -> TracerProvider:
    """Configure tracing for this process once and instrument grpc.aio clients; idempotent."""
    with _PROCESS.lock:
        if _PROCESS.provider is None:
            provider = _build_provider(settings)
            instrumentor = GrpcAioInstrumentorClient()
            if not instrumentor.is_instrumented_by_opentelemetry:
                instrumentor.instrument(tracer_provider=provider)
            _PROCESS.provider = provider
        return _PROCESS.provider


def server_interceptor() -> grpc.aio.ServerInterceptor:
    """The OTel grpc.aio server interceptor; health and reflection RPCs are not traced (noise)."""
    skip = filters.any_of(filters.health_check(), filters.service_prefix("grpc.reflection"))
    interceptor: grpc.aio.ServerInterceptor = aio_server_interceptor(
        tracer_provider=_PROCESS.provider, filter_=filters.negate(skip)
    )
    return interceptor


def get_tracer(name: str) -> trace.Tracer:
    """A tracer from the configured provider (a no-op tracer before `setup_telemetry`)."""
    return trace.get_tracer(name)
