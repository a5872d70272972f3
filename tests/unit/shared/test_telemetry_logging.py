"""Logging lines (JSON, trace ids, service) and tracing across two services."""

from __future__ import annotations

import json
import logging
from types import SimpleNamespace
from typing import Any

import pytest
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from opentelemetry import propagate, trace
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, TraceFlags

from shared.logging import configure_logging, respondent_text
from shared.settings import ServiceSettings
from shared.telemetry import build_provider, export_spans, get_tracer, setup_telemetry, traced


def _json_lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def test_json_line_has_service_level_timestamp_and_trace_ids(capsys: pytest.CaptureFixture[str]) -> None:
    settings = ServiceSettings(service_name="log-svc")
    setup_telemetry(settings)
    configure_logging(settings)
    configure_logging(settings)  # idempotent: still one line per event
    with get_tracer("test").start_as_current_span("work") as span:
        structlog.get_logger("t").info("inside", turn=3)
        expected_trace = format(span.get_span_context().trace_id, "032x")
    logging.getLogger("some.library").warning("stdlib %s", "too")

    lines = [line for line in _json_lines(capsys.readouterr().out) if line["logger"] in ("t", "some.library")]
    assert [line["event"] for line in lines] == ["inside", "stdlib too"]
    inside, stdlib = lines
    assert inside["service"] == "log-svc" and inside["level"] == "info" and inside["turn"] == 3
    assert inside["trace_id"] == expected_trace and len(inside["span_id"]) == 16
    assert "timestamp" in inside
    assert stdlib["level"] == "warning" and stdlib["service"] == "log-svc" and "trace_id" not in stdlib


def test_level_filter_and_console_mode(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging(ServiceSettings(service_name="log-svc", log_level="WARNING", log_json=False))
    try:
        structlog.get_logger("t").info("hidden")
        structlog.get_logger("t").warning("shown")
        out = capsys.readouterr().out
        assert "hidden" not in out
        assert "shown" in out and not out.lstrip().startswith("{")
    finally:
        configure_logging(ServiceSettings(service_name="log-svc"))


def test_respondent_text_is_redacted_unless_enabled() -> None:
    assert respondent_text(ServiceSettings(), "I love my bike") == "<redacted 14 chars>"
    assert respondent_text(ServiceSettings(log_respondent_text=True), "I love my bike") == "I love my bike"


def test_setup_telemetry_is_idempotent() -> None:
    first = setup_telemetry(ServiceSettings(service_name="a"))
    assert setup_telemetry(ServiceSettings(service_name="b", otel_exporter="console")) is first


async def test_one_trace_spans_both_services(grpc_server_factory: Any, probe: Any, probe_client: Any) -> None:
    exporter = InMemorySpanExporter()
    export_spans(setup_telemetry(ServiceSettings()), SimpleSpanProcessor(exporter))
    server_b, _ = await grpc_server_factory(ServiceSettings(service_name="svc-b"), [probe])
    _, channel_a = await grpc_server_factory(ServiceSettings(service_name="svc-a"), [probe])
    exporter.clear()

    await probe_client(channel_a).unary("Forward")({"target": f"127.0.0.1:{server_b.port}"})

    finished = exporter.get_finished_spans()
    server = {span.name: span for span in finished if span.kind == SpanKind.SERVER}
    forward, echo = server["/test.v1.Probe/Forward"], server["/test.v1.Probe/Echo"]
    assert echo.context.trace_id == forward.context.trace_id
    # B's server span hangs under A's client span, which hangs under A's server span.
    assert echo.parent is not None
    client_span = next(s for s in finished if s.context.span_id == echo.parent.span_id)
    assert client_span.kind == SpanKind.CLIENT
    assert client_span.parent is not None and client_span.parent.span_id == forward.context.span_id
    exporter.shutdown()


async def test_health_checks_and_reflection_make_no_spans(
    grpc_server_factory: Any, probe: Any, probe_client: Any
) -> None:
    exporter = InMemorySpanExporter()
    export_spans(setup_telemetry(ServiceSettings()), SimpleSpanProcessor(exporter))
    _, channel = await grpc_server_factory(ServiceSettings(service_name="svc"), [probe])
    exporter.clear()

    await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    listing = reflection_pb2.ServerReflectionRequest(list_services="")
    async for _ in reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(iter([listing])):
        pass
    await probe_client(channel).unary("Echo")({})

    served = [span.name for span in exporter.get_finished_spans() if span.kind == SpanKind.SERVER]
    assert served == ["/test.v1.Probe/Echo"]
    exporter.shutdown()


@pytest.mark.parametrize(
    ("method", "traced_"),
    [
        ("/interview.graph.v1.GraphService/ApplyExtraction", True),
        (b"/interview.graph.v1.GraphService/ApplyExtraction", True),
        ("/grpc.health.v1.Health/Check", False),
        ("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", False),
    ],
)
def test_which_methods_are_traced(method: str | bytes, traced_: bool) -> None:
    assert traced(SimpleNamespace(method=method)) is traced_


def test_without_an_exporter_spans_keep_their_ids_but_record_nothing() -> None:
    tracer = build_provider(ServiceSettings(otel_exporter="none")).get_tracer("t")
    with tracer.start_as_current_span("turn") as span:
        carrier: dict[str, str] = {}
        propagate.inject(carrier)
    context = span.get_span_context()
    assert not span.is_recording() and context.is_valid and not context.trace_flags.sampled
    # the next service gets the ids and the decision: its spans join the trace, unrecorded
    _version, trace_id, parent_id, flags = carrier["traceparent"].split("-")
    assert (trace_id, parent_id) == (f"{context.trace_id:032x}", f"{context.span_id:016x}")
    assert int(flags, 16) & TraceFlags.SAMPLED == 0


def test_a_recorded_parent_is_recorded_on_in_a_service_without_an_exporter() -> None:
    # A caller that exports sent its trace as sampled: the trace stays whole across services.
    tracer = build_provider(ServiceSettings(otel_exporter="none")).get_tracer("t")
    remote = SpanContext(trace_id=7, span_id=9, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED))
    parent = trace.set_span_in_context(NonRecordingSpan(remote))
    child = tracer.start_span("handler", context=parent)
    assert child.is_recording() and child.get_span_context().trace_id == 7


