"""A minimal OTLP/gRPC trace receiver (collector TraceService/Export) that keeps spans in memory.

The services export to it exactly as they would to an OpenTelemetry Collector
(`<SVC>_OTEL_EXPORTER=otlp`, `<SVC>_OTEL_ENDPOINT=http://127.0.0.1:<port>`). It runs on a thread-pool
gRPC server, independent of the test's event loop, so a test blocking that loop cannot stall the
services' exporters.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.trace.v1 import trace_pb2

from bench.spans import spans_from_otlp

SPAN_KIND_SERVER = trace_pb2.Span.SPAN_KIND_SERVER
SPAN_KIND_CLIENT = trace_pb2.Span.SPAN_KIND_CLIENT


@dataclass(frozen=True)
class SpanRecord:
    """One received span, flattened with its resource's service.name."""

    service: str
    name: str
    trace_id: str
    span_id: str
    parent_span_id: str
    kind: int
    attributes: dict[str, Any] = field(hash=False, compare=False)


class _TraceService(trace_service_pb2_grpc.TraceServiceServicer):
    """Collector side of OTLP/gRPC: stores every span it is sent."""

    def __init__(self, sink: Callable[[list[SpanRecord]], None]) -> None:
        self._sink = sink

    def Export(  # noqa: N802 - gRPC method name
        self, request: trace_service_pb2.ExportTraceServiceRequest, context: grpc.ServicerContext
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        # The request is read as the benchmark's span receiver reads it (bench.spans).
        records = [
            SpanRecord(
                service=span.service,
                name=span.name,
                trace_id=span.trace_id,
                span_id=span.span_id,
                parent_span_id=span.parent_id or "",
                kind=trace_pb2.Span.SpanKind.Value(f"SPAN_KIND_{span.kind}"),
                attributes=dict(span.attributes),
            )
            for span in spans_from_otlp(request)
        ]
        self._sink(records)
        return trace_service_pb2.ExportTraceServiceResponse()


class OtlpReceiver:
    """Starts on 127.0.0.1 (free port); `spans()` snapshots everything received so far."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._spans: list[SpanRecord] = []
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(_TraceService(self._add), self._server)
        self.port = self._server.add_insecure_port("127.0.0.1:0")

    @property
    def endpoint(self) -> str:
        """The URL to put in `<SVC>_OTEL_ENDPOINT`."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Serve in the background."""
        self._server.start()

    def stop(self) -> None:
        """Stop serving (no grace: exporters retry or drop, which is fine at teardown)."""
        self._server.stop(None)

    def _add(self, records: list[SpanRecord]) -> None:
        with self._lock:
            self._spans.extend(records)
            self._lock.notify_all()

    def spans(self) -> list[SpanRecord]:
        """Every span received so far."""
        with self._lock:
            return list(self._spans)

    def wait_until(self, predicate: Callable[[list[SpanRecord]], bool], timeout_s: float) -> list[SpanRecord]:
        """Block until `predicate(spans)` holds or the timeout passes; returns the spans either way."""
        deadline = time.monotonic() + timeout_s
        with self._lock:
            while not predicate(self._spans):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._lock.wait(remaining)
            return list(self._spans)
