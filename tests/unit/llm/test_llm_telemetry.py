"""Usage, cost, spans with GenAI attributes, and one SDK client (connection pool) per logical client."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from shared.errors import LLMUnavailableError
from shared.llm import LLMSettings, ModelPrice
from tests.fakes.llm_server import FakeLLMServer, Reply, fake_llm_settings
from tests.unit.llm.conftest import BuildClients
from tests.unit.llm.models import INVALID, VALID, Extraction


def _with_pricing(settings: LLMSettings, **prices: tuple[float, float]) -> LLMSettings:
    pricing = {model: ModelPrice(input_per_mtok=i, output_per_mtok=o) for model, (i, o) in prices.items()}
    return settings.model_copy(update={"pricing": pricing})


@pytest.mark.parametrize(
    ("provider", "model"), [("anthropic", "claude-sonnet-4-6"), ("kimi", "kimi-k2-0905-preview")]
)
async def test_cost_is_computed_from_the_pricing_table(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str, model: str
) -> None:
    fake_llm.enqueue(Reply.text("hi", input_tokens=2_000, output_tokens=1_000))
    settings = _with_pricing(fake_llm_settings(fake_llm, provider, model=model), **{model[:7]: (4.0, 20.0)})
    clients = await build_clients(settings)
    result = await clients.scoring.complete_text(system="s", user="u")
    assert result.usage.cost_usd == pytest.approx((2_000 * 4.0 + 1_000 * 20.0) / 1_000_000)
    assert (result.usage.model, result.usage.provider, result.usage.client) == (model, provider, "scoring")


async def test_repair_usage_adds_up_tokens_cost_and_calls(
    fake_llm: FakeLLMServer, build_clients: BuildClients
) -> None:
    fake_llm.enqueue(
        Reply.structured(INVALID, input_tokens=1_000, output_tokens=100),
        Reply.structured(VALID, input_tokens=1_500, output_tokens=200),
    )
    settings = _with_pricing(fake_llm_settings(fake_llm, "anthropic"), **{"claude-sonnet": (3.0, 15.0)})
    clients = await build_clients(settings)
    usage = (await clients.extraction.complete_json(system="s", user="u", schema=Extraction)).usage
    assert (usage.input_tokens, usage.output_tokens, usage.calls) == (2_500, 300, 2)
    assert usage.cost_usd == pytest.approx((2_500 * 3.0 + 300 * 15.0) / 1_000_000)


@pytest.mark.parametrize("provider", ["anthropic", "deepseek"])
async def test_each_request_has_a_span_with_genai_attributes(
    fake_llm: FakeLLMServer, build_clients: BuildClients, span_exporter: InMemorySpanExporter, provider: str
) -> None:
    fake_llm.enqueue(
        Reply.structured(INVALID, input_tokens=40, output_tokens=4),
        Reply.structured(VALID, input_tokens=60, output_tokens=6),
    )
    clients = await build_clients(fake_llm_settings(fake_llm, provider, model="deepseek-chat"))
    await clients.extraction.complete_json(system="s", user="u", schema=Extraction, session_id="sess-42")
    spans = span_exporter.get_finished_spans()
    assert len(spans) == 2  # the answer and the repair request
    for span, purpose, tokens in zip(spans, ["json", "json_repair"], [(40, 4), (60, 6)], strict=True):
        attrs = dict(span.attributes or {})
        assert span.name == "chat deepseek-chat"
        assert span.kind == SpanKind.CLIENT
        assert span.instrumentation_scope is not None and span.instrumentation_scope.name == "shared.llm"
        assert attrs["gen_ai.system"] == provider
        assert attrs["gen_ai.operation.name"] == "chat"
        assert attrs["gen_ai.request.model"] == "deepseek-chat"
        assert attrs["gen_ai.request.max_tokens"] == 2048
        assert (attrs["gen_ai.usage.input_tokens"], attrs["gen_ai.usage.output_tokens"]) == tokens
        assert attrs["llm.purpose"] == purpose and attrs["llm.client"] == "extraction"
        assert attrs["session.id"] == "sess-42"
        assert attrs["llm.cost_usd"] == pytest.approx((tokens[0] * 0.14 + tokens[1] * 0.28) / 1e6)
        assert span.status.status_code != StatusCode.ERROR


async def test_failed_request_span_is_marked_as_error(
    fake_llm: FakeLLMServer, build_clients: BuildClients, span_exporter: InMemorySpanExporter
) -> None:
    fake_llm.enqueue(Reply.server_error())
    clients = await build_clients(fake_llm_settings(fake_llm, "openai"))
    with pytest.raises(LLMUnavailableError):
        await clients.generation.complete_text(system="s", user="u")
    [span] = span_exporter.get_finished_spans()
    assert span.status.status_code == StatusCode.ERROR
    assert (span.attributes or {})["error.type"] == "LLMUnavailableError"
    assert "gen_ai.usage.input_tokens" not in (span.attributes or {})


async def test_stream_span_ends_with_usage(
    fake_llm: FakeLLMServer, build_clients: BuildClients, span_exporter: InMemorySpanExporter
) -> None:
    fake_llm.enqueue(Reply.stream("a", "b", input_tokens=5, output_tokens=2))
    clients = await build_clients(fake_llm_settings(fake_llm, "openai"))
    _ = [d async for d in clients.generation.stream_text(system="s", user="u")]
    [span] = span_exporter.get_finished_spans()
    attrs = dict(span.attributes or {})
    assert (attrs["gen_ai.usage.input_tokens"], attrs["gen_ai.usage.output_tokens"]) == (5, 2)
    assert attrs["llm.purpose"] == "stream"


async def test_sdk_client_and_its_connection_pool_are_reused_across_calls(
    fake_llm: FakeLLMServer, build_clients: BuildClients
) -> None:
    fake_llm.enqueue(*(Reply.text(f"reply {i}") for i in range(3)))
    clients = await build_clients(fake_llm_settings(fake_llm, "anthropic"))
    for _ in range(3):
        await clients.extraction.complete_text(system="s", user="u")
    ports = {r.client_port for r in fake_llm.requests}
    assert len(ports) == 1  # one kept-alive connection: the SDK client was not rebuilt per call


async def test_aclose_closes_the_sdk_clients(fake_llm: FakeLLMServer, build_clients: BuildClients) -> None:
    clients = await build_clients(fake_llm_settings(fake_llm, "kimi"))
    await clients.aclose()
    with pytest.raises(LLMUnavailableError):  # a closed httpx client refuses to send
        await clients.scoring.complete_text(system="s", user="u")
    assert fake_llm.requests == []
    await clients.aclose()  # idempotent
