"""OpenTelemetry set-up: tracer provider, exporter, and gRPC aio instrumentation.

`setup_telemetry(settings)` runs once per process (later calls return the same provider): the
OTel tracer provider is process-global by design, so the first service configured in a process
names it. It installs the grpc.aio *client* instrumentation globally, which is why it must run
before any channel is created (the server bootstrap calls it first). The *server* side uses the
same library's aio server interceptor, placed explicitly by `shared.server` in the interceptor
chain (request id → log context → tracing → error mapping); the global server instrumentor would
force it to the front of the chain.

With no exporter (`otel_exporter: none`, the embedded default) spans are created but not recorded:
each still has its trace and span ids (the log lines carry them, calls propagate them), but no span
data is gathered that nothing would read. A caller that adds a span processor of its own turns
recording on (`export_spans`).
"""

from __future__ import annotations

import threading
from typing import Any

import grpc.aio
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.grpc import GrpcAioInstrumentorClient, aio_server_interceptor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, ParentBased, Sampler, SamplingResult

from shared.settings import ServiceSettings


class _ProcessTelemetry:
    """The process-wide telemetry state (OTel itself is process-global; this only guards set-up)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.provider: TracerProvider | None = None


_PROCESS = _ProcessTelemetry()


class RecordWhenExported(Sampler):
    """Record spans only while something exports them.

    Recording is what a span costs: its attributes, events, status and timings gathered, then handed
    to every processor at its end; a turn makes dozens of spans across the services. Unrecorded, a
    span is its ids alone. Either way the parent decides for a span that has one (`ParentBased`), so a
    trace is recorded all along or not at all, even across services exporting differently."""

    def __init__(self, *, exported: bool) -> None:
        self.exported = exported
        self._recording = ParentBased(ALWAYS_ON)
        self._not_recording = ParentBased(ALWAYS_OFF)

    def should_sample(self, *args: Any, **kwargs: Any) -> SamplingResult:
        """The parent's decision, else record a new trace only while spans are exported."""
        sampler = self._recording if self.exported else self._not_recording
        return sampler.should_sample(*args, **kwargs)

    def get_description(self) -> str:
        """The sampler's name in OTel's diagnostics."""
        return f"RecordWhenExported{{exported={self.exported}}}"


def build_provider(settings: ServiceSettings) -> TracerProvider:
    """A tracer provider for `settings` (its exporter, and recording only when there is one)."""
    resource = Resource.create({"service.name": settings.service_name, "service.namespace": "interview"})
    sampler = RecordWhenExported(exported=settings.otel_exporter != "none")
    provider = TracerProvider(resource=resource, sampler=sampler)
    if settings.otel_exporter == "otlp":
        insecure = not settings.otel_endpoint.startswith("https://")
        exporter = OTLPSpanExporter(endpoint=settings.otel_endpoint, insecure=insecure)
        provider.add_span_processor(BatchSpanProcessor(exporter))
    elif settings.otel_exporter == "console":
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
    return provider


def export_spans(provider: TracerProvider, processor: SpanProcessor) -> None:
    """Hand `provider`'s spans to `processor` too, recording them from now on if they were not."""
    provider.add_span_processor(processor)
    if isinstance(provider.sampler, RecordWhenExported):
        provider.sampler.exported = True


def _global_provider(settings: ServiceSettings) -> TracerProvider:
    existing = trace.get_tracer_provider()
    if isinstance(existing, TracerProvider):
        return existing  # someone (e.g. a test with an in-memory exporter) configured OTel already
    provider = build_provider(settings)
    trace.set_tracer_provider(provider)
    return provider


def setup_telemetry(settings: ServiceSettings) -> TracerProvider:
    """Configure tracing for this process once and instrument grpc.aio clients; idempotent."""
    with _PROCESS.lock:
        if _PROCESS.provider is None:
            provider = _global_provider(settings)
            instrumentor = GrpcAioInstrumentorClient()
            if not instrumentor.is_instrumented_by_opentelemetry:
                instrumentor.instrument(tracer_provider=provider)
            _PROCESS.provider = provider
        return _PROCESS.provider


# Health checks and reflection are not traced (noise): full method names under these prefixes.
_UNTRACED = ("/grpc.health.v1.Health/", "/grpc.reflection.")


def traced(details: Any) -> bool:
    """Whether the server traces an RPC (`details`: the call's handler details).

    It reads the method name itself: the library's filters (`filters.health_check`,
    `filters.service_prefix`) find it through isinstance checks against gRPC's abstract call-details
    classes, which the aio server's own details object fails, at 19 us a call before every RPC."""
    method = details.method
    if isinstance(method, bytes):  # some grpc versions hand the name over as bytes
        method = method.decode()
    return not method.startswith(_UNTRACED)


def server_interceptor() -> grpc.aio.ServerInterceptor:
    """The OTel grpc.aio server interceptor; health and reflection RPCs are not traced (noise)."""
    interceptor: grpc.aio.ServerInterceptor = aio_server_interceptor(
        tracer_provider=_PROCESS.provider, filter_=traced
    )
    return interceptor


def get_tracer(name: str) -> trace.Tracer:
    """A tracer from the configured provider (a no-op tracer before `setup_telemetry`)."""
    return trace.get_tracer(name)
