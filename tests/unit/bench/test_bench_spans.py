"""Reading spans out of the services' logs and splitting a turn into its calls (`bench.spans`)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from bench.run_bench import start_child
from bench.spans import (
    BACKGROUND_SPAN,
    CLIENT,
    SERVER,
    TURN_SPAN,
    Span,
    SpanReceiver,
    covered_ms,
    read_spans,
    render_markdown,
    summarize,
    turn_budgets,
)

MS = 0.001


async def test_the_receiver_collects_what_the_services_exporter_sends() -> None:
    # The exporter the services use (OTLP over gRPC, batch processor) against the receiver, on a socket.
    async with SpanReceiver() as receiver:
        exporter = OTLPSpanExporter(endpoint=receiver.endpoint, insecure=True)
        provider = TracerProvider(resource=Resource.create({"service.name": "graph_store"}))
        provider.add_span_processor(BatchSpanProcessor(exporter))
        tracer = provider.get_tracer("test")
        with tracer.start_as_current_span("outer", kind=trace.SpanKind.SERVER) as outer:
            outer.set_attribute("session.id", "s-1")
            outer.set_attribute("turn.number", 3)
            with tracer.start_as_current_span("inner", kind=trace.SpanKind.CLIENT) as inner:
                pass
        # The exporter is synchronous (a thread of its own in a service): off the event loop here too.
        await asyncio.to_thread(provider.shutdown)
        spans = {s.name: s for s in receiver.spans}

    assert set(spans) == {"outer", "inner"}
    read_outer, read_inner = spans["outer"], spans["inner"]
    assert read_inner.parent_id == f"{outer.get_span_context().span_id:016x}"
    assert read_outer.parent_id is None
    assert read_inner.span_id == f"{inner.get_span_context().span_id:016x}"
    assert read_inner.trace_id == read_outer.trace_id == f"{outer.get_span_context().trace_id:032x}"
    assert (read_inner.kind, read_outer.kind) == (CLIENT, SERVER)
    assert read_outer.attributes == {"session.id": "s-1", "turn.number": 3}
    assert read_outer.service == read_inner.service == "graph_store"
    assert read_outer.start <= read_inner.start <= read_inner.end <= read_outer.end
    assert read_outer.ms > 0


async def test_the_receiver_process_appends_spans_that_read_back_equal(tmp_path: Path) -> None:
    # `python -m bench.spans FILE`, as `bench.trace_turns` runs it: a real exporter sends to it.
    path = tmp_path / "spans.jsonl"
    receiver = await start_child("bench.spans", str(path))
    try:
        provider = TracerProvider(resource=Resource.create({"service.name": "scoring"}))
        provider.add_span_processor(
            BatchSpanProcessor(OTLPSpanExporter(endpoint=receiver.url, insecure=True))
        )
        with provider.get_tracer("test").start_as_current_span("work", kind=trace.SpanKind.SERVER) as span:
            span.set_attribute("session.id", "s-9")
        await asyncio.to_thread(provider.shutdown)
    finally:
        receiver.process.terminate()
        await receiver.process.wait()
    path.write_text(path.read_text() + '{"name": "cut sh')  # a kill mid-line leaves half a line

    (read,) = read_spans(path)
    assert (read.service, read.name, read.kind, read.parent_id) == ("scoring", "work", SERVER, None)
    assert read.span_id == f"{span.get_span_context().span_id:016x}"
    assert read.attributes == {"session.id": "s-9"}
    assert receiver.process.returncode == 0  # SIGTERM is a clean stop


def test_covered_time_merges_overlaps_and_clips_to_the_window() -> None:
    intervals = [(0.010, 0.030), (0.020, 0.040), (0.060, 0.070), (0.095, 0.200), (-1.0, -0.5)]
    assert covered_ms(intervals, 0.0, 0.100) == pytest.approx(30 + 10 + 5)
    assert covered_ms([], 0.0, 1.0) == 0.0


def _span(
    name: str,
    kind: str,
    start_ms: float,
    end_ms: float,
    span_id: str,
    parent: str | None = None,
    service: str = "orchestrator",
    trace_id: str = "t1",
    **attributes: str,
) -> Span:
    return Span(service, name, kind, trace_id, span_id, parent, start_ms * MS, end_ms * MS, dict(attributes))


def _turn(trace_id: str = "t1", session: str = "s-1") -> list[Span]:
    """A 100 ms turn: A (10-30) beside B (20-40), then D (60-70); C runs under the background
    discovery (50-90) and is not on the turn's path."""
    return [
        _span(TURN_SPAN, SERVER, 0, 100, "turn", trace_id=trace_id),
        _span(
            "stage.extraction",
            "INTERNAL",
            9,
            31,
            "stage",
            "turn",
            trace_id=trace_id,
            **{"session.id": session},
        ),
        _span("/pkg.Graph/ListNodes", CLIENT, 10, 30, "a", "stage", trace_id=trace_id),
        _span("/pkg.Graph/ListNodes", SERVER, 12, 28, "a-srv", "a", "graph_store", trace_id),
        _span("chat model-x", CLIENT, 15, 20, "a-llm", "a-srv", "graph_store", trace_id),
        _span("/pkg.Extract/Preprocess", CLIENT, 20, 40, "b", "turn", trace_id=trace_id),
        _span("/pkg.Extract/Preprocess", SERVER, 22, 38, "b-srv", "b", "extraction", trace_id),
        _span(BACKGROUND_SPAN, "INTERNAL", 50, 90, "bg", "turn", trace_id=trace_id),
        _span("/pkg.Slots/DiscoverSlots", CLIENT, 51, 89, "c", "bg", trace_id=trace_id),
        _span("/pkg.Slots/DiscoverSlots", SERVER, 52, 88, "c-srv", "c", "canonical_slots", trace_id),
        _span("/pkg.Question/Generate", CLIENT, 60, 70, "d", "turn", trace_id=trace_id),
    ]


