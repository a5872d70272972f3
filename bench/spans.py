"""Where a turn's time goes, read off the services' spans (`bench.trace_turns`).

`SpanReceiver` is a minimal OTLP/gRPC trace collector: the services export to it with their
production exporter (`<SVC>_OTEL_EXPORTER=otlp`: a batch processor and protobuf, off the request
path), and it keeps every span it is sent. `python -m bench.spans FILE` runs one in its own process
(a gRPC server in the process that forks the services made their start-up hang), appending each
span to FILE as a JSON line as it arrives; `read_spans` reads them back.

`turn_budgets` splits every SubmitTurn the orchestrator served into the calls on its critical path
(each: time seen by the orchestrator, time inside the callee's handler, time of the LLM calls the
handler made) and the orchestrator's own time outside any such call. Calls under the background
slot discovery are not on the turn's path and are left out.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import signal
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

import grpc
import grpc.aio
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

from bench.stats import merge_intervals

TURN_SPAN = "/interview.orchestrator.v1.InterviewService/SubmitTurn"
BACKGROUND_SPAN = "background.slot_discovery"
LLM_SPAN_PREFIX = "chat "
SERVER, CLIENT = "SERVER", "CLIENT"
_KINDS = {v: k.removeprefix("SPAN_KIND_") for k, v in trace_pb2.Span.SpanKind.items()}


@dataclass(frozen=True)
class Span:
    """One exported span (times in seconds since the epoch)."""

    service: str
    name: str
    kind: str
    trace_id: str
    span_id: str
    parent_id: str | None
    start: float
    end: float
    attributes: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ms(self) -> float:
        """Duration in milliseconds."""
        return (self.end - self.start) * 1000


@dataclass(frozen=True)
class CallTiming:
    """One call of the orchestrator on a turn's critical path."""

    method: str  # the RPC's short name, e.g. "ApplyExtraction"
    client_ms: float  # as the orchestrator saw it
    server_ms: float | None  # the callee's server span (None when it was not exported)
    llm_ms: float  # the LLM calls made under the callee's span (their wall time, merged)

    @property
    def transport_ms(self) -> float | None:
        """Client minus server: marshalling, the sockets, both event loops' queues."""
        return None if self.server_ms is None else self.client_ms - self.server_ms


@dataclass(frozen=True)
class TurnBudget:
    """One SubmitTurn: its duration, its critical-path calls and the orchestrator's own time."""

    trace_id: str
    start: float
    total_ms: float
    calls: tuple[CallTiming, ...]
    own_ms: float  # inside SubmitTurn but outside every critical-path call


def _value(value: common_pb2.AnyValue) -> Any:
    kind = value.WhichOneof("value")
    return (
        getattr(value, kind) if kind in ("string_value", "bool_value", "int_value", "double_value") else None
    )


def spans_from_otlp(request: trace_service_pb2.ExportTraceServiceRequest) -> list[Span]:
    """The spans of one OTLP export (the service is the resource's `service.name`)."""
    out: list[Span] = []
    for resource_spans in request.resource_spans:
        resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
        service = str(resource.get("service.name", ""))
        for scope_spans in resource_spans.scope_spans:
            for s in scope_spans.spans:
                out.append(
                    Span(
                        service=service,
                        name=s.name,
                        kind=_KINDS.get(s.kind, "UNSPECIFIED"),
                        trace_id=s.trace_id.hex(),
                        span_id=s.span_id.hex(),
                        parent_id=s.parent_span_id.hex() or None,
                        start=s.start_time_unix_nano / 1e9,
                        end=s.end_time_unix_nano / 1e9,
                        attributes={a.key: _value(a.value) for a in s.attributes},
                    )
                )
    return out


