"""Start-up warm-up: every SDK in use is exercised once, in memory, and the connections of the
clients a service uses are opened with a free model listing (no completion reaches a provider)."""

from __future__ import annotations

import pytest

from shared.llm import LLMClientName, LLMSettings
from tests.fakes.llm_server import FakeLLMServer, Reply, fake_llm_settings
from tests.ports import closed_port
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
        generation=offline,
        anthropic_api_key=None,
        openai_api_key=None,
        kimi_api_key=None,
        deepseek_api_key=None,
    )
    clients = await build_clients(settings)
    assert await clients.warm_up() == {}


@pytest.mark.parametrize("provider", ["anthropic", "openai", "kimi"])
async def test_warm_up_opens_the_named_clients_connection_which_the_first_call_reuses(
    build_clients: BuildClients, fake_llm: FakeLLMServer, provider: str
) -> None:
    clients = await build_clients(fake_llm_settings(fake_llm, provider))
    await clients.warm_up(connect=[LLMClientName.GENERATION])
    # One free model listing for the named client, no completion (nothing billed).
    [listing] = fake_llm.listings
    assert listing.method == "GET" and listing.path.endswith("/models")
    assert fake_llm.requests == []
    fake_llm.enqueue(Reply.text("Why does that matter to you?"))
    await clients.generation.complete_text(system="s", user="u")
    # The completion went over the connection opened at start-up (same client port).
    assert [r.client_port for r in fake_llm.requests] == [listing.client_port]


async def test_a_provider_that_cannot_be_reached_is_left_to_the_first_call(
    build_clients: BuildClients, fake_llm: FakeLLMServer
) -> None:
    dead = f"http://127.0.0.1:{closed_port()}"
    settings = fake_llm_settings(fake_llm, "anthropic", base_url=dead)
    clients = await build_clients(settings)
    assert await clients.preconnect([LLMClientName.EXTRACTION, "scoring"]) == {
        "extraction": False,
        "scoring": False,
    }


async def test_offline_clients_have_no_connection_to_open(build_clients: BuildClients) -> None:
    settings = LLMSettings(
        _env_file=None,
        anthropic_api_key=None,
        openai_api_key=None,
        kimi_api_key=None,
        deepseek_api_key=None,
    )
    clients = await build_clients(settings)
    assert await clients.preconnect(list(LLMClientName)) == {}
