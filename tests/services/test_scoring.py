"""The scoring service over real gRPC (port 0): health, reflection, INVALID_ARGUMENT with field
violations, ScoreResponse / SelectStrategy / DetectSignals round trips (offline), and the LLM rubric
path through the real SDK against the fake provider (malformed output → an error status)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
import pytest_asyncio
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status

from services.scoring.server import SERVICE_NAME, build_engine, build_registrations
from services.scoring.settings import ScoringSettings
from shared.errors import LLMInvalidOutputError
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.scoring.v1 import scoring_pb2, scoring_pb2_grpc
from shared.llm import LLMClients, build_llm_clients
from shared.node_tracker import GraphChangeSummary, NodeStateTracker
from tests.fakes.llm_server import FakeLLMServer, Reply, fake_llm_settings

CONFIG_DIR = Path(__file__).resolve().parents[2] / "config"
MAX_TEXT = 500


def _settings(**overrides: Any) -> ScoringSettings:
    return ScoringSettings(
        _env_file=None,
        config_dir=CONFIG_DIR,
        max_text_chars=MAX_TEXT,
        log_json=False,
        **overrides,
    )


async def _channel(
    factory: Any, settings: ScoringSettings, clients: LLMClients | None = None
) -> grpc.aio.Channel:
    engine = build_engine(settings, clients.scoring if clients else None)
    _, channel = await factory(settings, build_registrations(settings, engine))
    return channel


@pytest_asyncio.fixture
async def stub(grpc_server_factory: Any) -> scoring_pb2_grpc.ScoringServiceStub:
    return scoring_pb2_grpc.ScoringServiceStub(await _channel(grpc_server_factory, _settings()))


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest_asyncio.fixture
async def llm_clients(fake_llm: FakeLLMServer) -> AsyncIterator[LLMClients]:
    clients = build_llm_clients(fake_llm_settings(fake_llm, "anthropic"))
    yield clients
    await clients.aclose()


def _tracker_proto() -> common_pb2.NodeTrackerState:
    t = NodeStateTracker()
    t.register_node("n1", 1, label="noise cancelling", node_type="attribute", level=1)
    t.register_node("n2", 1, label="long battery", node_type="attribute", level=1)
    t.update_focus("n1", 1, "deepen")
    t.record_yield("n1", 2, GraphChangeSummary(nodes_added=1))
    t.register_node("n3", 2, label="focus at work", node_type="functional_consequence", level=2)
    t.update_edge("n1", "n3")
    t.append_response_signal(None, "deep", turn_number=2)
    out = common_pb2.NodeTrackerState(schema_version=1, previous_focus=t.previous_focus or "")
    for s in t.states.values():
        out.states.add(
            node_id=s.node_id,
            label=s.label,
            created_at_turn=s.created_at_turn,
            node_type=s.node_type,
            level=s.level,
            focus_count=s.focus_count,
            last_focus_turn=s.last_focus_turn or 0,
            current_focus_streak=s.current_focus_streak,
            last_yield_turn=s.last_yield_turn or 0,
            turns_since_last_yield=s.turns_since_last_yield,
            yield_count=s.yield_count,
            all_response_depths=s.all_response_depths,
            edge_count_outgoing=s.edge_count_outgoing,
            edge_count_incoming=s.edge_count_incoming,
            last_strategy_used=s.last_strategy_used or "",
            consecutive_same_strategy=s.consecutive_same_strategy,
        )
    return out


def _inputs(**overrides: Any) -> scoring_pb2.SignalInputs:
    fields: dict[str, Any] = {
        "session_id": "sess-1",
        "methodology": "means_end_chain",
        "turn_number": 2,
        "max_turns": 20,
        "graph_state": common_pb2.GraphState(
            node_count=3,
            edge_count=1,
            orphan_count=1,
            depth=common_pb2.DepthMetrics(max_depth=2, avg_depth=1.3),
        ),
        "node_tracker": _tracker_proto(),
        "answer": "It blocks the office noise so I can concentrate, because I work in an open space.",
        "question": "Why does noise cancelling matter to you?",
        "strategy_history": ["deepen"],
        "response_depth_history": [3],
        "velocity": scoring_pb2.VelocityInputs(surface_delta=1, surface_peak=2),
    }
    fields.update(overrides)
    return scoring_pb2.SignalInputs(**fields)


def _violations(error: grpc.aio.AioRpcError) -> dict[str, str]:
    status: status_pb2.Status | None = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            return {v.field: v.description for v in bad.field_violations}
    raise AssertionError("no BadRequest detail")


async def test_health_and_reflection(grpc_server_factory: Any) -> None:
    channel = await _channel(grpc_server_factory, _settings())
    health = health_pb2_grpc.HealthStub(channel)
    for name in ("", SERVICE_NAME):
        reply = await health.Check(health_pb2.HealthCheckRequest(service=name))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING

    async def requests() -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
        yield reflection_pb2.ServerReflectionRequest(list_services="")
        yield reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_NAME)

    listed, described = [
        r async for r in reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(requests())
    ]
    assert SERVICE_NAME == "interview.scoring.v1.ScoringService"
    assert SERVICE_NAME in {s.name for s in listed.list_services_response.service}
    assert described.file_descriptor_response.file_descriptor_proto


@pytest.mark.parametrize(
    ("overrides", "fields"),
    [
        ({"methodology": "astrology"}, {"inputs.methodology"}),
        ({"turn_number": -1}, {"inputs.turn_number"}),
        ({"max_turns": 0}, {"inputs.max_turns"}),
        (
            {"turn_number": 0, "max_turns": 0, "methodology": ""},
            {"inputs.turn_number", "inputs.max_turns", "inputs.methodology"},
        ),
        ({"response_depth_history": [3, 7]}, {"inputs.response_depth_history[1]"}),
        ({"answer": "x" * (MAX_TEXT + 1)}, {"inputs.answer"}),
        ({"strategy_history": ["deepen"] * 31}, {"inputs.strategy_history"}),
        (
            {
                "node_tracker": common_pb2.NodeTrackerState(
                    schema_version=2, states=[common_pb2.NodeState(node_id="a", created_at_turn=1)]
                )
            },
            {"inputs.node_tracker.schema_version"},
        ),
        (
            {
                "node_tracker": common_pb2.NodeTrackerState(
                    schema_version=1,
                    states=[
                        common_pb2.NodeState(
                            node_id="a", created_at_turn=1, all_response_depths=["bottomless"]
                        )
                    ],
                )
            },
            {"inputs.node_tracker.states[0].all_response_depths[0]"},
        ),
        (
            {
                "rubric": scoring_pb2.RubricResult(
                    scores=[common_pb2.RubricScore(name="response_depth", score=9)]
                )
            },
            {"inputs.rubric.scores[0].score", "inputs.rubric.scores"},
        ),
    ],
)
async def test_select_strategy_rejects_bad_inputs_with_field_violations(
    stub: scoring_pb2_grpc.ScoringServiceStub, overrides: dict[str, Any], fields: set[str]
) -> None:
    for call in (
        lambda: stub.SelectStrategy(scoring_pb2.SelectStrategyRequest(inputs=_inputs(**overrides))),
        lambda: stub.DetectSignals(scoring_pb2.DetectSignalsRequest(inputs=_inputs(**overrides))),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await call()
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert set(_violations(info.value)) == fields


async def test_select_strategy_round_trip(stub: scoring_pb2_grpc.ScoringServiceStub) -> None:
    reply = await stub.SelectStrategy(scoring_pb2.SelectStrategyRequest(inputs=_inputs()))
    assert reply.mode == scoring_pb2.SELECTION_MODE_JOINT  # the configured default
    assert reply.phase == common_pb2.INTERVIEW_PHASE_EARLY
    best = reply.decomposition[0]
    assert (best.strategy, best.node_id, best.rank, best.selected) == (
        reply.strategy,
        reply.focus_node_id,
        1,
        True,
    )
    assert sum(c.selected for c in reply.decomposition) == 1
    assert sorted(c.rank for c in reply.decomposition) == list(range(1, len(reply.decomposition) + 1))
    for c in reply.decomposition:
        assert c.base_score == pytest.approx(sum(x.contribution for x in c.contributions))
        assert c.final_score == pytest.approx(c.base_score * c.phase_multiplier + c.phase_bonus)
    assert len(reply.alternatives) == 10 and reply.alternatives[0].strategy == reply.strategy
    assert reply.signals["meta.interview.phase"].string_value == "early"
    assert reply.signals["graph.max_depth"].double_value == pytest.approx(0.4)  # 2 nodes / 5 MEC levels
    assert {n.node_id for n in reply.node_signals} == {"n1", "n2", "n3"}
    n1 = next(n for n in reply.node_signals if n.node_id == "n1")
    assert n1.signals["graph.node.is_current_focus"].bool_value is True
    assert n1.signals["graph.node.has_outgoing"].bool_value is True
    assert [s.name for s in reply.rubric.scores] == [
        "response_depth",
        "specificity",
        "certainty",
        "valence",
        "engagement",
        "intellectual_engagement",
    ]
    assert (reply.rubric.usage.provider, reply.rubric.usage.calls) == ("local", 0)
    two_stage = await stub.SelectStrategy(
        scoring_pb2.SelectStrategyRequest(inputs=_inputs(), mode=scoring_pb2.SELECTION_MODE_TWO_STAGE)
    )
    assert two_stage.mode == scoring_pb2.SELECTION_MODE_TWO_STAGE
    assert all(not c.node_id for c in two_stage.decomposition[1:])


async def test_given_rubric_drives_the_llm_signals(stub: scoring_pb2_grpc.ScoringServiceStub) -> None:
    given = scoring_pb2.RubricResult(
        scores=[
            common_pb2.RubricScore(name=n, score=s, rationale="given")
            for n, s in [
                ("response_depth", 1),
                ("specificity", 5),
                ("certainty", 2),
                ("valence", 3),
                ("engagement", 4),
                ("intellectual_engagement", 1),
            ]
        ]
    )
    reply = await stub.DetectSignals(scoring_pb2.DetectSignalsRequest(inputs=_inputs(rubric=given)))
    assert reply.signals["llm.response_depth"].string_value == "surface"
    assert reply.signals["llm.specificity"].double_value == 1.0
    assert reply.signals["llm.certainty"].double_value == 0.25
    assert [s.rationale for s in reply.rubric.scores] == ["given"] * 6


async def test_score_response_offline_and_its_validation(stub: scoring_pb2_grpc.ScoringServiceStub) -> None:
    reply = await stub.ScoreResponse(
        scoring_pb2.ScoreResponseRequest(session_id="s1", question="How was it?", answer="I don't know.")
    )
    scores = {s.name: s.score for s in reply.rubric.scores}
    assert scores["certainty"] == 1 and scores["response_depth"] == 1
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.ScoreResponse(scoring_pb2.ScoreResponseRequest(question="How was it?", answer="  "))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert set(_violations(info.value)) == {"answer"}


VALID = {
    name: {"score": 4, "rationale": "ok"}
    for name in (
        "response_depth",
        "specificity",
        "certainty",
        "valence",
        "engagement",
        "intellectual_engagement",
    )
}


async def test_llm_rubric_through_the_fake_provider(
    grpc_server_factory: Any, fake_llm: FakeLLMServer, llm_clients: LLMClients
) -> None:
    stub = scoring_pb2_grpc.ScoringServiceStub(await _channel(grpc_server_factory, _settings(), llm_clients))
    fake_llm.enqueue(Reply.structured(VALID, input_tokens=200, output_tokens=60))
    reply = await stub.SelectStrategy(scoring_pb2.SelectStrategyRequest(inputs=_inputs()))
    assert {s.score for s in reply.rubric.scores} == {4}
    assert (reply.rubric.usage.calls, reply.rubric.usage.input_tokens) == (1, 200)
    [request] = fake_llm.requests  # one batched call for all six dimensions
    user = str(request.body["messages"])
    assert "Why does noise cancelling matter to you?" in user and "open space" in user

    fake_llm.enqueue(Reply.malformed(), Reply.malformed())
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.ScoreResponse(scoring_pb2.ScoreResponseRequest(question="Q?", answer="An answer."))
    # not an empty success: INTERNAL with the fixed public message (no provider internals)
    assert info.value.code() == grpc.StatusCode.INTERNAL
    assert info.value.details() == LLMInvalidOutputError.public_message
    assert len(fake_llm.requests) == 3  # the good call, then the malformed one and its single repair