def test_an_exporter_added_later_records_from_then_on() -> None:
    provider = build_provider(ServiceSettings(otel_exporter="none"))
    exporter = InMemorySpanExporter()
    before = provider.get_tracer("t")  # tracers made before the exporter record too
    export_spans(provider, SimpleSpanProcessor(exporter))
    with before.start_as_current_span("turn") as span:
        assert span.is_recording()
    assert [s.name for s in exporter.get_finished_spans()] == ["turn"]


def test_a_configured_exporter_records_spans() -> None:
    provider = build_provider(ServiceSettings(otel_exporter="console"))
    span = provider.get_tracer("t").start_span("turn")
    assert span.is_recording() and span.get_span_context().trace_flags.sampled


@pytest.mark.parametrize("name", ["httpx", "httpx2", "httpcore"])
def test_http_clients_request_lines_only_at_debug(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The per-request INFO line of the SDKs' HTTP clients repeats `llm_call_complete`: dropped at
    INFO, kept at DEBUG; their warnings always pass."""
    library = logging.getLogger(name)
    configure_logging(ServiceSettings(service_name="log-svc", log_level="INFO"))
    library.info("HTTP Request: POST http://x/v1/messages")
    library.warning("retrying")
    at_info = [line["event"] for line in _json_lines(capsys.readouterr().out) if line["logger"] == name]
    configure_logging(ServiceSettings(service_name="log-svc", log_level="DEBUG"))
    library.info("HTTP Request: POST http://x/v1/messages")
    at_debug = [line["event"] for line in _json_lines(capsys.readouterr().out) if line["logger"] == name]
    configure_logging(ServiceSettings(service_name="log-svc", log_level="INFO"))

    assert at_info == ["retrying"]
    assert at_debug == ["HTTP Request: POST http://x/v1/messages"]
