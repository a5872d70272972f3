"""The question service over real gRPC (port 0): health, reflection, INVALID_ARGUMENT with field
violations, and opening / follow-up / streaming / closing / rephrase round trips, offline and
through the real SDKs against the fake provider server."""

from __future__ import annotations

import json
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

from services.question.server import SERVICE_FULL_NAME, build_registrations
from services.question.settings import QuestionSettings
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.question.v1 import question_pb2, question_pb2_grpc
from shared.llm import LLMClients, build_llm_clients
from shared.llm.base import LLMClientName
from shared.llm.local import LocalLLMClient
from shared.methodology import MethodologyRegistry
from tests.fakes.llm_server import FakeLLMServer, Reply, fake_llm_settings
from tests.rich_status import from_aio_call

CONFIG_DIR = Path(__file__).resolve().parents[2] / "config"
MAX_TEXT = 400


def _settings() -> QuestionSettings:
    return QuestionSettings(_env_file=None, config_dir=CONFIG_DIR, max_text_chars=MAX_TEXT, log_json=False)


@pytest.fixture(scope="module")
def methodologies() -> MethodologyRegistry:
    return MethodologyRegistry(CONFIG_DIR)


@pytest_asyncio.fixture
async def offline_channel(grpc_server_factory: Any, methodologies: MethodologyRegistry) -> grpc.aio.Channel:
    settings = _settings()
    registrations = build_registrations(
        settings, client=LocalLLMClient(name=LLMClientName.GENERATION), methodologies=methodologies
    )
    _, channel = await grpc_server_factory(settings, registrations)
    return channel


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest_asyncio.fixture
async def llm_clients(fake_llm: FakeLLMServer) -> AsyncIterator[LLMClients]:
    clients = build_llm_clients(fake_llm_settings(fake_llm, "openai"))
    yield clients
    await clients.aclose()


def _concept() -> common_pb2.Concept:
    return common_pb2.Concept(
        id="headphones_mec",
        name="Wireless Headphones",
        methodology="means_end_chain",
        objective="Why people choose",
    )


def _follow_up(**overrides: Any) -> question_pb2.GenerateFollowUpQuestionRequest:
    fields: dict[str, Any] = {
        "session_id": "sess-1",
        "turn_number": 2,
        "methodology": "means_end_chain",
        "concept": _concept(),
        "strategy": "deepen",
        "focus": question_pb2.FocusNode(node_id="n1", label="long battery life", node_type="attribute"),
        "recent_turns": [
            common_pb2.ConversationTurn(speaker=common_pb2.SPEAKER_INTERVIEWER, text="What do you look for?"),
            common_pb2.ConversationTurn(
                speaker=common_pb2.SPEAKER_RESPONDENT, text="Long battery life, mostly.", turn_number=1
            ),
        ],
        "graph_summary": question_pb2.GraphSummary(
            graph_state=common_pb2.GraphState(node_count=2, edge_count=1),
            node_labels=["long battery life", "fit"],
        ),
        "rationale": [
            question_pb2.SignalRationale(
                signal_name="llm.response_depth.shallow",
                value=common_pb2.SignalValue(string_value="shallow"),
                contribution=0.8,
            )
        ],
        "phase": common_pb2.INTERVIEW_PHASE_EARLY,
    }
    fields.update(overrides)
    return question_pb2.GenerateFollowUpQuestionRequest(**fields)


def _bad_request(status: status_pb2.Status | None) -> dict[str, str]:
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            return {v.field: v.description for v in bad.field_violations}
    raise AssertionError("no BadRequest detail")


async def test_health_and_reflection(offline_channel: grpc.aio.Channel) -> None:
    health = health_pb2_grpc.HealthStub(offline_channel)
    for name in ("", SERVICE_FULL_NAME):
        reply = await health.Check(health_pb2.HealthCheckRequest(service=name))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING

    async def requests() -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
        yield reflection_pb2.ServerReflectionRequest(list_services="")
        yield reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_FULL_NAME)

    stub = reflection_pb2_grpc.ServerReflectionStub(offline_channel)
    listed, described = [r async for r in stub.ServerReflectionInfo(requests())]
    assert SERVICE_FULL_NAME == "interview.question.v1.QuestionService"
    assert SERVICE_FULL_NAME in {s.name for s in listed.list_services_response.service}
    assert described.file_descriptor_response.file_descriptor_proto


