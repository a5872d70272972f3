"""The extraction service over real gRPC (port 0): health, reflection, INVALID_ARGUMENT with field
violations, Preprocess / ClassifyIntent / Extract round trips offline, and the LLM path through the
real Anthropic SDK against the fake provider server (valid reply; 429 -> RESOURCE_EXHAUSTED)."""

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

from services.extraction.nlp import NlpPipeline, build_nlp
from services.extraction.server import SERVICE_FULL_NAME, build_engine, build_registrations
from services.extraction.settings import ExtractionSettings
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.extraction.v1 import extraction_pb2, extraction_pb2_grpc
from shared.llm import LLMClients, build_llm_clients
from shared.llm.base import LLMClientName
from shared.llm.local import LocalLLMClient
from shared.methodology import MethodologyRegistry
from tests.fakes.llm_server import FakeLLMServer, Reply, fake_llm_settings

CONFIG_DIR = Path(__file__).resolve().parents[2] / "config"
MAX_TEXT = 300
ANSWER = (
    "Mainly the noise cancelling, because it lets me focus on the train, which means I get my reading done."
)


def _settings() -> ExtractionSettings:
    return ExtractionSettings(_env_file=None, config_dir=CONFIG_DIR, max_text_chars=MAX_TEXT, log_json=False)


@pytest.fixture(scope="module")
def pipeline() -> NlpPipeline:
    return build_nlp(None)


@pytest.fixture(scope="module")
def methodologies() -> MethodologyRegistry:
    return MethodologyRegistry(CONFIG_DIR)


@pytest_asyncio.fixture
async def offline_channel(
    grpc_server_factory: Any, pipeline: NlpPipeline, methodologies: MethodologyRegistry
) -> grpc.aio.Channel:
    settings = _settings()
    engine = build_engine(
        settings,
        pipeline=pipeline,
        client=LocalLLMClient(name=LLMClientName.EXTRACTION),
        methodologies=methodologies,
    )
    registrations = build_registrations(settings, engine=engine, methodologies=methodologies)
    _, channel = await grpc_server_factory(settings, registrations)
    return channel


@pytest.fixture
def offline_stub(offline_channel: grpc.aio.Channel) -> extraction_pb2_grpc.ExtractionServiceStub:
    return extraction_pb2_grpc.ExtractionServiceStub(offline_channel)


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest_asyncio.fixture
async def llm_clients(fake_llm: FakeLLMServer) -> AsyncIterator[LLMClients]:
    clients = build_llm_clients(fake_llm_settings(fake_llm, "anthropic"))
    yield clients
    await clients.aclose()


@pytest_asyncio.fixture
async def llm_stub(
    grpc_server_factory: Any,
    pipeline: NlpPipeline,
    methodologies: MethodologyRegistry,
    llm_clients: LLMClients,
) -> extraction_pb2_grpc.ExtractionServiceStub:
    settings = _settings()
    engine = build_engine(
        settings, pipeline=pipeline, client=llm_clients.extraction, methodologies=methodologies
    )
    registrations = build_registrations(settings, engine=engine, methodologies=methodologies)
    _, channel = await grpc_server_factory(settings, registrations)
    return extraction_pb2_grpc.ExtractionServiceStub(channel)


def _extract(**overrides: Any) -> extraction_pb2.ExtractRequest:
    fields: dict[str, Any] = {
        "session_id": "sess-1",
        "utterance_id": "utt-3",
        "text": ANSWER,
        "question": "What do you look for in headphones?",
        "methodology": "means_end_chain",
        "concept": common_pb2.Concept(
            id="headphones_mec",
            name="Wireless headphones",
            objective="Why people choose",
            vocabulary=["noise cancelling", "battery life"],
        ),
        "existing_nodes": [
            extraction_pb2.ExistingNode(node_id="n1", label="long battery life", node_type="attribute")
        ],
        "recent_turns": [
            common_pb2.ConversationTurn(
                speaker=common_pb2.SPEAKER_INTERVIEWER, text="What do you look for in headphones?"
            )
        ],
    }
    fields.update(overrides)
    return extraction_pb2.ExtractRequest(**fields)


def _violations(err: grpc.aio.AioRpcError) -> dict[str, str]:
    status: status_pb2.Status | None = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            return {v.field: v.description for v in bad.field_violations}
    raise AssertionError("no BadRequest detail")