def test_a_turn_is_split_into_its_critical_calls_and_the_orchestrators_own_time() -> None:
    (budget,) = turn_budgets(_turn())

    assert budget.total_ms == pytest.approx(100)
    assert [c.method for c in budget.calls] == ["ListNodes", "Preprocess", "Generate"]  # no DiscoverSlots
    first, second, third = budget.calls
    assert (first.client_ms, first.server_ms, first.llm_ms) == pytest.approx((20, 16, 5))
    assert first.transport_ms == pytest.approx(4)
    assert (second.server_ms, second.llm_ms) == pytest.approx((16, 0))
    assert third.server_ms is None and third.transport_ms is None  # the callee exported nothing
    # 100 ms minus the union of 10-40 and 60-70.
    assert budget.own_ms == pytest.approx(60)


def test_turns_are_kept_for_the_asked_session_only_and_in_time_order() -> None:
    late = [replace(s, start=s.start + 1, end=s.end + 1) for s in _turn("t2")]
    other = _turn("t3", session="s-2")
    spans = [*late, *_turn("t1"), *other]

    assert [b.trace_id for b in turn_budgets(spans, "s-1")] == ["t1", "t2"]
    assert [b.trace_id for b in turn_budgets(spans, "s-2")] == ["t3"]
    assert len(turn_budgets(spans)) == 3
    # A trace without a SubmitTurn served by the orchestrator is no turn.
    assert turn_budgets([s for s in _turn() if s.name != TURN_SPAN]) == []


def test_the_summary_takes_medians_per_call_and_renders_a_table() -> None:
    slow = [replace(s, end=s.start + 3 * (s.end - s.start)) for s in _turn("t2")]
    summary = summarize(turn_budgets([*_turn("t1"), *slow]))

    assert summary["turns"] == 2
    assert summary["turn_ms"] == pytest.approx((100 + 300) / 2)
    listing = summary["calls"]["ListNodes"]
    assert listing["n"] == 2
    assert listing["client_ms"] == pytest.approx((20 + 60) / 2)
    assert listing["handler_without_llm_ms"] == pytest.approx((11 + 33) / 2)
    assert summary["calls"]["Generate"]["server_ms"] is None
    table = render_markdown(summary)
    assert "| ListNodes | 2 | 40.0 | 32.0 | 10.0 | 22.0 | 8.0 |" in table
    assert "| Generate | 2 |" in table and "| – |" in table
    assert list(summary["calls"]) == ["ListNodes", "Preprocess", "Generate"]