class SpanReceiver(trace_service_pb2_grpc.TraceServiceServicer):
    """An OTLP/gRPC trace collector on 127.0.0.1 (a free port) keeping every span it receives.

    `async with SpanReceiver() as receiver:` serves until the block ends; `receiver.endpoint` is
    what the services' `<SVC>_OTEL_ENDPOINT` should say. With a `sink`, each span is also written to
    it as a JSON line (and flushed) when it arrives."""

    def __init__(self, sink: TextIO | None = None) -> None:
        self.spans: list[Span] = []
        self._sink = sink
        self._server = grpc.aio.server()
        trace_service_pb2_grpc.add_TraceServiceServicer_to_server(self, self._server)
        self._port = self._server.add_insecure_port("127.0.0.1:0")

    @property
    def endpoint(self) -> str:
        """`http://127.0.0.1:<port>` (plain text, as the OTLP exporter reads it)."""
        return f"http://127.0.0.1:{self._port}"

    async def Export(  # noqa: N802 (the OTLP service's method name)
        self, request: trace_service_pb2.ExportTraceServiceRequest, context: grpc.aio.ServicerContext
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        """Keep the spans; the exporter is told all were accepted."""
        received = spans_from_otlp(request)
        self.spans.extend(received)
        if self._sink is not None:
            self._sink.writelines(json.dumps(dataclasses.asdict(s)) + "\n" for s in received)
            self._sink.flush()
        return trace_service_pb2.ExportTraceServiceResponse()

    async def __aenter__(self) -> SpanReceiver:
        await self._server.start()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._server.stop(grace=1.0)


def read_spans(path: Path) -> list[Span]:
    """The spans a receiver wrote to `path` (a last line cut short by a kill is skipped)."""
    out: list[Span] = []
    for line in path.read_text().splitlines():
        try:
            out.append(Span(**json.loads(line)))
        except (json.JSONDecodeError, TypeError):
            continue
    return out


def covered_ms(intervals: Iterable[tuple[float, float]], lo: float, hi: float) -> float:
    """Milliseconds of [lo, hi] covered by the union of `intervals` (seconds)."""
    clipped = [(max(a, lo), min(b, hi)) for a, b in intervals if b > lo and a < hi]
    return sum(b - a for a, b in merge_intervals(clipped)) * 1000


def _under(span: Span, by_id: Mapping[str, Span], name: str) -> bool:
    parent = span.parent_id
    while parent is not None and parent in by_id:
        ancestor = by_id[parent]
        if ancestor.name == name:
            return True
        parent = ancestor.parent_id
    return False


def turn_budgets(spans: Sequence[Span], session_id: str | None = None) -> list[TurnBudget]:
    """Every SubmitTurn served by the orchestrator (of `session_id` when given), oldest first."""
    by_trace: dict[str, list[Span]] = {}
    for s in spans:
        by_trace.setdefault(s.trace_id, []).append(s)
    budgets: list[TurnBudget] = []
    for trace_id, members in by_trace.items():
        turn = next((s for s in members if s.name == TURN_SPAN and s.kind == SERVER), None)
        if turn is None:
            continue
        if session_id is not None and not any(s.attributes.get("session.id") == session_id for s in members):
            continue
        by_id = {s.span_id: s for s in members}
        children: dict[str, list[Span]] = {}
        for s in members:
            if s.parent_id is not None:
                children.setdefault(s.parent_id, []).append(s)
        calls: list[CallTiming] = []
        intervals: list[tuple[float, float]] = []
        for s in sorted(members, key=lambda m: m.start):
            if s.service != turn.service or s.kind != CLIENT or not s.name.startswith("/"):
                continue
            if _under(s, by_id, BACKGROUND_SPAN):
                continue
            server = next((c for c in children.get(s.span_id, []) if c.kind == SERVER), None)
            llm: list[tuple[float, float]] = []
            if server is not None:
                stack = list(children.get(server.span_id, []))
                while stack:
                    c = stack.pop()
                    if c.kind == CLIENT and c.name.startswith(LLM_SPAN_PREFIX):
                        llm.append((c.start, c.end))
                    stack.extend(children.get(c.span_id, []))
            calls.append(
                CallTiming(
                    method=s.name.rsplit("/", 1)[-1],
                    client_ms=s.ms,
                    server_ms=server.ms if server is not None else None,
                    llm_ms=covered_ms(llm, s.start, s.end),
                )
            )
            intervals.append((s.start, s.end))
        own = turn.ms - covered_ms(intervals, turn.start, turn.end)
        budgets.append(TurnBudget(trace_id, turn.start, turn.ms, tuple(calls), own))
    return sorted(budgets, key=lambda b: b.start)


def _p50(values: Sequence[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def summarize(budgets: Sequence[TurnBudget]) -> dict[str, Any]:
    """Medians per call (client, server, LLM, handler without the LLM, transport), of the
    orchestrator's own time and of the turn."""
    per_method: dict[str, list[CallTiming]] = {}
    for b in budgets:
        for c in b.calls:
            per_method.setdefault(c.method, []).append(c)
    calls = {}
    for method, timings in per_method.items():
        served = [c for c in timings if c.server_ms is not None]
        calls[method] = {
            "n": len(timings),
            "client_ms": _p50([c.client_ms for c in timings]),
            "server_ms": _p50([c.server_ms for c in served if c.server_ms is not None]),
            "llm_ms": _p50([c.llm_ms for c in timings]),
            "handler_without_llm_ms": _p50(
                [c.server_ms - c.llm_ms for c in served if c.server_ms is not None]
            ),
            "transport_ms": _p50([c.transport_ms for c in served if c.transport_ms is not None]),
        }
    return {
        "turns": len(budgets),
        "turn_ms": _p50([b.total_ms for b in budgets]),
        "orchestrator_own_ms": _p50([b.own_ms for b in budgets]),
        "calls": calls,
    }


def render_markdown(summary: Mapping[str, Any]) -> str:
    """The summary as a Markdown table (calls in the order of a turn's first one)."""

    def cell(value: Any) -> str:
        return "–" if value is None else f"{value:.1f}"

    lines = [
        f"{summary['turns']} turns; p50 of the turn {cell(summary['turn_ms'])} ms, of which the "
        f"orchestrator outside its critical-path calls {cell(summary['orchestrator_own_ms'])} ms "
        "(calls in one row of the turn's stage graph overlap).",
        "",
        "| call | n | orchestrator sees | callee's handler | LLM calls in it | handler without LLM "
        "| transport (sees − handler) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for method, c in summary["calls"].items():
        lines.append(
            f"| {method} | {c['n']} | {cell(c['client_ms'])} | {cell(c['server_ms'])} | {cell(c['llm_ms'])} "
            f"| {cell(c['handler_without_llm_ms'])} | {cell(c['transport_ms'])} |"
        )
    return "\n".join(lines) + "\n"


async def _serve(path: Path) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    with path.open("a") as sink:
        async with SpanReceiver(sink) as receiver:
            print(f"port {receiver.endpoint.rsplit(':', 1)[1]}", flush=True)
            await stop.wait()


def main(argv: list[str] | None = None) -> int:
    """`python -m bench.spans FILE`: a span receiver; prints `port N`, serves until SIGTERM."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("file", type=Path, help="JSON lines, one span each (appended)")
    asyncio.run(_serve(parser.parse_args(argv).file))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