async def test_offline_round_trips(offline_channel: grpc.aio.Channel) -> None:
    stub = question_pb2_grpc.QuestionServiceStub(offline_channel)
    opening = await stub.GenerateOpeningQuestion(
        question_pb2.GenerateOpeningQuestionRequest(
            session_id="sess-1", methodology="means_end_chain", concept=_concept()
        )
    )
    assert "wireless headphones" in opening.question and opening.question.endswith("?")
    assert (opening.usage.provider, opening.usage.calls) == ("local", 0)

    follow = await stub.GenerateFollowUpQuestion(_follow_up(previous_questions=[opening.question]))
    assert "long battery life" in follow.question
    assert follow.question.count("?") == 1
    assert follow.usage.client == "generation"

    events = [
        e
        async for e in stub.StreamFollowUpQuestion(
            question_pb2.StreamFollowUpQuestionRequest(request=_follow_up())
        )
    ]
    assert [e.WhichOneof("event") for e in events] == ["delta", "final"]
    assert (
        events[-1].final.question == events[0].delta == follow.question
    )  # deterministic per (session, turn)

    closing = await stub.GenerateClosingMessage(
        question_pb2.GenerateClosingMessageRequest(
            session_id="sess-1",
            methodology="means_end_chain",
            concept=_concept(),
            termination_reason=common_pb2.TERMINATION_REASON_RESPONDENT_STOP,
            graph_summary=question_pb2.GraphSummary(node_labels=["long battery life"]),
        )
    )
    assert closing.message.startswith("Of course, we can stop here.")
    assert "long battery life" in closing.message

    rephrased = await stub.RephraseQuestion(
        question_pb2.RephraseQuestionRequest(
            session_id="sess-1",
            methodology="means_end_chain",
            question="In what way does long battery life ultimately matter to you?",
            respondent_text="Sorry, what do you mean?",
        )
    )
    assert "how does long battery life in the end matter to you?" in rephrased.question


@pytest.mark.parametrize(
    ("overrides", "field", "fragment"),
    [
        ({"methodology": "astrology"}, "methodology", "unknown methodology 'astrology'"),
        (
            {"strategy": "dig_for_job"},
            "strategy",
            "unknown strategy 'dig_for_job' for methodology 'means_end_chain'",
        ),
        ({"session_id": ""}, "session_id", "must not be empty"),
        (
            {"previous_questions": ["x" * (MAX_TEXT + 1)]},
            "previous_questions[0]",
            f"at most {MAX_TEXT} characters",
        ),
        ({"focus_mode": 42}, "focus_mode", "unknown enum value 42"),
        (
            {"graph_summary": question_pb2.GraphSummary(element_labels=["Netflix", "x" * 501])},
            "graph_summary.element_labels[1]",
            "at most 500 characters",
        ),
    ],
)
async def test_invalid_argument_with_field_violations(
    offline_channel: grpc.aio.Channel, overrides: dict[str, Any], field: str, fragment: str
) -> None:
    stub = question_pb2_grpc.QuestionServiceStub(offline_channel)
    call = stub.GenerateFollowUpQuestion(_follow_up(**overrides))
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await call
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    violations = _bad_request(await from_aio_call(call))
    assert fragment in violations[field]
    assert field in (exc.value.details() or "")


async def test_stream_rejects_bad_input_before_streaming(offline_channel: grpc.aio.Channel) -> None:
    stub = question_pb2_grpc.QuestionServiceStub(offline_channel)
    call = stub.StreamFollowUpQuestion(
        question_pb2.StreamFollowUpQuestionRequest(request=_follow_up(strategy="nope", session_id=""))
    )
    received = []
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        async for event in call:
            received.append(event)
    assert received == []
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert set(_bad_request(await from_aio_call(call))) == {
        "request.session_id",
        "request.strategy",
    }


async def test_opening_closing_rephrase_validation(offline_channel: grpc.aio.Channel) -> None:
    stub = question_pb2_grpc.QuestionServiceStub(offline_channel)
    opening = stub.GenerateOpeningQuestion(question_pb2.GenerateOpeningQuestionRequest(session_id="s1"))
    with pytest.raises(grpc.aio.AioRpcError):
        await opening
    assert set(_bad_request(await from_aio_call(opening))) == {"methodology", "concept.name"}
    rephrase = stub.RephraseQuestion(
        question_pb2.RephraseQuestionRequest(session_id="s1", methodology="repertory_grid", question="")
    )
    with pytest.raises(grpc.aio.AioRpcError):
        await rephrase
    assert set(_bad_request(await from_aio_call(rephrase))) == {"question"}
    for attempt in (-1, 11):
        call = stub.RephraseQuestion(
            question_pb2.RephraseQuestionRequest(
                session_id="s1", methodology="repertory_grid", question="Why?", attempt=attempt
            )
        )
        with pytest.raises(grpc.aio.AioRpcError) as exc:
            await call
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert set(_bad_request(await from_aio_call(call))) == {"attempt"}


