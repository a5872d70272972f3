"""Start-up warm-up: every SDK in use is exercised once, in memory; nothing reaches a provider."""

from __future__ import annotations

import pytest

from shared.llm import LLMSettings
from tests.fakes.llm_server import FakeLLMServer, Reply, fake_llm_settings
from tests.unit.llm.conftest import BuildClients


@pytest.mark.parametrize(
    ("provider", "sdk"), [("anthropic", "anthropic"), ("openai", "openai"), ("kimi", "openai")]
)
async def test_warm_up_exercises_the_sdk_in_use_without_a_request_to_the_provider(
    build_clients: BuildClients, fake_llm: FakeLLMServer, provider: str, sdk: str
) -> None:
    clients = await build_clients(fake_llm_settings(fake_llm, provider))
    timings = await clients.warm_up()
    assert set(timings) == {sdk}
    assert fake_llm.requests == []  # answered in memory: no network, no key used, nothing billed
    # The process's real clients still reach their provider afterwards.
    fake_llm.enqueue(Reply.text("Why does that matter to you?"))
    result = await clients.generation.complete_text(system="s", user="u")
    assert result.text == "Why does that matter to you?"
    assert len(fake_llm.requests) == 1


async def test_offline_clients_need_no_warm_up(build_clients: BuildClients) -> None:
    offline = {"provider": "local"}
    settings = LLMSettings(
        _env_file=None,
        extraction=offline,
        scoring=offline,
        generation=offline,  # type: ignore[call-arg]
        anthropic_api_key=None,
        openai_api_key=None,
        kimi_api_key=None,
        deepseek_api_key=None,
    )
    clients = await build_clients(settings)
    assert await clients.warm_up() == {}
