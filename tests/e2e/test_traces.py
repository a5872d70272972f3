"""One trace per turn across all six services, as exported over OTLP/gRPC by the service processes.

Every service exports to the test's receiver (`<SVC>_OTEL_EXPORTER=otlp`). After a SubmitTurn the
turn's spans — the public SubmitTurn server span, the orchestrator's `stage.<name>` spans and the
internal RPCs' server spans — must share one trace id, cover every service, and hang together: each
internal server span's parent chain reaches the SubmitTurn span.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from tests.e2e.helpers import answers_for, submit
from tests.e2e.otlp import SPAN_KIND_SERVER, OtlpReceiver, SpanRecord
from tests.e2e.processes import SERVICES, Deployment

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

SUBMIT_TURN = "/interview.orchestrator.v1.InterviewService/SubmitTurn"
CONCEPT = "headphones_mec"
BACKGROUND_DISCOVERY = "background.slot_discovery"
NODE_LOOKUP = "turn.node_lookup"  # extraction's node lookup, started before the stages
PREPROCESS = "turn.preprocess"  # the preprocessing call, started before the stages too
SPAN_WAIT_S = 20.0
# Stages that always run (and so always have a span) in the default configuration.
CORE_STAGES = {"context_loading", "utterance_saving", "extraction", "graph_update", "question_generation"}


def _turn_stage_spans(spans: Sequence[SpanRecord], session_id: str, turn: int) -> list[SpanRecord]:
    return [
        s
        for s in spans
        if s.service == "orchestrator"
        and s.name.startswith("stage.")
        and s.attributes.get("session.id") == session_id
        and s.attributes.get("turn.number") == turn
    ]


def _background_spans(spans: Sequence[SpanRecord], session_id: str, turn: int) -> list[SpanRecord]:
    """The turn's deferred slot discovery, which the orchestrator runs in the background."""
    return [
        s
        for s in spans
        if s.service == "orchestrator"
        and s.name == BACKGROUND_DISCOVERY
        and s.attributes.get("session.id") == session_id
        and s.attributes.get("turn.number") == turn
    ]


def _trace_complete(spans: Sequence[SpanRecord], session_id: str, turn: int) -> bool:
    """Every stage span arrived, the trace(s) they belong to hold all six services' spans, and every
    span received so far in them has its whole parent chain (spans are exported as they end, so a
    server span can arrive before the client span of the call that made it)."""
    stages = _turn_stage_spans(spans, session_id, turn)
    if not {s.name.removeprefix("stage.") for s in stages} >= CORE_STAGES:
        return False
    background = _background_spans(spans, session_id, turn)
    if not background:
        return False
    traces = {s.trace_id for s in stages}
    in_trace = [s for s in spans if s.trace_id in traces]
    if not set(SERVICES) <= {s.service for s in in_trace}:
        return False
    by_id = {s.span_id: s for s in in_trace}
    # The background call's server span comes from another process, on its own export schedule.
    if not any(s.service == "canonical_slots" and background[0] in _chain(s, by_id) for s in in_trace):
        return False
    tops = [_chain(s, by_id)[-1] for s in in_trace]
    return any(s.name == SUBMIT_TURN for s in in_trace) and all(
        top.name == SUBMIT_TURN or not top.parent_span_id for top in tops
    )


def _chain(span: SpanRecord, by_id: dict[str, SpanRecord]) -> list[SpanRecord]:
    """The span and its ancestors, as far as they were received."""
    chain = [span]
    while chain[-1].parent_span_id and chain[-1].parent_span_id in by_id and len(chain) < 64:
        chain.append(by_id[chain[-1].parent_span_id])
    return chain


async def _turn(
    stub: orchestrator_pb2_grpc.InterviewServiceStub, receiver: OtlpReceiver, session_id: str, turn: int
) -> tuple[list[SpanRecord], list[SpanRecord]]:
    """Submit a turn; wait for its spans. Returns the spans received since it was sent, and the turn's
    stage spans among them."""
    already = len(receiver.spans())
    await submit(stub, session_id, turn, answers_for(CONCEPT)[turn - 1])
    spans = receiver.wait_until(lambda s: _trace_complete(s[already:], session_id, turn), SPAN_WAIT_S)[
        already:
    ]
    return spans, _turn_stage_spans(spans, session_id, turn)