async def test_rephrase_attempts_over_the_wire(offline_channel: grpc.aio.Channel) -> None:
    stub = question_pb2_grpc.QuestionServiceStub(offline_channel)
    two_parts = "Which service have you stopped using, and which one do you use most today?"

    async def rephrase(question: str, attempt: int) -> str:
        response = await stub.RephraseQuestion(
            question_pb2.RephraseQuestionRequest(
                session_id="s1", methodology="repertory_grid", question=question, attempt=attempt
            )
        )
        return str(response.question)

    unset, first = await rephrase(two_parts, 0), await rephrase(two_parts, 1)
    assert unset == first  # a client from before the field asks for a first rewording
    assert "which one do you use most today?" in first
    second = await rephrase(first, 2)
    assert second.endswith("which service have you stopped using?") and "use most" not in second


async def test_llm_stream_round_trip_relays_deltas_in_order(
    grpc_server_factory: Any,
    methodologies: MethodologyRegistry,
    fake_llm: FakeLLMServer,
    llm_clients: LLMClients,
) -> None:
    settings = _settings()
    registrations = build_registrations(settings, client=llm_clients.generation, methodologies=methodologies)
    _, channel = await grpc_server_factory(settings, registrations)
    stub = question_pb2_grpc.QuestionServiceStub(channel)
    chunks = ["**Question:** ", "What does ", "long battery life ", "give you?", " Strategy: deepen"]
    fake_llm.enqueue(
        Reply.stream(*chunks, input_tokens=300, output_tokens=15), Reply.text("Why does it matter?")
    )

    events = [
        e
        async for e in stub.StreamFollowUpQuestion(
            question_pb2.StreamFollowUpQuestionRequest(request=_follow_up())
        )
    ]
    assert [e.delta for e in events[:-1]] == chunks
    final = events[-1].final
    assert final.question == "What does long battery life give you?"
    assert (final.usage.provider, final.usage.calls, final.usage.input_tokens) == ("openai", 1, 300)

    # the lowest-level labels the orchestrator sends beside the newest ones reach the model's prompt
    graph = question_pb2.GraphSummary(
        node_labels=["long battery life"], element_labels=["noise cancelling", "fit"]
    )
    unary = await stub.GenerateFollowUpQuestion(_follow_up(graph_summary=graph))
    assert unary.question == "Why does it matter?"
    stream_request, unary_request = fake_llm.requests
    assert stream_request.streamed and not unary_request.streamed
    assert unary_request.body["temperature"] == 0.7
    prompt = json.dumps(unary_request.body["messages"])
    assert "Concepts of the lowest level, oldest first: noise cancelling; fit" in prompt
    assert "noise cancelling" not in json.dumps(stream_request.body["messages"])


async def test_llm_rate_limit_maps_to_resource_exhausted(
    grpc_server_factory: Any,
    methodologies: MethodologyRegistry,
    fake_llm: FakeLLMServer,
    llm_clients: LLMClients,
) -> None:
    settings = _settings()
    registrations = build_registrations(settings, client=llm_clients.generation, methodologies=methodologies)
    _, channel = await grpc_server_factory(settings, registrations)
    fake_llm.enqueue(Reply.rate_limited(), Reply.rate_limited())
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await question_pb2_grpc.QuestionServiceStub(channel).GenerateFollowUpQuestion(_follow_up())
    assert exc.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_llm_timeout_on_stream_maps_to_deadline_exceeded(
    grpc_server_factory: Any, methodologies: MethodologyRegistry, fake_llm: FakeLLMServer
) -> None:
    clients = build_llm_clients(fake_llm_settings(fake_llm, "anthropic", timeout_s=0.3))
    try:
        settings = _settings()
        registrations = build_registrations(settings, client=clients.generation, methodologies=methodologies)
        _, channel = await grpc_server_factory(settings, registrations)
        fake_llm.enqueue(Reply.stall(2), Reply.stall(2))
        stub = question_pb2_grpc.QuestionServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as exc:
            _ = [
                e
                async for e in stub.StreamFollowUpQuestion(
                    question_pb2.StreamFollowUpQuestionRequest(request=_follow_up())
                )
            ]
        assert exc.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert [r.retry_count for r in fake_llm.requests] == [0, 1]
    finally:
        await clients.aclose()