async def test_health_and_reflection(offline_channel: grpc.aio.Channel) -> None:
    channel = offline_channel
    health = health_pb2_grpc.HealthStub(channel)
    for name in ("", SERVICE_FULL_NAME):
        reply = await health.Check(health_pb2.HealthCheckRequest(service=name))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING

    async def requests() -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
        yield reflection_pb2.ServerReflectionRequest(list_services="")
        yield reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_FULL_NAME)

    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    listed, described = [r async for r in stub.ServerReflectionInfo(requests())]
    assert SERVICE_FULL_NAME == "interview.extraction.v1.ExtractionService"
    assert SERVICE_FULL_NAME in {s.name for s in listed.list_services_response.service}
    assert described.file_descriptor_response.file_descriptor_proto


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"text": ""}, {"text": "must not be empty"}),
        (
            {"text": "x" * (MAX_TEXT + 1)},
            {"text": f"must be at most {MAX_TEXT} characters (got {MAX_TEXT + 1})"},
        ),
        ({"methodology": "astrology"}, {"methodology": "unknown methodology 'astrology'"}),
        (
            {"session_id": "", "methodology": "", "existing_nodes": [extraction_pb2.ExistingNode(label=" ")]},
            {
                "session_id": "must not be empty",
                "methodology": "must not be empty",
                "existing_nodes[0].label": "must not be empty",
            },
        ),
        (
            {"recent_turns": [common_pb2.ConversationTurn(text="hi")]},
            {"recent_turns[0].speaker": "must be INTERVIEWER or RESPONDENT"},
        ),
    ],
)
async def test_extract_rejects_bad_input(
    offline_stub: extraction_pb2_grpc.ExtractionServiceStub,
    overrides: dict[str, Any],
    expected: dict[str, str],
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as excinfo:
        await offline_stub.Extract(_extract(**overrides))
    assert excinfo.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert _violations(excinfo.value) == expected


async def test_preprocess_and_classify_reject_empty_text(
    offline_stub: extraction_pb2_grpc.ExtractionServiceStub,
) -> None:
    for call, request in (
        (offline_stub.Preprocess, extraction_pb2.PreprocessRequest(text="  ", enable_srl=True)),
        (offline_stub.ClassifyIntent, extraction_pb2.ClassifyIntentRequest(text="")),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as excinfo:
            await call(request)
        assert excinfo.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert _violations(excinfo.value) == {"text": "must not be empty"}


async def test_extract_round_trip_offline(offline_stub: extraction_pb2_grpc.ExtractionServiceStub) -> None:
    reply = await offline_stub.Extract(_extract())
    labels = {(c.label, c.node_type) for c in reply.concepts}
    assert ("noise cancelling", "attribute") in labels
    assert ("focus on the train", "functional_consequence") in labels
    assert ("get my reading done", "psychosocial_consequence") in labels
    for c in reply.concepts:
        assert ANSWER[c.quote.start : c.quote.end] == c.quote.text
        assert c.source_utterance_id == c.quote.utterance_id == "utt-3"
        assert c.properties["extractor"] == "local"
    edges = {(r.source_label, r.edge_type, r.target_label) for r in reply.relationships}
    assert ("noise cancelling", "leads_to", "focus on the train") in edges
    assert ("focus on the train", "leads_to", "get my reading done") in edges
    assert not reply.skipped and list(reply.warnings) == []
    assert (reply.usage.provider, reply.usage.calls, reply.usage.client) == ("local", 0, "extraction")


async def test_extract_skips_bare_replies(offline_stub: extraction_pb2_grpc.ExtractionServiceStub) -> None:
    reply = await offline_stub.Extract(_extract(text="Yes."))
    assert reply.skipped and reply.skip_reason == "answer has fewer than 3 words"
    assert len(reply.concepts) == 0 and len(reply.relationships) == 0


async def test_preprocess_round_trip(offline_stub: extraction_pb2_grpc.ExtractionServiceStub) -> None:
    reply = await offline_stub.Preprocess(extraction_pb2.PreprocessRequest(text=ANSWER, enable_srl=True))
    assert reply.mode == extraction_pb2.PREPROCESS_MODE_RULES
    assert [(r.marker, r.relation) for r in reply.discourse_relations] == [
        ("because", "cause"),
        ("which means", "result"),
    ]
    because = reply.discourse_relations[0]
    assert because.left.text == "Mainly the noise cancelling"
    assert (
        ANSWER[because.right.start : because.right.end]
        == because.right.text
        == "it lets me focus on the train"
    )
    assert len(reply.sentences) == 1 and "focus" in reply.sentences[0].lemmas
    assert any(f.predicate_lemma == "let" for f in reply.frames)
    assert reply.intent.intent == common_pb2.RESPONDENT_INTENT_ANSWER

    disabled = await offline_stub.Preprocess(extraction_pb2.PreprocessRequest(text=ANSWER, enable_srl=False))
    assert disabled.mode == extraction_pb2.PREPROCESS_MODE_DISABLED
    assert len(disabled.sentences) == len(disabled.discourse_relations) == len(disabled.frames) == 0


async def test_preprocess_reads_the_topic_words_for_off_topic(
    offline_stub: extraction_pb2_grpc.ExtractionServiceStub,
) -> None:
    # "Netflix" shares no word with the question; the concept's vocabulary names it
    text, question = "Really though, the main thing is still Netflix.", "What other examples come to mind?"
    without = await offline_stub.Preprocess(extraction_pb2.PreprocessRequest(text=text, question=question))
    assert without.intent.intent == common_pb2.RESPONDENT_INTENT_OFF_TOPIC
    with_topic = await offline_stub.Preprocess(
        extraction_pb2.PreprocessRequest(
            text=text, question=question, topic="Video Streaming Services; Netflix; Disney+"
        )
    )
    assert with_topic.intent.intent == common_pb2.RESPONDENT_INTENT_ANSWER


async def test_preprocess_rejects_a_topic_over_the_text_limit(
    offline_stub: extraction_pb2_grpc.ExtractionServiceStub,
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as excinfo:
        await offline_stub.Preprocess(extraction_pb2.PreprocessRequest(text="Fine.", topic="x" * 100_000))
    assert excinfo.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert set(_violations(excinfo.value)) == {"topic"}


async def test_classify_intent(offline_stub: extraction_pb2_grpc.ExtractionServiceStub) -> None:
    reply = await offline_stub.ClassifyIntent(
        extraction_pb2.ClassifyIntentRequest(text="Sorry, I have to go now.")
    )
    assert reply.intent.intent == common_pb2.RESPONDENT_INTENT_STOP_REQUEST
    assert reply.intent.confidence >= 0.8 and reply.intent.rationale


async def test_srl_hints_from_preprocess_are_accepted_back(
    offline_stub: extraction_pb2_grpc.ExtractionServiceStub,
) -> None:
    hints = await offline_stub.Preprocess(extraction_pb2.PreprocessRequest(text=ANSWER, enable_srl=True))
    reply = await offline_stub.Extract(_extract(srl=hints))
    assert len(reply.concepts) >= 3
    tampered = extraction_pb2.PreprocessResponse()
    tampered.CopyFrom(hints)
    tampered.discourse_relations[0].right.start += 1
    with pytest.raises(grpc.aio.AioRpcError) as excinfo:
        await offline_stub.Extract(_extract(srl=tampered))
    assert _violations(excinfo.value) == {
        "srl.discourse_relations[0].right": "span does not match the text at its offsets"
    }


async def test_llm_path_round_trip_and_rate_limit(
    llm_stub: extraction_pb2_grpc.ExtractionServiceStub, fake_llm: FakeLLMServer
) -> None:
    fake_llm.enqueue(
        Reply.structured(
            {
                "concepts": [
                    {"label": "noise cancelling", "node_type": "attribute", "quote": "the noise cancelling"},
                    {"label": "reading done", "node_type": "vibe", "quote": "reading done"},
                ],
                "relationships": [],
            }
        )
    )
    reply = await llm_stub.Extract(_extract())
    assert [(c.label, c.node_type, c.quote.text) for c in reply.concepts] == [
        ("noise cancelling", "attribute", "the noise cancelling")
    ]
    assert len(reply.warnings) == 1 and "'vibe' is not in the means_end_chain ontology" in reply.warnings[0]
    assert (reply.usage.provider, reply.usage.calls) == ("anthropic", 1)

    fake_llm.enqueue(Reply.rate_limited(), Reply.rate_limited())
    with pytest.raises(grpc.aio.AioRpcError) as excinfo:
        await llm_stub.Extract(_extract())
    assert excinfo.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "rate limit" in (excinfo.value.details() or "")