def _describe(spans: Sequence[SpanRecord]) -> str:
    return "\n".join(
        f"  {s.service:16} {s.name:70} trace={s.trace_id[:8]} parent={s.parent_span_id[:8] or '-'}"
        for s in spans
    )


async def test_one_trace_per_turn_across_all_six_services(
    deployment: Deployment, otlp_receiver: OtlpReceiver, stub: orchestrator_pb2_grpc.InterviewServiceStub
) -> None:
    created: pb.CreateSessionResponse = await stub.CreateSession(
        pb.CreateSessionRequest(concept_id=CONCEPT, max_turns=6)
    )
    session_id = created.session.session_id
    trace_ids: list[str] = []
    for turn in (1, 2):
        spans, stages = await _turn(stub, otlp_receiver, session_id, turn)
        assert {s.name.removeprefix("stage.") for s in stages} >= CORE_STAGES, _describe(spans)

        # One trace id for every stage span of the turn.
        traces = {s.trace_id for s in stages}
        assert len(traces) == 1, f"turn {turn}: stage spans in {len(traces)} traces\n{_describe(spans)}"
        trace_id = traces.pop()
        trace_ids.append(trace_id)
        in_trace = [s for s in spans if s.trace_id == trace_id]
        roots = [s for s in in_trace if s.name == SUBMIT_TURN and s.kind == SPAN_KIND_SERVER]
        assert len(roots) == 1 and roots[0].service == "orchestrator", _describe(in_trace)
        root = roots[0]

        # Internal RPC server spans that started a trace of their own lost the turn's context.
        orphans = [
            s
            for s in spans
            if s.service != "orchestrator" and s.kind == SPAN_KIND_SERVER and not s.parent_span_id
        ]
        services = {s.service for s in in_trace}
        assert services == set(SERVICES), (
            f"turn {turn}: the trace covers {sorted(services)}, not all six services; "
            f"{len(orphans)} internal server spans started traces of their own (trace context not "
            f"propagated by the orchestrator's channels):\n{_describe(orphans)}"
        )

        # Every internal server span, and every stage span, descends from the public SubmitTurn span.
        by_id = {s.span_id: s for s in in_trace}
        internal = [s for s in in_trace if s.service != "orchestrator" and s.kind == SPAN_KIND_SERVER]
        assert {s.service for s in internal} == set(SERVICES) - {"orchestrator"}
        for span in [*internal, *stages]:
            chain = _chain(span, by_id)
            assert chain[-1] is root, (
                f"{span.service} {span.name}: parent chain "
                f"{[f'{c.service}:{c.name}' for c in chain]} does not reach {SUBMIT_TURN}"
            )
        # Internal calls hang under a stage span (the stage that made them), the node lookup's or
        # the preprocessing's span (started before the stages), or, for the deferred slot discovery
        # sent in the background, under the turn's background span; never directly under the root.
        for span in internal:
            assert any(
                c.name.startswith("stage.") or c.name in (BACKGROUND_DISCOVERY, NODE_LOOKUP, PREPROCESS)
                for c in _chain(span, by_id)[1:]
            ), span.name
        for name in (NODE_LOOKUP, PREPROCESS):
            early = [s for s in in_trace if s.name == name]
            assert len(early) == 1 and early[0].parent_span_id == root.span_id, _describe(in_trace)
        background = _background_spans(in_trace, session_id, turn)
        assert len(background) == 1 and _chain(background[0], by_id)[-1] is root, _describe(in_trace)
        under_background = [
            s for s in internal if s.service == "canonical_slots" and background[0] in _chain(s, by_id)
        ]
        assert [s.name for s in under_background] == [
            "/interview.slots.v1.CanonicalSlotService/DiscoverSlots"
        ], _describe(in_trace)
    assert trace_ids[0] != trace_ids[1], "two turns share one trace"
