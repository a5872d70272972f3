"""Free text and streaming through both SDKs: order of deltas, final usage, errors mid-stream."""

from __future__ import annotations

import pytest

from shared.errors import LLMInvalidOutputError, LLMTimeoutError, LLMUnavailableError
from shared.llm import TextDelta
from tests.fakes.llm_server import FakeLLMServer, Reply, fake_llm_settings
from tests.unit.llm.conftest import BuildClients

PROVIDERS = ["anthropic", "openai", "kimi"]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_stream_relays_deltas_in_order_then_usage(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str
) -> None:
    chunks = ["What ", "made ", "oat milk ", "feel ", "right", "?"]
    fake_llm.enqueue(Reply.stream(*chunks, input_tokens=321, output_tokens=17))
    clients = await build_clients(fake_llm_settings(fake_llm, provider))
    deltas: list[TextDelta] = [
        d
        async for d in clients.generation.stream_text(
            system="Ask one question.", user="context", session_id="s-1"
        )
    ]
    assert [d.text for d in deltas[:-1]] == chunks
    assert not any(d.done for d in deltas[:-1]) and all(d.usage is None for d in deltas[:-1])
    final = deltas[-1]
    assert final.done and final.text == ""
    assert final.usage is not None
    assert (final.usage.input_tokens, final.usage.output_tokens, final.usage.calls) == (321, 17, 1)
    assert (final.usage.client, final.usage.provider) == ("generation", provider)
    assert final.usage.cost_usd > 0
    [request] = fake_llm.requests
    assert request.streamed
    assert request.body["temperature"] == 0.7  # the generation client's default
    if provider != "anthropic":
        assert request.body["stream_options"] == {"include_usage": True}
        assert request.body["messages"][0] == {"role": "system", "content": "Ask one question."}
    else:
        assert request.body["system"] == "Ask one question."


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_complete_text_sends_prompt_and_temperature_override(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str
) -> None:
    fake_llm.enqueue(Reply.text("  What first drew you to oat milk?  ", input_tokens=50, output_tokens=9))
    clients = await build_clients(fake_llm_settings(fake_llm, provider))
    result = await clients.generation.complete_text(system="sys prompt", user="the answer", temperature=0.9)
    assert result.text == "What first drew you to oat milk?"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (50, 9)
    [request] = fake_llm.requests
    assert request.body["temperature"] == 0.9
    assert request.body["max_tokens"] == 1024
    assert request.body["messages"][-1] == {"role": "user", "content": "the answer"}


async def test_temperature_none_is_not_sent(fake_llm: FakeLLMServer, build_clients: BuildClients) -> None:
    fake_llm.enqueue(Reply.text("ok"), Reply.text("ok"))
    clients = await build_clients(fake_llm_settings(fake_llm, "anthropic", temperature=None, effort=None))
    await clients.extraction.complete_text(system="s", user="u")
    await clients.extraction.complete_text(system="s", user="u", temperature=0.2)
    first, second = (r.body for r in fake_llm.requests)
    assert "temperature" not in first and "output_config" not in first
    assert second["temperature"] == 0.2


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_empty_completion_is_an_error_not_an_empty_string(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str
) -> None:
    fake_llm.enqueue(Reply.text("   "), Reply.stream())
    clients = await build_clients(fake_llm_settings(fake_llm, provider))
    with pytest.raises(LLMInvalidOutputError, match="empty completion"):
        await clients.generation.complete_text(system="s", user="u")
    with pytest.raises(LLMInvalidOutputError, match="streamed no text"):
        _ = [d async for d in clients.generation.stream_text(system="s", user="u")]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_stream_errors_map_to_domain_errors(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str
) -> None:
    fake_llm.enqueue(Reply.server_error(), Reply.stall(5), Reply.stall(5))
    clients = await build_clients(fake_llm_settings(fake_llm, provider, timeout_s=0.3))
    with pytest.raises(LLMUnavailableError):
        _ = [d async for d in clients.generation.stream_text(system="s", user="u")]
    with pytest.raises(LLMTimeoutError):
        _ = [d async for d in clients.generation.stream_text(system="s", user="u")]
    assert [r.retry_count for r in fake_llm.requests] == [0, 0, 1]  # the stall was retried once


async def test_abandoned_stream_closes_cleanly(fake_llm: FakeLLMServer, build_clients: BuildClients) -> None:
    fake_llm.enqueue(Reply.stream("a", "b", "c"), Reply.text("next call works"))
    clients = await build_clients(fake_llm_settings(fake_llm, "anthropic"))
    stream = clients.generation.stream_text(system="s", user="u")
    first = await anext(stream)
    assert first.text == "a"
    await stream.aclose()  # type: ignore[attr-defined]
    result = await clients.generation.complete_text(system="s", user="u")
    assert result.text == "next call works"
